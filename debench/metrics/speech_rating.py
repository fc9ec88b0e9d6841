"""Agreement metrics for speech rating (IBM debate speeches, Debatable Intelligence §4).

The judge gives each speech one score (an int 1-5; under the paper's convention a parse failure
may arrive as -1, which is then a category of its own). Each speech also has 15 human ratings
with annotator ids (``doc.meta["ratings"]`` / ``doc.meta["annotators"]``) and their mean
(``doc.target``).

Metrics registered here:

``kendall_tau_c``
    Kendall's tau-c between the judge score and the mean human score over the speeches.
``kappa_loo``
    Leave-one-out weighted Cohen's kappa. For every pair of annotators (a, b) who rated at
    least ``min_shared`` (default 50) of the same speeches, a is replaced by the judge and the
    kappa between the judge and b on their shared speeches is computed, then b is replaced
    (judge vs a); the result is the mean over all pairs and both positions.
``kappa_human``
    The same average over the same pairs among the humans themselves: the reference the
    judge is compared with. It ignores the predictions but is resampled, so it gets a CI.
``krippendorff_alpha`` / ``krippendorff_alpha_human``
    Ordinal Krippendorff's alpha over the reliability matrix "82 annotators x speeches"
    (missing where an annotator did not rate a speech), with the judge added as one more
    coder for ``krippendorff_alpha``; ``krippendorff_alpha_human`` is the humans alone. The
    judge is one coder among 16 per speech, so its effect on alpha is diluted: on the real
    data the humans alone give 0.251 and a uniformly random judge lowers that only to about
    0.21. Read it beside ``krippendorff_alpha_human``, not on its own.
``source_pearson``
    Pearson r between the judge's mean score per speech source and the humans' mean per
    source (the mean of the per-speech human means), over the sources present (>= 3).

Conventions:

* Pairs of annotators are fixed in ``prepare`` from all documents it is given; the bootstrap
  then weights each shared speech by how often it occurs in the resample (``np.bincount(idx)``),
  which equals recomputing on the resampled speeches and keeps one call at well under 5 ms.
* Kappa categories are 1..5 plus any other value the judge gave; weights are distances between
  positions in that sorted category list (scikit-learn's convention), so for a judge answering
  only 1..5 they are the score differences. A kappa whose expected disagreement is 0 is
  undefined and that pair/position is skipped; the metric is ``None`` when none is defined.
* Predictions that are not numbers (``None``, text) are treated as missing: the speech is left
  out for the judge (it still counts for the human-only references).

Default kappa weighting. Slonim et al. (2021) report kappa = 0.24 between annotators for this
question (paper appendix C). On the 631 speeches, with the 496 annotator pairs sharing >= 50
speeches, the human-human average (``kappa_human``) is 0.191 with linear weights and 0.271 with
quadratic weights; quadratic is the closer, and is the default (``weights: linear`` in a task's
metric args selects the other).
"""

from __future__ import annotations

import warnings
from array import array
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
from scipy import stats

from debench.data.base import Doc
from debench.errors import UserError
from debench.metrics.base import Metric, finite_or_none, register_metric

LIKERT = np.arange(1, 6, dtype=float)
DEFAULT_WEIGHTS = "quadratic"
DEFAULT_MIN_SHARED = 50
WEIGHTINGS = ("linear", "quadratic")


# ---------------------------------------------------------------- shared helpers


def _as_float(preds: Sequence[Any] | np.ndarray) -> np.ndarray:
    """Judge scores as floats, NaN where a prediction is not a number."""
    out = np.full(len(preds), np.nan)
    for i, p in enumerate(preds):
        if isinstance(p, (bool, np.bool_)) or p is None:
            continue
        try:
            out[i] = float(p)
        except (TypeError, ValueError):
            continue
    return out


def _counts(idx: np.ndarray, n: int) -> np.ndarray:
    return np.bincount(np.asarray(idx, dtype=np.intp), minlength=n).astype(float)


def _human_ratings(doc: Doc) -> tuple[list[int], list[int]]:
    ratings = doc.meta.get("ratings")
    annotators = doc.meta.get("annotators")
    if ratings is None or annotators is None:
        raise UserError(f"document {doc.doc_id}: speech-rating metrics need meta 'ratings' and 'annotators'")
    if len(ratings) != len(annotators):
        raise UserError(f"document {doc.doc_id}: {len(ratings)} ratings but {len(annotators)} annotators")
    if len(set(annotators)) != len(annotators):
        raise UserError(f"document {doc.doc_id}: an annotator rated it twice")
    bad = [r for r in ratings if int(r) != r or not 1 <= r <= 5]
    if bad:
        raise UserError(f"document {doc.doc_id}: human ratings must be integers 1-5, got {bad[0]!r}")
    return [int(r) for r in ratings], list(annotators)


