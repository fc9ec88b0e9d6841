"""Agreement metrics for speech rating (IBM debate speeches, Debatable Intelligence §4), besides
the kappas (``debench.metrics.kappa``).

The judge gives each speech one score (an int 1-5; under the paper's convention a parse failure
may arrive as -1, which is then a category of its own). Each speech also has 15 human ratings
with annotator ids and their mean (``doc.target``).

``kendall_tau_c``
    Kendall's tau-c between the judge score and the mean human score over the speeches.
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

Every one is computed from weighted sums over speeches (a contingency table of judge score x
human mean for tau-c, coincidence counts for alpha, per-source sums for the Pearson r), so a
batch of resamples is a matrix product or a grouped sum. Predictions that are not numbers are
missing: the speech is left out for the judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.sparse import coo_matrix

from debench.data.base import Doc
from debench.metrics.alpha import alpha, unit_coincidences
from debench.metrics.annotators import rated
from debench.metrics.base import Draws, Evaluate, Metric, register_metric, safe_divide
from debench.metrics.likert import LIKERT, categories, judge_scores

BLOCK_ELEMENTS = 1 << 20
"""Per-resample tables (tau-c, alpha) hold at most this many values at once."""
DENSE_ELEMENTS = 1 << 22
"""Alpha's per-speech coincidences are a dense matrix up to this size, else sparse."""


def _blocks(counts: np.ndarray, per_row: int) -> list[np.ndarray]:
    size = max(1, BLOCK_ELEMENTS // max(per_row, 1))
    return [counts[i : i + size] for i in range(0, len(counts), size)]


class _Groups:
    """Documents in groups (the cells of a contingency table): weighted sums per group, for many
    resamples at once."""

    def __init__(self, group: np.ndarray, n_groups: int):
        group = np.asarray(group, dtype=np.intp)
        self.n_groups = n_groups
        self._order = np.argsort(group, kind="stable")
        ordered = group[self._order]
        self._starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]]) if len(group) else np.empty(0, np.intp)
        self._present = ordered[self._starts]

    def sums(self, weights: np.ndarray) -> np.ndarray:
        """(b, n) weights per document -> (b, n_groups) sums per group."""
        out = np.zeros((len(weights), self.n_groups))
        if len(self._starts):
            out[:, self._present] = np.add.reduceat(weights[:, self._order], self._starts, axis=1)
        return out


# ---------------------------------------------------------------- Kendall tau-c


def _prepare_tau(docs: Sequence[Doc]) -> np.ndarray:
    return np.array([float(d.target) for d in docs], dtype=float)


def _suffix(a: np.ndarray, axis: int) -> np.ndarray:
    """Sum of the elements after each position along ``axis`` (exclusive)."""
    after: np.ndarray = np.flip(np.cumsum(np.flip(a, axis), axis), axis) - a
    return after


def _tau_c(table: np.ndarray) -> Draws:
    """Kendall's tau-c (scipy's formula) from (b, K, L) tables of judge score x human mean counts."""
    size = table.sum(axis=(1, 2))
    n_x = (table.sum(axis=2) > 0).sum(axis=1)
    n_y = (table.sum(axis=1) > 0).sum(axis=1)
    below = _suffix(table, 1)  # judge score higher
    later = _suffix(below, 2)  # ... and human mean higher: concordant
    earlier = np.cumsum(below, axis=2) - below  # ... and human mean lower: discordant
    con_minus_dis = (table * (later - earlier)).sum(axis=(1, 2))
    m = np.minimum(n_x, n_y)
    tau = np.clip(safe_divide(2 * con_minus_dis, safe_divide(size**2 * (m - 1), m)), -1.0, 1.0)
    return (
        Draws.of(tau)
        .undefined(size < 2, "fewer than two scored speeches")
        .undefined(n_x < 2, "the judge gave the same score to every speech")
        .undefined(n_y < 2, "the human mean score is the same for every speech")
    )


