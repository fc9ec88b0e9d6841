"""Human ratings with annotator ids (IBM debate speeches) and the table of annotator pairs.

Each speech has ratings 1-5 by named annotators (``doc.meta["ratings"]`` / ``doc.meta["annotators"]``).
The leave-one-out kappa compares annotators in pairs on the speeches both rated; ``PairTable``
holds those shared speeches for every pair that shares at least ``min_shared`` of them, as
compressed sparse rows of 6 bytes each (a speech position and the two ratings), built once per
scoring.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.sparse import csr_matrix

from debench.core.errors import UserError
from debench.data.base import Doc
from debench.metrics.base import shared
from debench.metrics.params import DEFAULT_MIN_SHARED


def human_ratings(doc: Doc) -> tuple[list[int], list[Any]]:
    """A speech's human ratings (integers 1-5) and their annotators' ids, checked."""
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


def _checked_ratings(docs: Sequence[Doc]) -> list[tuple[list[int], list[Any]]]:
    return [human_ratings(d) for d in docs]


def rated(docs: Sequence[Doc]) -> list[tuple[list[int], list[Any]]]:
    """Every document's ``human_ratings``, read once per scoring for all the metrics that ask
    (``debench.metrics.base.shared``)."""
    return shared(_checked_ratings, docs)


def _index_dtype(n: int) -> type[np.signedinteger[Any]]:
    return np.int32 if n < 2**31 else np.int64


@dataclass(frozen=True)
class PairTable:
    """Annotator pairs who rated at least ``min_shared`` of the same speeches.

    Pair ``p`` (annotator ids ``pairs[p]``, first id < second) shares the speeches at positions
    ``doc[start[p]:start[p + 1]]`` (ascending); ``score_a`` / ``score_b`` are the two
    annotators' ratings of them (1-5).
    """

    n_docs: int
    pairs: list[tuple[Any, Any]]
    start: np.ndarray
    doc: np.ndarray
    score_a: np.ndarray
    score_b: np.ndarray

    @property
    def n_pairs(self) -> int:
        return len(self.pairs)

    def rows(self, first: int, last: int) -> slice:
        """The table rows of pairs ``first`` .. ``last - 1``."""
        return slice(int(self.start[first]), int(self.start[last]))

    def matrix(self, data: np.ndarray, first: int, last: int, dtype: type[np.floating[Any]]) -> csr_matrix:
        """(pairs first..last-1, n) sparse matrix with ``data`` (one value per row of those pairs)
        at each pair's shared speeches: times (n, b) resample counts, the per-pair weighted sums."""
        rows = self.rows(first, last)
        start = self.start[first : last + 1] - self.start[first]
        return csr_matrix((data.astype(dtype, copy=False), self.doc[rows], start), shape=(last - first, self.n_docs))


def _ratings_by_annotator(docs: Sequence[Doc]) -> tuple[list[Any], list[np.ndarray], list[np.ndarray]]:
    """Annotator ids (sorted) and, per annotator, the positions of the speeches they rated
    (ascending) with their ratings."""
    who: list[Any] = []
    where = array("i")
    value = array("b")
    for j, (ratings, annotators) in enumerate(rated(docs)):
        who.extend(annotators)
        value.extend(ratings)
        where.extend([j] * len(ratings))
    ids = sorted(set(who))
    index = {a: i for i, a in enumerate(ids)}
    annotator = np.fromiter((index[a] for a in who), dtype=np.int64, count=len(who))
    order = np.argsort(annotator, kind="stable")  # stable: each annotator's speeches stay ascending
    bounds = np.r_[0, np.cumsum(np.bincount(annotator, minlength=len(ids)))]
    docs_by, scores_by = np.frombuffer(where, dtype=np.int32)[order], np.frombuffer(value, dtype=np.int8)[order]
    return (
        ids,
        [docs_by[bounds[i] : bounds[i + 1]] for i in range(len(ids))],
        [scores_by[bounds[i] : bounds[i + 1]] for i in range(len(ids))],
    )


def annotator_pairs(docs: Sequence[Doc], min_shared: int = DEFAULT_MIN_SHARED) -> PairTable:
    """The table of annotator pairs sharing at least ``min_shared`` speeches, in id order."""
    n = len(docs)
    ids, rated, scores = _ratings_by_annotator(docs)
    # How many speeches each pair of annotators shares: incidence times its transpose.
    lengths = np.array([len(r) for r in rated], dtype=np.int64)
    incidence = csr_matrix(
        (
            np.ones(int(lengths.sum())),
            np.concatenate(rated) if rated else np.empty(0, np.int32),
            np.r_[0, np.cumsum(lengths)],
        ),
        shape=(len(ids), n),
    )
    shared = (incidence @ incidence.T).tocoo()
    keep = (shared.row < shared.col) & (shared.data >= min_shared)
    order = np.lexsort((shared.col[keep], shared.row[keep]))
    first, second = shared.row[keep][order], shared.col[keep][order]
    docs_out: list[np.ndarray] = []
    a_out: list[np.ndarray] = []
    b_out: list[np.ndarray] = []
    position = np.full(n, -1, dtype=np.int64)
    bounds = np.searchsorted(first, np.arange(len(ids) + 1))
    for i in np.unique(first):
        position[rated[i]] = np.arange(len(rated[i]))
        for j in second[bounds[i] : bounds[i + 1]]:
            at = position[rated[j]]
            both = at >= 0
            docs_out.append(rated[j][both])
            a_out.append(scores[i][at[both]])
            b_out.append(scores[j][both])
        position[rated[i]] = -1
    sizes = np.array([len(x) for x in docs_out], dtype=np.int64)
    dtype = _index_dtype(int(sizes.sum()))
    return PairTable(
        n_docs=n,
        pairs=[(ids[i], ids[j]) for i, j in zip(first, second, strict=True)],
        start=np.r_[0, np.cumsum(sizes)].astype(dtype),
        doc=np.concatenate(docs_out).astype(dtype, copy=False) if docs_out else np.empty(0, dtype),
        score_a=np.concatenate(a_out) if a_out else np.empty(0, np.int8),
        score_b=np.concatenate(b_out) if b_out else np.empty(0, np.int8),
    )
