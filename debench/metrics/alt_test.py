"""The alternative annotator test (Calderon, Reichart & Dror, ACL 2025, "The Alternative Annotator
Test for LLM-as-a-Judge", arXiv 2501.10970): may the judge replace the human annotators?

For numerical ratings (the IBM speeches: 1-5 by named annotators, ``doc.meta["ratings"]`` /
``doc.meta["annotators"]``), as the paper and its reference code do:

* The scored set: the documents with a judge score (a number) and at least two human ratings.
* Leave one annotator out. On each document ``d`` annotator ``a`` rated, the alignment of a rater
  with the *remaining* annotators of ``d`` is the negative RMSE between the rater's score and
  their ratings, ``-sqrt(mean_j (x - r_j)^2)``; the judge (x = its score) and ``a`` (x = ``a``'s
  rating) are both scored against the same remaining annotators.
* Per document, ``W_f = 1`` when the judge aligns at least as well as ``a`` and ``W_h = 1`` when
  ``a`` aligns at least as well as the judge: a tie counts for both sides.
* Only annotators with at least ``min_docs`` (30, the paper's floor for the t-test) documents in
  the scored set enter. Per annotator, a one-sided one-sample t-test of the differences
  ``W_h - W_f`` against ``epsilon`` (alternative: less), i.e. of H0: rho_f <= rho_h - epsilon
  with rho = the mean of W (the advantage probabilities).
* Benjamini-Yekutieli across the annotators at level ``alpha`` (step-up: the largest rank k with
  ``p_(k) <= k / m * alpha / H_m``, H_m = 1 + 1/2 + ... + 1/m, and every smaller rank, rejected).
* ``alt_test_winning_rate`` (omega): the share of tested annotators whose H0 is rejected; the judge
  passes when omega >= 0.5. ``advantage_probability`` (rho): the mean over the tested annotators of
  rho_f, for comparing judges.
* Fewer than ``MIN_ANNOTATORS`` (3) tested annotators: both are undefined, with the reason (the
  paper asks for three or more; with two the test only asks which of them the judge is closer to).

``epsilon`` (default 0.1, the paper's value for crowd-workers) is the cost-benefit allowance given
to the judge. omega is a count of test decisions, so it has no bootstrap CI; rho's CI resamples the
documents with the set of tested annotators fixed. ``alt_test_report`` gives every annotator's row.

Computed with arrays: one pass over the documents per rating slot gives every rating's two
alignments; the tested annotators' win indicators are grouped by annotator and every t-test runs at
once (``one_sided_t_tests``: the arithmetic of scipy's ``ttest_1samp``, to the last digit); rho on
all the bootstrap resamples is one product of the resample counts with the sparse (annotators x
documents) indicator matrix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix

from debench.data.base import Doc
from debench.metrics.annotators import rated
from debench.metrics.base import Draws, Evaluate, Metric, register_metric
from debench.metrics.likert import judge_scores
from debench.metrics.params import DEFAULT_ALPHA, DEFAULT_EPSILON, DEFAULT_MIN_DOCS, AltTestArgs

MIN_ANNOTATORS = 3
PASS_RATE = 0.5
NO_CI = "no CI: a share of annotators decided by tests"


@dataclass(frozen=True)
class Ratings:
    """The human ratings as a padded table: ``value[d, k]`` is the k-th rating of document d (NaN
    past its last), ``who[d, k]`` the index of its annotator in ``ids`` (-1 past the last)."""

    ids: list[Any]
    value: np.ndarray
    who: np.ndarray
    epsilon: float
    alpha: float
    min_docs: int
    last: dict[bytes, Outcome] = field(default_factory=dict, compare=False, repr=False)
    """The test on the last judge scores it ran on (both metrics bind the same predictions)."""

    @classmethod
    def of(
        cls,
        docs: Sequence[Doc],
        epsilon: float = DEFAULT_EPSILON,
        alpha: float = DEFAULT_ALPHA,
        min_docs: int = DEFAULT_MIN_DOCS,
    ) -> Ratings:
        """The table, with the test's settings (checked against ``AltTestArgs`` when the task file
        was loaded)."""
        rows = rated(docs)
        ids = sorted({a for _, who in rows for a in who}, key=lambda a: (str(type(a)), a))
        index = {a: i for i, a in enumerate(ids)}
        width = max((len(r) for r, _ in rows), default=0)
        value = np.full((len(docs), width), np.nan)
        who = np.full((len(docs), width), -1, dtype=np.intp)
        for d, (ratings, annotators) in enumerate(rows):
            value[d, : len(ratings)] = ratings
            who[d, : len(ratings)] = [index[a] for a in annotators]
        return cls(ids, value, who, float(epsilon), float(alpha), int(min_docs))


@dataclass(frozen=True)
class Outcome:
    """The per-document win indicators of the judge against each tested annotator, and the tests."""

    ids: list[Any]
    """The tested annotators (at least ``min_docs`` scored documents), in id order."""
    n_docs: np.ndarray
    rho_f: np.ndarray
    rho_h: np.ndarray
    p: np.ndarray
    p_adjusted: np.ndarray
    won: np.ndarray
    skipped: int
    """Annotators with fewer than ``min_docs`` scored documents."""
    n_scored: int
    indicators: csr_matrix
    """(2 x tested annotators, documents): row a holds W_f of annotator a on the documents a rated,
    row m + a a 1 on each of them; times a (documents, resamples) matrix of counts, the judge's wins
    and the rated documents of every annotator in every resample, in one pass."""
    undefined: str | None

    @property
    def winning_rate(self) -> float | None:
        return None if self.undefined else float(self.won.mean())

    @property
    def advantage_probability(self) -> float | None:
        return None if self.undefined else float(self.rho_f.mean())


def benjamini_yekutieli(p: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The step-up rejections at level ``alpha`` and the adjusted p-values (the smallest level at
    which each would be rejected, capped at 1). A NaN p-value is never rejected."""
    m = len(p)
    if m == 0:
        return np.zeros(0, dtype=bool), np.zeros(0)
    harmonic = float(np.sum(1.0 / np.arange(1, m + 1)))
    finite = np.where(np.isfinite(p), p, np.inf)
    order = np.argsort(finite, kind="stable")
    ranks = np.arange(1, m + 1)
    below = finite[order] <= ranks / m * (alpha / harmonic)
    last = int(np.flatnonzero(below)[-1]) + 1 if below.any() else 0
    rejected = np.zeros(m, dtype=bool)
    rejected[order[:last]] = True
    with np.errstate(invalid="ignore"):
        scaled = np.minimum(1.0, finite[order] * m * harmonic / ranks)
    adjusted = np.empty(m)
    adjusted[order] = np.minimum.accumulate(scaled[::-1])[::-1]
    adjusted[~np.isfinite(p)] = np.nan
    return rejected, adjusted