def _bind_tau(human: np.ndarray, preds: np.ndarray) -> Evaluate:
    judge = judge_scores(preds)
    ok = np.isfinite(judge) & np.isfinite(human)
    xs, xi = np.unique(judge[ok], return_inverse=True)
    ys, yi = np.unique(human[ok], return_inverse=True)
    k, m = len(xs), len(ys)
    cells = _Groups(xi * m + yi, k * m)

    def evaluate(counts: np.ndarray) -> Draws:
        parts = [_tau_c(cells.sums(c[:, ok]).reshape(len(c), k, m)) for c in _blocks(counts, k * m)]
        return Draws.concat(parts)

    return evaluate


# ---------------------------------------------------------------- Krippendorff's alpha


def _prepare_alpha(docs: Sequence[Doc]) -> np.ndarray:
    """Per speech, how many humans gave each value 1..5 (Krippendorff's "value counts")."""
    at = [5 * j + r - 1 for j, (ratings, _) in enumerate(rated(docs)) for r in ratings]
    return np.bincount(np.array(at, dtype=np.intp), minlength=5 * len(docs)).reshape(len(docs), 5).astype(float)


def _alpha_evaluator(position: np.ndarray, count: np.ndarray, v: int) -> Evaluate:
    """Alpha over speeches with these value counts, for weighted resamples of speeches.

    ``position`` / ``count`` (n, k): the values (positions in the domain of size ``v``) each
    speech received and how often; no value twice in a row of nonzero counts.
    """
    n, k = position.shape
    pairable = (count.sum(axis=1) >= 2).astype(float)
    # Each speech's coincidences (``alpha.unit_coincidences``) placed in the V x V domain, summed
    # over the (weighted) speeches of a resample: a matrix product.
    pair = unit_coincidences(count)
    cell = position[:, :, None] * v + position[:, None, :]
    per_doc = coo_matrix((pair.ravel(), (np.repeat(np.arange(n), k * k), cell.ravel())), shape=(n, v * v)).tocsr()
    dense = n * v * v <= DENSE_ELEMENTS
    per_doc_dense = per_doc.toarray() if dense else None

    def coincidences(c: np.ndarray) -> np.ndarray:
        return c @ per_doc_dense if per_doc_dense is not None else np.asarray((per_doc.T @ c.T).T)

    def evaluate(counts: np.ndarray) -> Draws:
        parts = []
        for c in _blocks(counts, v * v):
            value, disagreement = alpha(coincidences(c).reshape(len(c), v, v), "ordinal")
            parts.append(
                Draws.of(value)
                .undefined(c @ pairable == 0, "no speech was rated by two or more coders")
                .undefined(disagreement <= 1e-12, "every rating is the same value")
            )
        return Draws.concat(parts)

    return evaluate


def _bind_alpha(human_counts: np.ndarray, preds: np.ndarray) -> Evaluate:
    """The humans' counts of 1..5 plus the judge as one more coder, in the domain 1..5 and any
    other value the judge gave."""
    judge = judge_scores(preds)
    seen = np.isfinite(judge)
    domain = categories(judge)
    likert = np.searchsorted(domain, LIKERT)
    at = np.searchsorted(domain, np.where(seen, judge, LIKERT[0]))
    on_scale = np.isin(judge, LIKERT)
    count = np.concatenate([human_counts, (seen & ~on_scale)[:, None]], axis=1).astype(float)
    count[np.flatnonzero(seen & on_scale), np.searchsorted(LIKERT, judge[seen & on_scale])] += 1
    position = np.concatenate([np.broadcast_to(likert, human_counts.shape), np.where(on_scale, 0, at)[:, None]], axis=1)
    return _alpha_evaluator(position, count, len(domain))


def _bind_alpha_human(human_counts: np.ndarray, preds: np.ndarray) -> Evaluate:
    return _alpha_evaluator(np.broadcast_to(np.arange(5), human_counts.shape), human_counts, 5)


