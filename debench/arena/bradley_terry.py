"""Bradley–Terry strengths from aggregated pairwise outcomes (pure functions over ``cells``).

One cell: first side ``i``, second side ``j`` and covariates ``x`` (first side minus second). The
linear predictor is

    d = s_i - s_j + x · beta

``ties="half"`` — plain Bradley–Terry: P(i wins) = 1 / (1 + exp(-d)); a tie counts as half a win
for each side (a cell's sums: points of i, games). ``ties="davidson"`` — Davidson's model: with
a = d / 2,

    P(i wins) ∝ exp(a),  P(j wins) ∝ exp(-a),  P(tie) ∝ nu,

so ``nu`` (>= 0) measures how often equal sides draw (P(tie | equal) = nu / (2 + nu)) and d keeps
its meaning: the log-odds of a win against a loss (a cell's sums: wins of i, wins of j, ties).

Maximum likelihood with an L2 penalty of ``L2_PENALTY`` times the sum of squared strengths and
coefficients (not on nu). It keeps the fit finite when a model won or lost everything, and fixes
the scale's origin: the strengths sum to 0. The objective is convex; it is minimised by Newton's
method (``newton``) with the analytic gradient and Hessian, many resamples at once. Every resample
starts from the fit on all topics, where the per-cell functions are computed once for all of them.
Strengths are logits; reports show them on the Elo-like scale (``ELO_PER_LOGIT`` = 400 / ln 10
points per logit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np

from debench.arena.cells import PairCells, TopicStats
from debench.arena.newton import POINT_TOLERANCE, RESAMPLE_TOLERANCE, Terms, minimise
from debench.arena.topic_bootstrap import TopicDraws

ELO_PER_LOGIT = 400 / math.log(10)
L2_PENALTY = 0.01
TieModel = Literal["half", "davidson"]
# With no draw at all the maximum-likelihood nu is 0 (the fit is then plain Bradley–Terry); when
# every game is a draw it is unbounded and reported as exp(LOG_NU_MAX), the cap of any estimate.
LOG_NU_MAX = 12.0
LOG_NU_NONE = -700.0
"""log nu held here (nu = 0) in a fit without a single draw."""
CHUNK = 12288
"""(resample, cell) values computed at once: arrays of 96 KB, which the allocator reuses (larger
temporaries are mapped and unmapped each time, and page faults would cost more than the sums)."""
# Products of the small arrays below are written as sums: a matrix product calls BLAS, whose
# threads, on a busy 2-core machine, cost ~30x the arithmetic (measured: 130 ms against 4 ms).
BATCH_ELEMENTS = 1 << 18
"""Resamples fitted together: at most this many (resample, cell) values, at most ``MAX_BATCH``."""
MAX_BATCH = 64
BLOCK_ELEMENTS = 1 << 23
"""Resamples' sums are built in blocks of at most this many (resample, channel, cell) values (64 MB:
the sparse product is several times faster per resample on 20 resamples than on one)."""


@dataclass(frozen=True)
class PairwiseFits:
    """The fit on all topics and one per topic resample (NaN where a draw gives no value: a model
    that played no game in it, or a fit that did not converge)."""

    strengths: np.ndarray
    """(models,) logits, summing to 0."""
    beta: np.ndarray
    """(covariates,) logits per unit of each covariate."""
    nu: float | None
    """Davidson's tie parameter (None for ``ties="half"``)."""
    draw_strengths: np.ndarray
    """(draws, models)."""
    draw_beta: np.ndarray
    draw_nu: np.ndarray | None
    converged: bool
    """The fit on all topics converged."""