def segment_sums(x: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The sum of each of the consecutive segments of ``x`` (lengths ``sizes``, each at least 1),
    equal bit for bit to ``np.sum`` of each segment on its own. ``np.add.reduceat`` starts a
    segment's sum at its first element and adds the rest pairwise; ``np.sum`` adds the pairwise
    sum of the whole segment to 0.0: a 0.0 put before each segment makes the first do the second
    (tests/test_alt_test.py checks the equality on random segments)."""
    if len(sizes) == 0:
        return np.zeros(0)
    starts = (np.cumsum(sizes) - sizes).astype(np.intp)
    padded = np.insert(x.astype(float), starts, 0.0)
    return np.add.reduceat(padded, starts + np.arange(len(starts)))


def one_sided_t_tests(diff: np.ndarray, sizes: np.ndarray, epsilon: float) -> np.ndarray:
    """p of the one-sample t-test of mean < ``epsilon`` for each segment of ``diff`` (lengths
    ``sizes``, each at least 2): the arithmetic of scipy's ``ttest_1samp(segment, epsilon,
    alternative="less")`` in scipy 1.17, in the same order (so the same bits), for every segment
    at once; a constant segment gives 0 or 1. Only the t distribution's tail comes from scipy
    (``scipy.special.stdtr``: importing ``scipy.stats`` costs ~0.7 s of CPU)."""
    from scipy.special import stdtr

    n = sizes.astype(float)
    mean = segment_sums(diff, sizes) / n
    deviation = diff - np.repeat(mean, sizes)
    variance = segment_sums(deviation**2, sizes) / n * (n / (n - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        t = (mean - epsilon) / np.sqrt(variance / n)
    p: np.ndarray = stdtr(n - 1, t)
    return p


def _alignments(ratings: Ratings, judge: np.ndarray, scored: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per rating (d, k) of a scored document: the judge's and the annotator's negative RMSE against
    the other annotators of d (NaN elsewhere); one pass over the documents per rating slot k."""
    n, width = ratings.value.shape
    present = ratings.who >= 0
    score_f = np.full((n, width), np.nan)
    score_h = np.full((n, width), np.nan)
    judge_sq = (judge[:, None] - ratings.value) ** 2
    columns = np.arange(width)
    for k in range(width):
        others = present & (columns != k)
        m = others.sum(axis=1)
        ok = scored & present[:, k]
        sq_f = np.where(others, judge_sq, 0.0).sum(axis=1)
        sq_h = np.where(others, (ratings.value[:, k, None] - ratings.value) ** 2, 0.0).sum(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            score_f[ok, k] = -np.sqrt(sq_f[ok] / m[ok])
            score_h[ok, k] = -np.sqrt(sq_h[ok] / m[ok])
    return score_f, score_h


def run_alt_test(ratings: Ratings, preds: Sequence[Any] | np.ndarray) -> Outcome:
    judge = judge_scores(preds)
    key = judge.tobytes()
    if key not in ratings.last:
        ratings.last.clear()
        ratings.last[key] = _outcome(ratings, judge)
    return ratings.last[key]


def _outcome(ratings: Ratings, judge: np.ndarray) -> Outcome:
    n = len(ratings.value)
    present = ratings.who >= 0
    scored = np.isfinite(judge) & (present.sum(axis=1) >= 2)
    score_f, score_h = _alignments(ratings, judge, scored)
    doc, col = np.nonzero(scored[:, None] & present)
    who = ratings.who[doc, col]
    counts = np.bincount(who, minlength=len(ratings.ids))
    tested = np.flatnonzero(counts >= ratings.min_docs)
    skipped = int(np.count_nonzero((counts > 0) & (counts < ratings.min_docs)))
    position = np.full(len(ratings.ids), -1)
    position[tested] = np.arange(len(tested))
    # The tested annotators' ratings grouped by annotator, each one's documents in ascending order.
    keep = np.flatnonzero(position[who] >= 0)
    keep = keep[np.argsort(position[who[keep]], kind="stable")]
    doc, col = doc[keep], col[keep]
    w_f = (score_f[doc, col] >= score_h[doc, col]).astype(float)
    w_h = (score_h[doc, col] >= score_f[doc, col]).astype(float)
    n_docs = counts[tested]
    p = one_sided_t_tests(w_h - w_f, n_docs, ratings.epsilon)
    won, adjusted = benjamini_yekutieli(p, ratings.alpha)
    m = len(tested)
    rows = np.repeat(np.arange(m), n_docs)
    indicators = csr_matrix((np.r_[w_f, np.ones(len(doc))], (np.r_[rows, rows + m], np.r_[doc, doc])), shape=(2 * m, n))
    n_scored = int(scored.sum())
    undefined = None
    if m < MIN_ANNOTATORS:
        undefined = (
            f"the alt-test needs {MIN_ANNOTATORS} or more annotators with {ratings.min_docs} or more rated documents "
            f"among the {n_scored} scored ones; {m} have"
        )
    return Outcome(
        ids=[ratings.ids[a] for a in tested],
        n_docs=n_docs,
        rho_f=segment_sums(w_f, n_docs) / n_docs,
        rho_h=segment_sums(w_h, n_docs) / n_docs,
        p=p,
        p_adjusted=adjusted,
        won=won,
        skipped=skipped,
        n_scored=n_scored,
        indicators=indicators,
        undefined=undefined,
    )


def _bind_winning_rate(ratings: Ratings, preds: np.ndarray) -> Evaluate:
    outcome = run_alt_test(ratings, preds)

    def evaluate(counts: np.ndarray) -> Draws:
        # The test is run once, on the scored documents (the metric has no CI: no resample asks).
        if outcome.undefined is not None:
            return Draws.none(len(counts), outcome.undefined)
        return Draws.of(np.full(len(counts), outcome.winning_rate))

    return evaluate


def _bind_advantage(ratings: Ratings, preds: np.ndarray) -> Evaluate:
    outcome = run_alt_test(ratings, preds)

    def evaluate(counts: np.ndarray) -> Draws:
        if outcome.undefined is not None:
            return Draws.none(len(counts), outcome.undefined)
        # One (2m, b) product; each half a (b, m) view of it. The layout sets the order in which
        # numpy sums a row below, so the last digit of the CI: keep it.
        sums = outcome.indicators @ counts.T
        m = len(outcome.ids)
        wins, rated = sums[:m].T, sums[m:].T
        with np.errstate(invalid="ignore", divide="ignore"):
            per_annotator = wins / rated
        seen = rated > 0
        value = np.where(seen, per_annotator, 0.0).sum(axis=1) / seen.sum(axis=1)
        return Draws.of(value)

    return evaluate


def alt_test_report(docs: Sequence[Doc], preds: Sequence[Any], **args: Any) -> dict[str, Any]:
    """The test's settings, verdict and one row per tested annotator (results ``reports.alt_test``)."""
    return ratings_report(Ratings.of(docs, **args), preds)


def ratings_report(ratings: Ratings, preds: Sequence[Any]) -> dict[str, Any]:
    """``alt_test_report`` from the ratings table the alt-test metrics prepared (the test they ran
    on the same predictions is not run again)."""
    o = run_alt_test(ratings, preds)
    return {
        "epsilon": ratings.epsilon,
        "alpha": ratings.alpha,
        "min_docs": ratings.min_docs,
        "n_scored": o.n_scored,
        "n_annotators": len(o.ids),
        "n_skipped": o.skipped,
        "winning_rate": o.winning_rate,
        "advantage_probability": o.advantage_probability,
        "passed": None if o.undefined else bool(o.winning_rate is not None and o.winning_rate >= PASS_RATE),
        "note": o.undefined,
        "annotators": [
            {
                "id": o.ids[i],
                "n": int(o.n_docs[i]),
                "rho_f": float(o.rho_f[i]),
                "rho_h": float(o.rho_h[i]),
                "p": float(o.p[i]),
                "p_adjusted": float(o.p_adjusted[i]),
                "won": bool(o.won[i]),
            }
            for i in range(len(o.ids))
        ],
    }


for _metric in (
    Metric(
        name="alt_test_winning_rate",
        prepare=Ratings.of,
        bind=_bind_winning_rate,
        description="Alt-test winning rate: share of annotators the judge beats (passes at >= 0.5)",
        no_ci=NO_CI,
        params=AltTestArgs,
    ),
    Metric(
        name="advantage_probability",
        prepare=Ratings.of,
        bind=_bind_advantage,
        description="Alt-test advantage probability: how often the judge aligns with the other annotators at "
        "least as well as the left-out one",
        params=AltTestArgs,
    ),
):
    register_metric(_metric)
