"""Bradley–Terry strengths from pairwise outcomes (pure functions).

P(i beats j) = 1 / (1 + exp(-(s_i - s_j))). Fitted by maximum likelihood with a small L2
penalty (which keeps the fit finite when a model won or lost everything and fixes the scale's
origin); a tie counts as half a win for each side. Scores are reported on the Elo-like scale
400 / ln 10 per logit, centred so the mean model is 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.optimize import minimize

ELO_PER_LOGIT = 400 / math.log(10)


def fit_bradley_terry(models: Sequence[str], games: Sequence[tuple[str, str, float]], l2: float = 0.01) -> dict[str, float]:
    """``games``: (model i, model j, result for i: 1 win, 0.5 tie, 0 loss)."""
    index = {m: k for k, m in enumerate(models)}
    if not games:
        return {m: 0.0 for m in models}
    i = np.array([index[a] for a, _, _ in games])
    j = np.array([index[b] for _, b, _ in games])
    y = np.array([r for _, _, r in games], dtype=float)

    def nll(s: np.ndarray) -> tuple[float, np.ndarray]:
        d = s[i] - s[j]
        p = 1 / (1 + np.exp(-d))
        eps = 1e-12
        loss = -np.sum(y * np.log(p + eps) + (1 - y) * np.log(1 - p + eps)) + l2 * np.sum(s**2)
        g_d = p - y
        grad = np.bincount(i, g_d, len(models)) - np.bincount(j, g_d, len(models)) + 2 * l2 * s
        return float(loss), grad

    res = minimize(nll, np.zeros(len(models)), jac=True, method="L-BFGS-B")
    s = res.x - res.x.mean()
    return {m: float(s[index[m]] * ELO_PER_LOGIT) for m in models}
