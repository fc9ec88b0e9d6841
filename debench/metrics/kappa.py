"""Weighted Cohen's kappa over annotator pairs (Debatable Intelligence §4): ``kappa_loo`` and
``kappa_human``.

``kappa_loo``
    For every pair of annotators (a, b) who rated at least ``min_shared`` (default 50) of the
    same speeches, a is replaced by the judge and the kappa between the judge and b on their
    shared speeches is computed, then b is replaced (judge vs a); the result is the mean over all
    pairs and both positions.
``kappa_human``
    The same average over the same pairs among the humans themselves: the reference the judge is
    compared with. It ignores the predictions but is resampled, so it gets a CI.

Conventions:

* Pairs are fixed in ``prepare`` from all documents it is given; a resample weights each shared
  speech by how often it was drawn, which equals recomputing on the resampled speeches.
* Categories are 1..5 plus any other value the judge gave; weights are distances between
  positions in that sorted list (scikit-learn's convention), so for a judge answering only 1..5
  they are the score differences. A kappa whose expected disagreement is 0 is undefined and that
  pair/position is skipped; the metric is undefined when none is defined.
* Predictions that are not numbers are missing: the speech is left out for the judge (it still
  counts for ``kappa_human``).

How it is computed. Both weightings are squared distances between embedded positions,
w(i, j) = |phi(i) - phi(j)|^2: phi(x) = x for quadratic weights, phi(x) = ([x > t] for each
threshold t) for linear ones. With N the number of shared speeches, O the observed disagreement
sum(w(x, y)) and the expected one E = N sum|phi(x)|^2 + N sum|phi(y)|^2 - 2 sum(phi(x)) . sum(phi(y)),
kappa = 1 - N O / E: every term is a per-pair sum of a per-speech quantity, i.e. one sparse
product of the pair table with the resamples' counts. All are integers, so the result is exact
and does not depend on the order of summation.

Default weighting. Slonim et al. (2021) report kappa = 0.24 between annotators for this question
(paper appendix C). On the 631 speeches, with the 496 annotator pairs sharing >= 50 speeches, the
human-human average (``kappa_human``) is 0.191 with linear weights and 0.271 with quadratic
weights; quadratic is the closer, and is the default (``weights: linear`` selects the other).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from debench.data.base import Doc
from debench.metrics.annotators import PairTable, annotator_pairs
from debench.metrics.base import Draws, Evaluate, Metric, register_metric, safe_divide
from debench.metrics.likert import LIKERT, categories, judge_scores
from debench.metrics.params import DEFAULT_MIN_SHARED, DEFAULT_WEIGHTS, KappaArgs

BLOCK_ELEMENTS = 1 << 17
"""Pairs are taken a few at a time: per-pair arrays hold at most this many (pair, resample) values."""

Embed = Callable[[np.ndarray], np.ndarray]


def _embedding(weights: str, n_categories: int) -> Embed:
    """phi: category positions (rows) -> (rows, T) with w(i, j) = |phi(i) - phi(j)|^2.

    Every term summed per pair (1, |phi|^2, phi_t, |phi(x) - phi(y)|^2) is an integer of at most
    ``_largest_term(weights, n_categories)``."""
    if weights == "quadratic":
        return lambda pos: pos.astype(float)[:, None]
    thresholds = np.arange(n_categories - 1)
    return lambda pos: (pos[:, None] > thresholds[None, :]).astype(float)


def _largest_term(weights: str, n_categories: int) -> float:
    return float((n_categories - 1) ** 2 if weights == "quadratic" else max(n_categories - 1, 1))


def _no_pairs(min_shared: int) -> str:
    return f"no annotator pair shares {min_shared} or more speeches"


NO_KAPPA = "no annotator pair has a defined kappa on these speeches (nothing scored in common, or no variation)"


class _PairKappas:
    """The mean weighted kappa of rater ``x`` against each rater in ``ys`` over all annotator
    pairs, per resample. ``x`` and ``ys`` give category positions per table row (a function of
    the rows, so that they are computed for a few pairs at a time); ``keep`` the rows that count."""

    def __init__(
        self,
        table: PairTable,
        x: Callable[[slice], np.ndarray],
        ys: list[Callable[[slice], np.ndarray]],
        keep: np.ndarray | None,
        weights: str,
        n_categories: int,
    ):
        self.table, self.x, self.ys, self.keep = table, x, ys, keep
        self.embed = _embedding(weights, n_categories)
        self.largest = _largest_term(weights, n_categories)

    def _kappas(self, first: int, last: int, counts_t: np.ndarray) -> list[np.ndarray]:
        """Pairs first..last-1: the kappas against each of ``ys``, (pairs, b) each."""
        rows = self.table.rows(first, last)
        keep = np.ones(rows.stop - rows.start) if self.keep is None else self.keep[rows]

        def total(values: np.ndarray) -> np.ndarray:
            m = self.table.matrix(values * keep, first, last, counts_t.dtype.type)
            return np.asarray(m @ counts_t, dtype=float)

        fx = self.embed(self.x(rows))
        n, qx = total(np.ones(len(fx))), total((fx * fx).sum(axis=1))
        mx = [total(fx[:, t]) for t in range(fx.shape[1])]
        out = []
        for y in self.ys:
            fy = self.embed(y(rows))
            expected = n * (qx + total((fy * fy).sum(axis=1)))
            for t, m in enumerate(mx):
                expected -= 2 * m * total(fy[:, t])
            ok = (n > 0) & (expected > 0)
            out.append(np.where(ok, 1.0 - safe_divide(n * total(((fx - fy) ** 2).sum(axis=1)), expected), np.nan))
        return out

    def evaluate(self, counts: np.ndarray) -> Draws:
        # Every per-pair sum is an integer of at most largest * (documents drawn): exact in float32 below 2**24.
        exact32 = self.largest * float(counts.sum(axis=1).max(initial=0)) < 2**24
        counts_t = np.ascontiguousarray(counts.T, dtype=np.float32 if exact32 else np.float64)
        step = max(1, BLOCK_ELEMENTS // max(len(counts), 1))
        total, defined = np.zeros(len(counts)), np.zeros(len(counts))
        for first in range(0, self.table.n_pairs, step):
            for k in self._kappas(first, min(first + step, self.table.n_pairs), counts_t):
                finite = np.isfinite(k)
                total += np.where(finite, k, 0.0).sum(axis=0)
                defined += finite.sum(axis=0)
        return Draws.of(safe_divide(total, defined)).undefined(defined == 0, NO_KAPPA)


# ---------------------------------------------------------------- kappa_loo


@dataclass(frozen=True)
class _KappaState:
    table: PairTable
    weights: str
    min_shared: int


def _prepare(
    docs: Sequence[Doc], *, min_shared: int = DEFAULT_MIN_SHARED, weights: str = DEFAULT_WEIGHTS
) -> _KappaState:
    return _KappaState(table=annotator_pairs(docs, min_shared), weights=weights, min_shared=min_shared)


def _bind_loo(state: _KappaState, preds: np.ndarray) -> Evaluate:
    t = state.table
    if t.n_pairs == 0:
        return lambda counts: Draws.none(len(counts), _no_pairs(state.min_shared))
    judge = judge_scores(preds)
    seen = np.isfinite(judge)
    cats = categories(judge)
    judge_pos = np.zeros(len(judge), dtype=np.int8 if len(cats) < 128 else np.intp)
    judge_pos[seen] = np.searchsorted(cats, judge[seen])
    likert_pos = np.searchsorted(cats, LIKERT)
    # The judge in a's place (against b), then in b's place (against a).
    kappas = _PairKappas(
        t,
        lambda rows: judge_pos[t.doc[rows]],
        [lambda rows: likert_pos[t.score_b[rows] - 1], lambda rows: likert_pos[t.score_a[rows] - 1]],
        seen[t.doc],
        state.weights,
        len(cats),
    )
    return kappas.evaluate


# ---------------------------------------------------------------- kappa_human


def _bind_human(state: _KappaState, preds: np.ndarray) -> Evaluate:
    t = state.table
    if t.n_pairs == 0:
        return lambda counts: Draws.none(len(counts), _no_pairs(state.min_shared))
    kappas = _PairKappas(
        t, lambda rows: t.score_a[rows] - 1, [lambda rows: t.score_b[rows] - 1], None, state.weights, len(LIKERT)
    )
    return kappas.evaluate


register_metric(
    Metric(
        name="kappa_loo",
        prepare=_prepare,
        bind=_bind_loo,
        params=KappaArgs,
        description="Leave-one-out weighted Cohen's kappa: the judge replaces either annotator of each pair "
        "sharing >= min_shared speeches; mean over pairs and positions",
    )
)
register_metric(
    Metric(
        name="kappa_human",
        prepare=_prepare,
        bind=_bind_human,
        params=KappaArgs,
        description="Mean weighted Cohen's kappa between the humans of the same annotator pairs (reference)",
    )
)