def _weight_matrix(k: int, weights: str) -> np.ndarray:
    pos = np.arange(k, dtype=float)
    diff = np.abs(pos[:, None] - pos[None, :])
    return diff if weights == "linear" else diff**2


def _check_weights(weights: str) -> str:
    if weights not in WEIGHTINGS:
        raise UserError(f"kappa weights must be one of {', '.join(WEIGHTINGS)}, got {weights!r}")
    return weights


def _batched_kappa(conf: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted kappa of each confusion matrix in ``conf`` (shape (m, K, K)); NaN if undefined.

    kappa = 1 - sum(W * O) / sum(W * E), with E the outer product of the marginals over N.
    """
    total = conf.sum(axis=(1, 2))
    rows = conf.sum(axis=2)
    cols = conf.sum(axis=1)
    observed = np.einsum("mij,ij->m", conf, w)
    expected = np.einsum("mi,ij,mj->m", rows, w, cols)  # = N * sum(W * E)
    out = np.full(len(conf), np.nan)
    ok = (total > 0) & (expected > 0)
    out[ok] = 1.0 - total[ok] * observed[ok] / expected[ok]
    return out


# ---------------------------------------------------------------- annotator pairs


@dataclass(frozen=True)
class PairTable:
    """Flat arrays over (pair, shared speech): one row per speech a pair shares."""

    n_docs: int
    pairs: list[tuple[int, int]]  # annotator ids (a < b)
    pair: np.ndarray  # pair position in ``pairs``
    doc: np.ndarray  # document position
    score_a: np.ndarray  # a's rating (int 1-5)
    score_b: np.ndarray  # b's rating


def annotator_pairs(docs: Sequence[Doc], min_shared: int = DEFAULT_MIN_SHARED) -> PairTable:
    """The annotator pairs who rated at least ``min_shared`` of the same speeches."""
    per_doc: list[dict[Any, int]] = []
    shared: Counter[tuple[Any, Any]] = Counter()
    for d in docs:
        ratings, annotators = _human_ratings(d)
        by_annot = dict(zip(annotators, ratings, strict=True))
        per_doc.append(by_annot)
        shared.update(combinations(sorted(by_annot), 2))
    pairs = sorted(p for p, c in shared.items() if c >= min_shared)
    where = {p: i for i, p in enumerate(pairs)}
    # A flat typed buffer, not a list of tuples: ~60 rows per speech, so a list would cost
    # ~150 bytes a row (>100 MB on 10,000 speeches) where this costs 32.
    rows = array("q")
    for j, by_annot in enumerate(per_doc):
        for a, b in combinations(sorted(by_annot), 2):
            i = where.get((a, b))
            if i is not None:
                rows.extend((i, j, by_annot[a], by_annot[b]))
    arr = np.frombuffer(rows, dtype=np.int64).astype(np.intp).reshape(-1, 4)
    return PairTable(
        n_docs=len(docs),
        pairs=pairs,
        pair=arr[:, 0].copy(),
        doc=arr[:, 1].copy(),
        score_a=arr[:, 2].copy(),
        score_b=arr[:, 3].copy(),
    )


# ---------------------------------------------------------------- kappa_loo / kappa_human


@dataclass(frozen=True)
class _LooState:
    n_docs: int
    n_entries: int  # 2 * n_pairs: entry 2p = judge replaces a (vs b), 2p + 1 = judge replaces b (vs a)
    entry: np.ndarray
    doc: np.ndarray
    human0: np.ndarray  # the remaining human's rating - 1 (index into 1..5)
    weights: str


def _prepare_kappa_loo(
    docs: Sequence[Doc], *, min_shared: int = DEFAULT_MIN_SHARED, weights: str = DEFAULT_WEIGHTS
) -> _LooState:
    _check_weights(weights)
    t = annotator_pairs(docs, min_shared)
    return _LooState(
        n_docs=len(docs),
        n_entries=2 * len(t.pairs),
        entry=np.concatenate([2 * t.pair, 2 * t.pair + 1]),
        doc=np.concatenate([t.doc, t.doc]),
        human0=np.concatenate([t.score_b, t.score_a]) - 1,
        weights=weights,
    )


def _compute_kappa_loo(state: _LooState, preds: np.ndarray, idx: np.ndarray) -> float | None:
    if state.n_entries == 0:
        return None
    judge = _as_float(preds)
    seen = np.isfinite(judge)
    cats = np.union1d(LIKERT, judge[seen])
    k = len(cats)
    judge_cat = np.zeros(state.n_docs, dtype=np.intp)
    judge_cat[seen] = np.searchsorted(cats, judge[seen])
    likert_cat = np.searchsorted(cats, LIKERT)
    w = _counts(idx, state.n_docs)
    w[~seen] = 0.0
    flat = (state.entry * k + judge_cat[state.doc]) * k + likert_cat[state.human0]
    conf = np.bincount(flat, weights=w[state.doc], minlength=state.n_entries * k * k)
    kappas = _batched_kappa(conf.reshape(state.n_entries, k, k), _weight_matrix(k, state.weights))
    kappas = kappas[np.isfinite(kappas)]
    return finite_or_none(kappas.mean()) if len(kappas) else None


@dataclass(frozen=True)
class _HumanKappaState:
    table: PairTable
    weights: str


def _prepare_kappa_human(
    docs: Sequence[Doc], *, min_shared: int = DEFAULT_MIN_SHARED, weights: str = DEFAULT_WEIGHTS
) -> _HumanKappaState:
    return _HumanKappaState(table=annotator_pairs(docs, min_shared), weights=_check_weights(weights))


def _compute_kappa_human(state: _HumanKappaState, preds: np.ndarray, idx: np.ndarray) -> float | None:
    t = state.table
    m = len(t.pairs)
    if m == 0:
        return None
    w = _counts(idx, t.n_docs)
    flat = (t.pair * 5 + (t.score_a - 1)) * 5 + (t.score_b - 1)
    conf = np.bincount(flat, weights=w[t.doc], minlength=m * 25).reshape(m, 5, 5)
    kappas = _batched_kappa(conf, _weight_matrix(5, state.weights))
    kappas = kappas[np.isfinite(kappas)]
    return finite_or_none(kappas.mean()) if len(kappas) else None


# ---------------------------------------------------------------- Kendall tau-c


def _prepare_tau(docs: Sequence[Doc]) -> np.ndarray:
    return np.array([float(d.target) for d in docs], dtype=float)


def _compute_tau(targets: np.ndarray, preds: np.ndarray, idx: np.ndarray) -> float | None:
    judge = _as_float(preds)[idx]
    human = targets[idx]
    ok = np.isfinite(judge) & np.isfinite(human)
    if ok.sum() < 2:
        return None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = stats.kendalltau(judge[ok], human[ok], variant="c")
    return finite_or_none(res.statistic)


# ---------------------------------------------------------------- Krippendorff's alpha


def _prepare_alpha(docs: Sequence[Doc]) -> np.ndarray:
    """Per speech, how many humans gave each value 1..5 (Krippendorff's "value counts")."""
    counts = np.zeros((len(docs), 5))
    for j, d in enumerate(docs):
        ratings, _ = _human_ratings(d)
        for r in ratings:
            counts[j, r - 1] += 1
    return counts


def _alpha(value_counts: np.ndarray, domain: np.ndarray) -> float | None:
    import krippendorff

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            value = krippendorff.alpha(
                value_counts=value_counts, value_domain=domain, level_of_measurement="ordinal"
            )
        except ValueError:  # no speech with two coders, or a one-value domain
            return None
    return finite_or_none(value)


def _compute_alpha(human_counts: np.ndarray, preds: np.ndarray, idx: np.ndarray) -> float | None:
    judge = _as_float(preds)
    seen = np.isfinite(judge)
    domain = np.union1d(LIKERT, judge[seen])
    counts = np.zeros((len(judge), len(domain)))
    counts[:, np.searchsorted(domain, LIKERT)] = human_counts
    rows = np.flatnonzero(seen)
    counts[rows, np.searchsorted(domain, judge[seen])] += 1
    return _alpha(counts[np.asarray(idx, dtype=np.intp)], domain)


def _compute_alpha_human(human_counts: np.ndarray, preds: np.ndarray, idx: np.ndarray) -> float | None:
    return _alpha(human_counts[np.asarray(idx, dtype=np.intp)], LIKERT)


# ---------------------------------------------------------------- per-source Pearson


@dataclass(frozen=True)
class _SourceState:
    source: np.ndarray  # source position per document
    names: list[str]
    human: np.ndarray  # per-speech human mean


def _prepare_source(docs: Sequence[Doc]) -> _SourceState:
    names = sorted({str(d.meta.get("source")) for d in docs})
    pos = {s: i for i, s in enumerate(names)}
    return _SourceState(
        source=np.array([pos[str(d.meta.get("source"))] for d in docs], dtype=np.intp),
        names=names,
        human=np.array([float(d.target) for d in docs], dtype=float),
    )


def _compute_source_pearson(state: _SourceState, preds: np.ndarray, idx: np.ndarray) -> float | None:
    judge = _as_float(preds)
    w = _counts(idx, len(judge))
    w[~np.isfinite(judge)] = 0.0
    judge = np.where(np.isfinite(judge), judge, 0.0)
    m = len(state.names)
    n = np.bincount(state.source, weights=w, minlength=m)
    present = n > 0
    if present.sum() < 3:
        return None
    j_mean = np.bincount(state.source, weights=w * judge, minlength=m)[present] / n[present]
    h_mean = np.bincount(state.source, weights=w * state.human, minlength=m)[present] / n[present]
    return _pearson(j_mean, h_mean)


def _pearson(x: np.ndarray, y: np.ndarray) -> float | None:
    x = x - x.mean()
    y = y - y.mean()
    denom = np.sqrt((x * x).sum() * (y * y).sum())
    # A constant side (up to rounding) makes r undefined.
    if denom <= 1e-12 * max(1.0, np.abs(x).max() * np.abs(y).max()) * len(x):
        return None
    return finite_or_none(np.clip((x * y).sum() / denom, -1.0, 1.0))


# ---------------------------------------------------------------- registration

register_metric(
    Metric(
        name="kendall_tau_c",
        prepare=_prepare_tau,
        compute=_compute_tau,
        description="Kendall's tau-c between the judge score and the mean human score",
    )
)
register_metric(
    Metric(
        name="kappa_loo",
        prepare=_prepare_kappa_loo,
        compute=_compute_kappa_loo,
        description="Leave-one-out weighted Cohen's kappa: the judge replaces either annotator of each pair "
        "sharing >= min_shared speeches; mean over pairs and positions",
        defaults={"min_shared": DEFAULT_MIN_SHARED, "weights": DEFAULT_WEIGHTS},
    )
)
register_metric(
    Metric(
        name="kappa_human",
        prepare=_prepare_kappa_human,
        compute=_compute_kappa_human,
        description="Mean weighted Cohen's kappa between the humans of the same annotator pairs (reference)",
        defaults={"min_shared": DEFAULT_MIN_SHARED, "weights": DEFAULT_WEIGHTS},
    )
)
register_metric(
    Metric(
        name="krippendorff_alpha",
        prepare=_prepare_alpha,
        compute=_compute_alpha,
        description="Ordinal Krippendorff's alpha of all human annotators plus the judge as one more coder",
    )
)
register_metric(
    Metric(
        name="krippendorff_alpha_human",
        prepare=_prepare_alpha,
        compute=_compute_alpha_human,
        description="Ordinal Krippendorff's alpha of the human annotators alone (reference)",
    )
)
register_metric(
    Metric(
        name="source_pearson",
        prepare=_prepare_source,
        compute=_compute_source_pearson,
        description="Pearson r between judge and human mean score per speech source",
    )
)


# ---------------------------------------------------------------- report helpers


def _value_key(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(v)


def mean_score_by_source(preds: Sequence[Any], docs: Sequence[Doc]) -> dict[str, float]:
    """The judge's mean score per speech source (non-numeric predictions left out)."""
    judge = _as_float(preds)
    if len(judge) != len(docs):
        raise ValueError(f"{len(judge)} predictions for {len(docs)} documents")
    by_source: dict[str, list[float]] = defaultdict(list)
    for v, d in zip(judge, docs, strict=True):
        if np.isfinite(v):
            by_source[str(d.meta.get("source"))].append(float(v))
    return {s: float(np.mean(v)) for s, v in sorted(by_source.items())}


def score_distribution(preds: Sequence[Any]) -> dict[str, int]:
    """How often the judge gave each score, in numeric order (non-numbers under ``str(value)``)."""
    judge = _as_float(preds)
    numeric = Counter(float(v) for v in judge if np.isfinite(v))
    other = Counter(str(p) for p, v in zip(preds, judge, strict=True) if not np.isfinite(v))
    out = {_value_key(v): numeric[v] for v in sorted(numeric)}
    out.update(sorted(other.items()))
    return out


def human_score_distribution(docs: Sequence[Doc]) -> dict[str, int]:
    """How often the humans gave each rating 1..5, over all individual ratings."""
    counts = Counter(r for d in docs for r in _human_ratings(d)[0])
    return {str(v): counts[v] for v in range(1, 6)}