class Likelihood:
    """The penalised negative log-likelihood of rows of sums ((b, q, cells)) as a function of
    parameters (strengths, coefficients[, log nu])."""

    def __init__(self, cells: PairCells, ties: TieModel, l2: float):
        self.cells, self.ties, self.l2 = cells, ties, l2
        self.k, self.p = cells.n_models, cells.n_covariates
        self.n_par = self.k + self.p + (1 if ties == "davidson" else 0)
        self._at: dict[tuple[bytes, int], list[tuple[np.ndarray, ...]]] = {}

    def functions(self, theta: np.ndarray, lo: int, hi: int) -> tuple[np.ndarray, ...]:
        """Per-cell functions of the predictor for cells lo..hi, (b, hi - lo) each. Half:
        d, softplus(d), P(win), P(win)P(loss). Davidson: a = d/2, log(normaliser), P(win),
        P(loss), P(tie), log nu (b, 1)."""
        c = self.cells
        s = theta[:, : self.k]
        d = s[:, c.i[lo:hi]] - s[:, c.j[lo:hi]]
        for q in range(self.p):
            d += theta[:, self.k + q, None] * c.x[lo:hi, q]
        if self.ties == "half":
            e = np.exp(-np.abs(d))
            prob = np.where(d >= 0, 1.0, e) / (1.0 + e)
            return d, np.maximum(d, 0.0) + np.log1p(e), prob, prob * (1.0 - prob)
        log_nu = theta[:, -1:]
        a = d / 2
        m = np.maximum(np.abs(a), log_nu)
        ew, el, et = np.exp(a - m), np.exp(-a - m), np.exp(log_nu - m)
        z = ew + el + et
        return a, m + np.log(z), ew / z, el / z, et / z, log_nu

    def chunk_size(self, b: int) -> int:
        """Cells per chunk for ``b`` rows: at most ``CHUNK`` values per array."""
        return max(1, CHUNK // b)

    def at(self, theta_row: np.ndarray, b: int) -> list[tuple[np.ndarray, ...]]:
        """The per-cell functions at one parameter vector, in the chunks of ``b`` rows (shared by
        a batch of ``b`` rows that all start there); kept for the next batch of that size."""
        key = (theta_row.tobytes(), self.chunk_size(b))
        if key not in self._at:
            self._at[key] = [self.functions(theta_row[None, :], lo, hi) for lo, hi, _, _ in self.cells.chunks(key[1])]
        return self._at[key]

    def terms(
        self,
        theta: np.ndarray,
        stats: np.ndarray,
        free_nu: np.ndarray,
        shared: list[tuple[np.ndarray, ...]] | None = None,
    ) -> Terms:
        """Objective, gradient and Hessian of each row; ``shared``: ``at(row, b)`` of the one
        parameter vector every row of ``theta`` holds."""
        b, k, p, c = len(stats), self.k, self.p, self.cells
        davidson = self.ties == "davidson"
        loss, gx, hxx = np.zeros(b), np.zeros((b, p)), np.zeros((b, p, p))
        gp, hp = np.zeros((b, c.n_pairs)), np.zeros((b, c.n_pairs))
        hxp = np.zeros((p, b, c.n_pairs))
        if davidson:
            g_nu, h_nn, hdn_p, hdn_x = np.zeros(b), np.zeros(b), np.zeros((b, c.n_pairs)), np.zeros((b, p))
        for n, (lo, hi, first, pairs) in enumerate(c.chunks(self.chunk_size(b))):
            f = shared[n] if shared is not None else self.functions(theta, lo, hi)
            st = stats[:, :, lo:hi]
            x = c.x[lo:hi]
            if not davidson:
                d, softplus, prob, curv = f
                points, games = st[:, 0], st[:, 1]
                loss += (games * softplus - points * d).sum(axis=1)
                g = games * prob - points
                h = games * curv
            else:
                a, log_z, pw, pl, pt, log_nu = f
                wins, losses, draws = st[:, 0], st[:, 1], st[:, 2]
                games = wins + losses + draws
                margin = pw - pl
                loss += (games * log_z - a * (wins - losses) - draws * log_nu).sum(axis=1)
                g = 0.5 * (games * margin - (wins - losses))
                h = games * (0.25 * (pw + pl - margin**2))
                h_dn = games * (-0.5 * pt * margin)
                g_nu += (games * pt - draws).sum(axis=1)
                h_nn += (games * (pt * (1.0 - pt))).sum(axis=1)
                hdn_p[:, pairs] += np.add.reduceat(h_dn, first, axis=1)
                for q in range(p):
                    hdn_x[:, q] += (h_dn * x[:, q]).sum(axis=1)
            gp[:, pairs] += np.add.reduceat(g, first, axis=1)
            hp[:, pairs] += np.add.reduceat(h, first, axis=1)
            for q in range(p):
                gx[:, q] += (g * x[:, q]).sum(axis=1)
                hx = h * x[:, q]
                hxp[q][:, pairs] += np.add.reduceat(hx, first, axis=1)
                for r in range(q, p):
                    hxx[:, q, r] += (hx * x[:, r]).sum(axis=1)
        grad, hess = np.zeros((b, self.n_par)), np.zeros((b, self.n_par, self.n_par))
        grad[:, :k] = c.to_models(gp)
        hess[:, :k, :k] = c.laplacian(hp)
        if p:
            grad[:, k : k + p] = gx
            hxx += np.triu(hxx, 1).transpose(0, 2, 1)
            hess[:, k : k + p, k : k + p] = hxx
            for q in range(p):
                hess[:, :k, k + q] = hess[:, k + q, :k] = c.to_models(hxp[q])
        if davidson:
            grad[:, -1] = g_nu * free_nu
            hess[:, -1, -1] = np.where(free_nu, h_nn + 1e-12, 1.0)
            hess[:, :k, -1] = hess[:, -1, :k] = c.to_models(hdn_p) * free_nu[:, None]
            if p:
                hess[:, k : k + p, -1] = hess[:, -1, k : k + p] = hdn_x * free_nu[:, None]
        penalised = theta[:, : k + p]
        total = theta[:, :k].sum(axis=1)
        # (sum of strengths)^2: zero at every optimum (which has mean 0 with or without the L2
        # penalty), it makes the Hessian definite along the shift the likelihood ignores
        loss += self.l2 * (penalised**2).sum(axis=1) + total**2
        grad[:, : k + p] += 2 * self.l2 * penalised
        grad[:, :k] += 2 * total[:, None]
        idx = np.arange(k + p)
        hess[:, idx, idx] += 2 * self.l2
        hess[:, :k, :k] += 2.0
        return loss, grad, hess

    def fit(
        self, stats: np.ndarray, start: np.ndarray, tolerance: float = RESAMPLE_TOLERANCE
    ) -> tuple[np.ndarray, np.ndarray]:
        """Fits of rows of sums from one ``start``: parameters (log nu last) and which converged."""
        b = len(stats)
        theta = np.repeat(start[None, :], b, axis=0)
        converged = np.zeros(b, dtype=bool)
        free_nu = np.ones(b, dtype=bool)
        if self.ties == "davidson":
            free_nu = stats[:, 2].sum(axis=1) > 0
            only_draws = free_nu & ((stats[:, 0] + stats[:, 1]).sum(axis=1) == 0)  # nu unbounded, every strength equal
            theta[only_draws] = 0.0
            theta[only_draws, -1] = LOG_NU_MAX
            converged[only_draws] = True
            for rows, held in (
                (free_nu & ~only_draws, False),
                (~free_nu, True),
            ):  # without a draw, log nu is held at LOG_NU_NONE
                idx = np.flatnonzero(rows)
                if len(idx):
                    first = start.copy()
                    if held:
                        first[-1] = LOG_NU_NONE
                    theta[idx], converged[idx] = self._solve(stats[idx], first, free_nu[idx], tolerance)
            return theta, converged
        return self._solve(stats, start, free_nu, tolerance)

    def _solve(
        self, stats: np.ndarray, start: np.ndarray, free_nu: np.ndarray, tolerance: float
    ) -> tuple[np.ndarray, np.ndarray]:
        theta = np.repeat(start[None, :], len(stats), axis=0)
        first = self.terms(theta, stats, free_nu, self.at(start, len(stats)))

        def terms(t: np.ndarray, rows: np.ndarray) -> Terms:
            return self.terms(t, stats[rows] if len(rows) < len(stats) else stats, free_nu[rows])

        return minimise(theta, terms, first, tolerance)


def _played(cells: PairCells, stats: np.ndarray) -> np.ndarray:
    """(b, models): whether each model played a game in each row of sums."""
    games = np.add.reduceat(stats.sum(axis=1), cells.pair_start, axis=1) if cells.n_cells else np.zeros((len(stats), 0))
    return np.asarray(cells.membership @ games.T).T > 0


@dataclass(frozen=True)
class Problem:
    """One pairwise fit to make: its cells, their per-topic sums and the tie model."""

    cells: PairCells
    stats: TopicStats
    ties: TieModel


class _Resampled:
    """One problem's fit on all topics, then its fits on the resamples, block by block."""

    def __init__(self, problem: Problem, l2: float):
        self.problem = problem
        self.like = like = Likelihood(problem.cells, problem.ties, l2)
        theta, ok = like.fit(problem.stats.total(), np.zeros(like.n_par), POINT_TOLERANCE)
        self.point, self.converged = theta[0], bool(ok[0])
        self.start = self.point.copy()
        if problem.ties == "davidson" and not LOG_NU_NONE < self.start[-1] < LOG_NU_MAX:
            self.start[-1] = 0.0
        self.batch = max(1, min(MAX_BATCH, BATCH_ELEMENTS // max(1, problem.cells.n_cells)))
        self.width = problem.stats.n_channels * max(1, problem.stats.n_cells)
        self.rows: list[np.ndarray] = []
        self.buffer: np.ndarray | None = None

    @property
    def rows_per_block(self) -> int:
        return max(self.batch, BLOCK_ELEMENTS // self.width)

    def consume(self, counts: np.ndarray) -> None:
        st, k = self.problem.stats, self.like.k
        if self.buffer is None or len(self.buffer) < len(counts):
            self.buffer = np.empty((len(counts), st.n_channels, st.n_cells))
        block = st.reweighted(counts, self.buffer)
        for lo in range(0, len(block), self.batch):
            stats = block[lo : lo + self.batch]
            t, conv = self.like.fit(stats, self.start)
            t[~conv] = np.nan
            t[:, :k] = np.where(_played(self.problem.cells, stats), t[:, :k], np.nan)
            self.rows.append(t)

    def result(self) -> PairwiseFits:
        k, p = self.like.k, self.like.p
        drawn = np.concatenate(self.rows) if self.rows else np.zeros((0, self.like.n_par))
        nu = draw_nu = None
        if self.problem.ties == "davidson":
            nu = _nu(self.point[-1])
            draw_nu = np.array([_nu(v) if np.isfinite(v) else np.nan for v in drawn[:, -1]])
        point = self.point
        return PairwiseFits(
            strengths=point[:k] - point[:k].mean(),
            beta=point[k : k + p].copy(),
            nu=nu,
            draw_strengths=drawn[:, :k],
            draw_beta=drawn[:, k : k + p],
            draw_nu=draw_nu,
            converged=self.converged,
        )


def fit_many(problems: list[Problem], draws: TopicDraws, l2: float = L2_PENALTY) -> list[PairwiseFits]:
    """Each problem's fit on all topics, then on every resample of ``draws``: the resamples are
    drawn once and every problem is fitted on each block of them (with many topics, drawing them
    costs as much as a fit)."""
    runs = [_Resampled(p, l2) for p in problems]
    if runs:
        for counts in draws.blocks(min(r.rows_per_block for r in runs)):
            for r in runs:
                r.consume(counts)
    return [r.result() for r in runs]


def _nu(log_nu: float) -> float:
    return 0.0 if log_nu <= LOG_NU_NONE else float(math.exp(min(log_nu, LOG_NU_MAX)))
