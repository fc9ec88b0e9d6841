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
and does not depend on the order of summation. Small integers are packed two or more to a product
(``_PairKappas._totals``: 9 products for ``kappa_loo``'s 9 terms became 5, 6 for ``kappa_human``
4, on the 631 speeches), each unpacked exactly.

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


def _next_power(bound: float) -> float:
    """The smallest power of two above ``bound`` (>= 0): room for the integers 0..bound."""
    return 2.0 ** int(bound).bit_length()


def _packs(bounds: list[float], room: float) -> list[list[tuple[int, float]]]:
    """Consecutive terms (by index, each with its largest sum in ``bounds``) grouped so that each
    group's ``sum(K_j * term_j)`` stays below ``room``: ``K_j`` is the product of the powers of two
    above the group's earlier bounds (room for each earlier sum), each group's first ``K`` is 1 (a
    term alone always fits: ``_largest_term`` chose the float type for it)."""
    packs: list[list[tuple[int, float]]] = []
    scale = 1.0
    for i, bound in enumerate(bounds):
        if not packs or scale * _next_power(bound) > room:
            packs.append([])
            scale = 1.0
        packs[-1].append((i, scale))
        scale *= _next_power(bound)
    return packs


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

    def _totals(self, first: int, last: int, terms: list[np.ndarray], counts_t: np.ndarray) -> list[np.ndarray]:
        """Pairs first..last-1: for each of ``terms`` (a non-negative integer per table row, the
        first the rows that count), its sum over each pair's shared speeches weighted by the
        resamples' counts, (pairs, b): the first computed alone, the others packed (``_packs``) a
        few to one product, ``sum(K_j * term_j)``, each sum taken back out by division by its
        ``K_j``. Every product and partial sum is a non-negative integer below 2**24 in float32
        (2**53 in float64), so exact: the same numbers as one product per term."""

        def product(values: np.ndarray) -> np.ndarray:
            m = self.table.matrix(values, first, last, counts_t.dtype.type)
            return np.asarray(m @ counts_t, dtype=float)

        counted = product(terms[0])
        most = float(counted.max(initial=0))  # a term's sum is at most its largest value times this
        room = 2.0**24 if counts_t.dtype == np.float32 else 2.0**53
        out = [counted]
        for pack in _packs([float(t.max(initial=0)) * most for t in terms[1:]], room):
            packed = product(sum((scale * terms[1 + i] for i, scale in pack), np.zeros(len(terms[0]))))
            sums = []
            for _, scale in reversed(pack[1:]):
                high = np.floor(packed * (1 / scale))  # exact: a power of two
                packed -= high * scale
                sums.append(high)
            out += [packed, *reversed(sums)]
        return out

    def _kappas(self, first: int, last: int, counts_t: np.ndarray) -> list[np.ndarray]:
        """Pairs first..last-1: the kappas against each of ``ys``, (pairs, b) each."""
        rows = self.table.rows(first, last)
        keep = np.ones(rows.stop - rows.start) if self.keep is None else self.keep[rows]
        fx = self.embed(self.x(rows))
        fys = [self.embed(y(rows)) for y in self.ys]
        terms = [np.ones(len(fx)), (fx * fx).sum(axis=1), *fx.T]
        for fy in fys:
            terms += [(fy * fy).sum(axis=1), *fy.T, ((fx - fy) ** 2).sum(axis=1)]
        totals = iter(self._totals(first, last, [t * keep for t in terms], counts_t))
        n, qx = next(totals), next(totals)
        mx = [next(totals) for _ in range(fx.shape[1])]
        out = []
        for _ in fys:
            expected = n * (qx + next(totals))
            for m in mx:
                expected -= 2 * m * next(totals)
            ok = (n > 0) & (expected > 0)
            out.append(np.where(ok, 1.0 - safe_divide(n * next(totals), expected), np.nan))
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
