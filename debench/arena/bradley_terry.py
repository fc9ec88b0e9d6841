"""Bradley–Terry strengths from pairwise outcomes (pure functions).

One game: first side ``i``, second side ``j``, result ``y`` for ``i`` (1 win, 0.5 tie, 0 loss) and
optional covariates ``x`` oriented as first side minus second side. The linear predictor is

    d = s_i - s_j + x · beta

``ties="half"`` — plain Bradley–Terry: P(i wins) = 1 / (1 + exp(-d)); a tie is half a win for each
side. ``ties="davidson"`` — Davidson's model: with a = d / 2,

    P(i wins) ∝ exp(a),  P(j wins) ∝ exp(-a),  P(tie) ∝ nu,

so ``nu`` (>= 0) measures how often equal sides draw (P(tie | equal) = nu / (2 + nu)) and d keeps
its meaning: the log-odds of a win against a loss. Maximum likelihood with a small L2 penalty on the
strengths and coefficients (which keeps the fit finite when a model won or lost everything and
fixes the scale's origin: the strengths sum to 0). Strengths are logits; reports show them on the Elo-like
scale (``ELO_PER_LOGIT`` = 400 / ln 10 points per logit).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.optimize import minimize

ELO_PER_LOGIT = 400 / math.log(10)
TieModel = Literal["half", "davidson"]
# With no draw at all the maximum-likelihood nu is 0 (the fit is then plain Bradley–Terry); when
# every game is a draw it is unbounded and reported as exp(LOG_NU_MAX), the cap of any estimate.
LOG_NU_MAX = 12.0


@dataclass(frozen=True)
class PairwiseFit:
    strengths: np.ndarray
    """Logits, one per model, summing to 0."""
    beta: np.ndarray
    """One coefficient per covariate column (logits per unit of the covariate)."""
    nu: float | None
    """Davidson's tie parameter (None for ``ties="half"``)."""

    def params(self) -> np.ndarray:
        """Strengths then coefficients (the starting point of a refit)."""
        return np.concatenate([self.strengths, self.beta])


def _half_terms(d: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
    """Negative log-likelihood of results ``y`` given predictors ``d``; its first and second
    derivatives in each d."""
    loss = float(np.sum(y * np.logaddexp(0.0, -d) + (1 - y) * np.logaddexp(0.0, d)))
    p = 1 / (1 + np.exp(-d))
    return loss, p - y, p * (1 - p)


def _davidson_terms(d: np.ndarray, y: np.ndarray, log_nu: float) -> tuple[float, np.ndarray, float, np.ndarray, np.ndarray, float]:
    """Davidson negative log-likelihood; derivatives in d and log(nu); second derivatives in d,
    in d and log(nu), and in log(nu). It is convex: a log-sum-exp of linear terms minus linear ones."""
    a = d / 2
    win, loss, tie = (y == 1.0), (y == 0.0), (y == 0.5)
    log_den = np.logaddexp(np.logaddexp(a, -a), log_nu)
    nll = float(np.sum(log_den - np.where(win, a, 0.0) + np.where(loss, a, 0.0) - np.where(tie, log_nu, 0.0)))
    p_win, p_loss, p_tie = np.exp(a - log_den), np.exp(-a - log_den), np.exp(log_nu - log_den)
    margin = p_win - p_loss
    g_d = 0.5 * (margin - (win.astype(float) - loss.astype(float)))
    h_dd = 0.25 * ((p_win + p_loss) - margin**2)
    h_dn = -0.5 * p_tie * margin
    return nll, g_d, float(np.sum(p_tie - tie)), h_dd, h_dn, float(np.sum(p_tie * (1 - p_tie)))


def fit_pairwise(
    n_models: int,
    i: np.ndarray,
    j: np.ndarray,
    y: np.ndarray,
    x: np.ndarray | None = None,
    ties: TieModel = "half",
    l2: float = 0.01,
    start: PairwiseFit | None = None,
) -> PairwiseFit:
    """Fit strengths (and covariate coefficients, and Davidson's nu) jointly by maximum likelihood
    (Newton trust-region steps on the convex penalised negative log-likelihood)."""
    i, j, y = np.asarray(i, dtype=int), np.asarray(j, dtype=int), np.asarray(y, dtype=float)
    x = np.zeros((len(y), 0)) if x is None else np.asarray(x, dtype=float).reshape(len(y), -1)
    p = x.shape[1]
    fit_nu = ties == "davidson" and bool(np.any(y == 0.5))  # without a draw the MLE of nu is 0
    if len(y) == 0:
        return PairwiseFit(np.zeros(n_models), np.zeros(p), 0.0 if ties == "davidson" else None)
    if fit_nu and np.all(y == 0.5):  # nothing but draws: nu is unbounded, every strength equal
        return PairwiseFit(np.zeros(n_models), np.zeros(p), math.exp(LOG_NU_MAX))
    # Design: d = Z @ (s, beta), with row e_i - e_j followed by the covariates.
    z = np.zeros((len(y), n_models + p))
    z[np.arange(len(y)), i] += 1.0
    z[np.arange(len(y)), j] -= 1.0
    z[:, n_models:] = x
    k = n_models + p

    memo: dict[bytes, tuple[float, np.ndarray, np.ndarray]] = {}

    def terms(theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        key = theta.tobytes()
        if key not in memo:
            memo.clear()
            memo[key] = _terms(theta)
        return memo[key]

    def _terms(theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        d = z @ theta[:k]
        grad, hess = np.zeros_like(theta), np.zeros((len(theta), len(theta)))
        if fit_nu:
            loss, g_d, grad[k], h_dd, h_dn, hess[k, k] = _davidson_terms(d, y, float(theta[k]))
            hess[:k, k] = hess[k, :k] = z.T @ h_dn
        else:
            loss, g_d, h_dd = _half_terms(d, y)
        grad[:k] = z.T @ g_d + 2 * l2 * theta[:k]
        hess[:k, :k] = (z * h_dd[:, None]).T @ z + 2 * l2 * np.eye(k)
        return loss + l2 * float(np.sum(theta[:k] ** 2)), grad, hess

    x0 = np.zeros(k + (1 if fit_nu else 0))
    if start is not None:
        x0[:k] = start.params()[:k]
        if fit_nu and start.nu:
            x0[k] = math.log(start.nu)
    res = minimize(lambda t: terms(t)[:2], x0, jac=True, hess=lambda t: terms(t)[2], method="trust-exact")
    s = res.x[:n_models]
    nu = None if ties != "davidson" else float(math.exp(min(res.x[k], LOG_NU_MAX))) if fit_nu else 0.0
    return PairwiseFit(s - s.mean(), res.x[n_models:k].copy(), nu)


def fit_bradley_terry(models: Sequence[str], games: Sequence[tuple[str, str, float]], l2: float = 0.01) -> dict[str, float]:
    """``games``: (model i, model j, result for i: 1 win, 0.5 tie, 0 loss). Elo-like scores, mean 0."""
    index = {m: k for k, m in enumerate(models)}
    fit = fit_pairwise(
        len(models),
        np.array([index[a] for a, _, _ in games], dtype=int),
        np.array([index[b] for _, b, _ in games], dtype=int),
        np.array([r for _, _, r in games], dtype=float),
        l2=l2,
    )
    return {m: float(fit.strengths[index[m]] * ELO_PER_LOGIT) for m in models}