# ---------------------------------------------------------------- per-source means and Pearson r


@dataclass(frozen=True)
class Sources:
    """Speech sources: their names (sorted) and each speech's source position."""

    names: list[str]
    of_doc: np.ndarray
    human: np.ndarray  # per-speech human mean

    @classmethod
    def of(cls, docs: Sequence[Doc]) -> Sources:
        names = sorted({str(d.meta.get("source")) for d in docs})
        pos = {s: i for i, s in enumerate(names)}
        return cls(
            names=names,
            of_doc=np.array([pos[str(d.meta.get("source"))] for d in docs], dtype=np.intp),
            human=np.array([float(d.target) for d in docs], dtype=float),
        )

    def sums(self, counts: np.ndarray, judge: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Per resample and source, over the speeches the judge scored (``judge`` finite): the
        number of speeches, the sum of judge scores and the sum of human means, each (b, sources)."""
        seen = np.isfinite(judge)
        k = len(self.names)
        onehot = np.zeros((int(seen.sum()), k))
        onehot[np.arange(len(onehot)), self.of_doc[seen]] = 1.0
        design = np.concatenate([onehot, onehot * judge[seen, None], onehot * self.human[seen, None]], axis=1)
        out = counts[:, seen] @ design
        return out[:, :k], out[:, k : 2 * k], out[:, 2 * k :]


def _pearson_rows(x: np.ndarray, y: np.ndarray, present: np.ndarray) -> Draws:
    """Pearson r per row over the columns ``present`` (at least three needed)."""
    k = present.sum(axis=1)
    xm = safe_divide(np.where(present, x, 0.0).sum(axis=1), k)[:, None]
    ym = safe_divide(np.where(present, y, 0.0).sum(axis=1), k)[:, None]
    dx = np.where(present, x - xm, 0.0)
    dy = np.where(present, y - ym, 0.0)
    sxx, syy = (dx * dx).sum(axis=1), (dy * dy).sum(axis=1)
    denom = np.sqrt(sxx * syy)
    # A constant side (up to rounding) makes r undefined.
    flat = denom <= 1e-12 * np.maximum(1.0, np.abs(dx).max(axis=1) * np.abs(dy).max(axis=1)) * k
    r = np.clip(safe_divide((dx * dy).sum(axis=1), denom), -1.0, 1.0)
    return (
        Draws.of(r)
        .undefined(k < 3, "fewer than three speech sources")
        .undefined(flat & (sxx == 0), "the judge's mean score is the same for every source")
        .undefined(flat, "the per-source mean scores hardly vary")
    )


def _bind_source_pearson(sources: Sources, preds: np.ndarray) -> Evaluate:
    judge = judge_scores(preds)

    def evaluate(counts: np.ndarray) -> Draws:
        n, judge_sum, human_sum = sources.sums(counts, judge)
        present = n > 0
        return _pearson_rows(safe_divide(judge_sum, n), safe_divide(human_sum, n), present)

    return evaluate


# ---------------------------------------------------------------- registration

for _metric in (
    Metric(
        name="kendall_tau_c",
        prepare=_prepare_tau,
        bind=_bind_tau,
        description="Kendall's tau-c between the judge score and the mean human score",
    ),
    Metric(
        name="krippendorff_alpha",
        prepare=_prepare_alpha,
        bind=_bind_alpha,
        description="Ordinal Krippendorff's alpha of all human annotators plus the judge as one more coder",
    ),
    Metric(
        name="krippendorff_alpha_human",
        prepare=_prepare_alpha,
        bind=_bind_alpha_human,
        description="Ordinal Krippendorff's alpha of the human annotators alone (reference)",
    ),
    Metric(
        name="source_pearson",
        prepare=Sources.of,
        bind=_bind_source_pearson,
        description="Pearson r between judge and human mean score per speech source",
    ),
):
    register_metric(_metric)
