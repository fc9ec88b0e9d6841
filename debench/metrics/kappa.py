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
from debench.errors import UserError
from debench.metrics.annotators import DEFAULT_MIN_SHARED, PairTable, annotator_pairs
from debench.metrics.base import Draws, Evaluate, Metric, register_metric, safe_divide
from debench.metrics.likert import LIKERT, categories, judge_scores

DEFAULT_WEIGHTS = "quadratic"
WEIGHTINGS = ("linear", "quadratic")
BLOCK_ELEMENTS = 1 << 19
"""Per-pair intermediate arrays hold at most this many (pair, resample) values each."""

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


def _check_weights(weights: str) -> str:
    if weights not in WEIGHTINGS:
        raise UserError(f"kappa weights must be one of {', '.join(WEIGHTINGS)}, got {weights!r}")
    return weights


def _no_pairs(min_shared: int) -> str:
    return f"no annotator pair shares {min_shared} or more speeches"


NO_KAPPA = "no annotator pair has a defined kappa on these speeches (nothing scored in common, or no variation)"


def _pair_kappas(
    table: PairTable, counts_t: np.ndarray, x: np.ndarray, ys: list[np.ndarray], keep: np.ndarray, embed: Embed
) -> list[np.ndarray]:
    """Per pair and resample, the weighted kappa between rater ``x`` and each rater in ``ys``
    (category positions, one per table row) over the rows where ``keep``: (pairs, b) each."""

    def total(data: np.ndarray) -> np.ndarray:
        return table.sums(data * keep, counts_t)

    fx = embed(x)
    n = total(np.ones(len(x)))
    qx = total((fx * fx).sum(axis=1))
    mx = [total(fx[:, t]) for t in range(fx.shape[1])]
    out = []
    for y in ys:
        fy = embed(y)
        observed = total(((fx - fy) ** 2).sum(axis=1))
        expected = n * (qx + total((fy * fy).sum(axis=1)))
        for t, m in enumerate(mx):
            expected -= 2 * m * total(fy[:, t])
        ok = (n > 0) & (expected > 0)
        out.append(np.where(ok, 1.0 - safe_divide(n * observed, expected), np.nan))
    return out


def _mean_over_pairs(kappas: np.ndarray) -> Draws:
    """Mean of the defined kappas per resample (columns)."""
    defined = np.isfinite(kappas)
    k = defined.sum(axis=0)
    return Draws.of(safe_divide(np.where(defined, kappas, 0.0).sum(axis=0), k)).undefined(k == 0, NO_KAPPA)


def _blocks(table: PairTable, counts: np.ndarray, largest_term: float) -> list[np.ndarray]:
    """The resamples in blocks small enough for per-pair intermediates, each as (n, b) counts:
    float32 when every per-pair sum of terms up to ``largest_term`` is an integer below 2**24
    (exact), else float64."""
    size = max(1, BLOCK_ELEMENTS // max(table.n_pairs, 1))
    exact32 = largest_term * float(counts.sum(axis=1).max(initial=0)) < 2**24
    dtype = np.float32 if exact32 else np.float64
    return [np.ascontiguousarray(counts[i : i + size].T, dtype=dtype) for i in range(0, len(counts), size)]


# ---------------------------------------------------------------- kappa_loo


@dataclass(frozen=True)
class _KappaState:
    table: PairTable
    weights: str
    min_shared: int


def _prepare(docs: Sequence[Doc], *, min_shared: int = DEFAULT_MIN_SHARED, weights: str = DEFAULT_WEIGHTS) -> _KappaState:
    return _KappaState(table=annotator_pairs(docs, min_shared), weights=_check_weights(weights), min_shared=min_shared)


def _bind_loo(state: _KappaState, preds: np.ndarray) -> Evaluate:
    t = state.table
    if t.n_pairs == 0:
        return lambda counts: Draws.none(len(counts), _no_pairs(state.min_shared))
    judge = judge_scores(preds)
    seen = np.isfinite(judge)
    cats = categories(judge)
    judge_pos = np.zeros(len(judge), dtype=np.intp)
    judge_pos[seen] = np.searchsorted(cats, judge[seen])
    likert_pos = np.searchsorted(cats, LIKERT)
    x = judge_pos[t.doc]
    vs_b, vs_a = likert_pos[t.score_b - 1], likert_pos[t.score_a - 1]
    keep = seen[t.doc].astype(float)
    embed = _embedding(state.weights, len(cats))
    largest = _largest_term(state.weights, len(cats))

    def evaluate(counts: np.ndarray) -> Draws:
        parts = []
        for block in _blocks(t, counts, largest):
            judge_for_a, judge_for_b = _pair_kappas(t, block, x, [vs_b, vs_a], keep, embed)
            # Entries in pair order, the judge in a's place first: (2 * pairs, b).
            parts.append(_mean_over_pairs(np.stack([judge_for_a, judge_for_b], axis=1).reshape(2 * t.n_pairs, -1)))
        return Draws.concat(parts)

    return evaluate


# ---------------------------------------------------------------- kappa_human


def _bind_human(state: _KappaState, preds: np.ndarray) -> Evaluate:
    t = state.table
    if t.n_pairs == 0:
        return lambda counts: Draws.none(len(counts), _no_pairs(state.min_shared))
    a, b = (t.score_a - 1).astype(np.intp), (t.score_b - 1).astype(np.intp)
    keep = np.ones(len(a))
    embed = _embedding(state.weights, len(LIKERT))
    largest = _largest_term(state.weights, len(LIKERT))

    def evaluate(counts: np.ndarray) -> Draws:
        blocks = _blocks(t, counts, largest)
        return Draws.concat([_mean_over_pairs(_pair_kappas(t, block, a, [b], keep, embed)[0]) for block in blocks])

    return evaluate


register_metric(
    Metric(
        name="kappa_loo",
        prepare=_prepare,
        bind=_bind_loo,
        description="Leave-one-out weighted Cohen's kappa: the judge replaces either annotator of each pair "
        "sharing >= min_shared speeches; mean over pairs and positions",
    )
)
register_metric(
    Metric(
        name="kappa_human",
        prepare=_prepare,
        bind=_bind_human,
        description="Mean weighted Cohen's kappa between the humans of the same annotator pairs (reference)",
    )
)
