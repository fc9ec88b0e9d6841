"""Games aggregated once: per topic and per *cell* (first side, second side, covariate values),
the sums a pairwise fit needs (points and games, or wins, losses and ties).

A Bradley–Terry likelihood depends on the games only through these sums, so a fit costs the same
for a thousand games as for a million, and a topic resample is a reweighting of topics: its sums
are ``counts @ matrix`` (``counts``: how often each topic was drawn). This is what FastChat's and
Arena-Hard's rating code do with battles.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from debench.arena.judgment_table import group_ids

TRANSPOSE_ELEMENTS = 1 << 18


@dataclass(frozen=True)
class PairCells:
    """The cells of a fit, sorted by pair: first side ``i``, second side ``j`` (model codes
    0..n_models-1) and the covariates ``x`` (first side minus second, one column per covariate)."""

    n_models: int
    i: np.ndarray
    j: np.ndarray
    x: np.ndarray
    pair_start: np.ndarray = field(init=False, repr=False)
    """Index of each (i, j) pair's first cell (cells of a pair are consecutive)."""
    membership: sp.csr_array = field(init=False, repr=False)
    """(models, pairs): 1 where the model is one of the pair."""
    pair_laplacian: sp.csr_array = field(init=False, repr=False)
    """(models^2, pairs): this @ per-pair curvature sums = the strengths block of the Hessian."""
    scatter: sp.csr_array = field(init=False, repr=False)
    """(models, pairs): this @ per-pair sums = +sum at i, -sum at j."""
    _chunks: dict[int, list[tuple[int, int, np.ndarray, np.ndarray]]] = field(
        init=False, repr=False, default_factory=dict
    )

    def __post_init__(self) -> None:
        c, k = len(self.i), self.n_models
        new = np.ones(c, dtype=bool)
        new[1:] = (self.i[1:] != self.i[:-1]) | (self.j[1:] != self.j[:-1])
        start = np.flatnonzero(new)
        pi, pj = self.i[start], self.j[start]
        n = len(start)
        rows = np.arange(n)
        inc = sp.csr_array((np.r_[np.ones(n), -np.ones(n)], (np.r_[rows, rows], np.r_[pi, pj])), shape=(n, k))
        cols = np.r_[pi * k + pi, pj * k + pj, pi * k + pj, pj * k + pi]
        lap = sp.csr_array((np.r_[np.ones(2 * n), -np.ones(2 * n)], (cols, np.tile(rows, 4))), shape=(k * k, n))
        object.__setattr__(self, "pair_start", start)
        object.__setattr__(self, "scatter", sp.csr_array(inc.T))
        object.__setattr__(self, "membership", sp.csr_array(abs(inc.T)))
        object.__setattr__(self, "pair_laplacian", lap)

    @property
    def n_cells(self) -> int:
        return len(self.i)

    @property
    def n_pairs(self) -> int:
        return len(self.pair_start)

    def chunks(self, size: int) -> list[tuple[int, int, np.ndarray, np.ndarray]]:
        """Consecutive runs of at most ``size`` cells: (start, stop, the first cell of each pair in
        the run relative to its start, those pairs' indices)."""
        if size not in self._chunks:
            out = []
            pair_of = np.repeat(np.arange(self.n_pairs), np.diff(np.r_[self.pair_start, self.n_cells]))
            for lo in range(0, self.n_cells, size):
                hi = min(lo + size, self.n_cells)
                pairs = pair_of[lo:hi]
                first = np.flatnonzero(np.r_[True, pairs[1:] != pairs[:-1]])
                out.append((lo, hi, first, pairs[first]))
            self._chunks[size] = out
        return self._chunks[size]

    @property
    def n_covariates(self) -> int:
        return int(self.x.shape[1])

    def to_models(self, per_pair: np.ndarray) -> np.ndarray:
        """(b, pairs) -> (b, models): + at i, - at j."""
        return np.asarray(self.scatter @ per_pair.T).T

    def laplacian(self, per_pair: np.ndarray) -> np.ndarray:
        """(b, pairs) curvature sums -> (b, models, models)."""
        k = self.n_models
        return np.asarray(self.pair_laplacian @ per_pair.T).T.reshape(len(per_pair), k, k)


@dataclass(frozen=True)
class TopicStats:
    """Per topic and cell, ``q`` channels of sums: ``matrix`` is (q * cells, topics), channel c of
    cell k in row ``c * cells + k``. Sparse even when it is dense: scipy's product is one thread of
    C, where a BLAS product with a handful of topics is slower, and slower still in threads on a
    shared machine."""

    matrix: sp.csr_array
    n_channels: int
    n_cells: int

    def total(self) -> np.ndarray:
        """The sums over every topic once: (1, q, cells)."""
        return np.asarray(self.matrix.sum(axis=1), dtype=float).reshape(1, self.n_channels, self.n_cells)

    def reweighted(self, counts: np.ndarray, out: np.ndarray) -> np.ndarray:
        """(b, q, cells) sums of ``b`` resamples, ``counts`` being (b, topics), written into
        ``out`` (at least b rows; reused from block to block: fresh memory costs page faults)."""
        b = len(counts)
        flat = out.reshape(len(out), -1)
        product = np.asarray(self.matrix @ np.ascontiguousarray(counts.T), dtype=float)  # (q * cells, b)
        step = max(1, TRANSPOSE_ELEMENTS // b)
        for lo in range(0, product.shape[0], step):  # a transpose in cache-sized pieces
            flat[:b, lo : lo + step] = product[lo : lo + step].T
        return out[:b]


def aggregate(
    n_models: int,
    n_topics: int,
    topic: np.ndarray,
    i: np.ndarray,
    j: np.ndarray,
    values: np.ndarray,
    covariate_keys: np.ndarray | None = None,
    covariates: np.ndarray | None = None,
) -> tuple[PairCells, TopicStats]:
    """Rows (games or outcomes) -> cells and per-topic sums of ``values`` ((rows, q)).

    Rows share a cell when their sides and ``covariate_keys`` (integer columns) are equal;
    ``covariates`` ((rows, p) floats, a function of the keys) gives each cell's ``x``."""
    rows = len(topic)
    keys = (
        np.zeros((rows, 0), dtype=np.int64) if covariate_keys is None else np.asarray(covariate_keys).reshape(rows, -1)
    )
    cell, first = group_ids(i, j, *keys.T)
    n_cells = len(first)
    x = np.zeros((n_cells, 0)) if covariates is None else np.asarray(covariates, dtype=float).reshape(rows, -1)[first]
    cells = PairCells(n_models, np.asarray(i)[first].astype(np.int64), np.asarray(j)[first].astype(np.int64), x)
    values = np.asarray(values, dtype=float)
    q = values.shape[1] if values.ndim == 2 else 1
    values = values.reshape(rows, q)
    index = (np.arange(q)[None, :] * n_cells + cell[:, None]).ravel()
    matrix = sp.csr_array((values.ravel(), (index, np.repeat(topic, q))), shape=(q * n_cells, n_topics))
    matrix.sum_duplicates()
    return cells, TopicStats(matrix, q, n_cells)
