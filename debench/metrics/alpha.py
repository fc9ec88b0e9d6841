"""Krippendorff's alpha from coincidence matrices: the one implementation of debench, for the speech
ratings (ordinal, humans and the judge as coders of each speech) and the arena's judges (nominal,
each judge a coder of each debate).

A unit's coincidence matrix (Krippendorff 2011, the ``krippendorff`` package's
``_reliability_data_to_value_counts`` then ``c c^T - diag(c)`` over its pairable values - 1) adds
over units, so the alpha of any resample of units — a bootstrap draw of speeches, a topic draw of
debates — is the alpha of a weighted sum of per-unit (or per-topic) matrices: one matrix product
per block of resamples. The ``krippendorff`` package computes one alpha from a reliability matrix
per call (~0.4 s for a million arena judgments here), which a 1,000-draw bootstrap would call a
thousand times; the tests keep this implementation equal to the package's (to 1e-9).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

Level = Literal["nominal", "ordinal"]


def unit_coincidences(counts: np.ndarray) -> np.ndarray:
    """Per unit (a row of ``counts``: how many coders gave each value), its coincidence matrix
    ((n, V, V)); zero for a unit with fewer than two values (nothing to pair)."""
    counts = np.asarray(counts, dtype=float)
    m = counts.sum(axis=1)
    pairs = counts[:, :, None] * counts[:, None, :] - counts[:, :, None] * np.eye(counts.shape[1])[None]
    scale = np.divide(1.0, m - 1, out=np.zeros_like(m), where=m >= 2)
    per_unit: np.ndarray = pairs * scale[:, None, None]
    return per_unit


def _distance(n_v: np.ndarray, level: Level) -> np.ndarray:
    """Squared distances between values ((b, V, V)); ordinal ones from the values' marginals."""
    b, v = n_v.shape
    if level == "nominal":
        return np.broadcast_to(1.0 - np.eye(v), (b, v, v))
    total = np.concatenate([np.zeros((b, 1)), np.cumsum(n_v, axis=1)], axis=1)
    i, j = np.indices((v, v))
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    squared: np.ndarray = (total[:, hi + 1] - total[:, lo] - (n_v[:, i] + n_v[:, j]) / 2) ** 2
    return squared


def alpha(coincidences: np.ndarray, level: Level) -> tuple[np.ndarray, np.ndarray]:
    """Alpha of each (V, V) coincidence matrix of ``coincidences`` ((..., V, V), summed over the
    units), and the expected disagreement it divides by; alpha is NaN where it is undefined (no
    pairable value, or every value the same: an expected disagreement of 0)."""
    o = np.asarray(coincidences, dtype=float)
    shape, v = o.shape[:-2], o.shape[-1]
    o = o.reshape(-1, v, v)
    n_v = o.sum(axis=1)
    n = n_v.sum(axis=1)
    delta = _distance(n_v, level)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = (n_v[:, :, None] * n_v[:, None, :] * delta).sum(axis=(1, 2)) / np.where(n > 1, n - 1, np.nan)
        value = 1.0 - (o * delta).sum(axis=(1, 2)) / np.where(expected > 1e-12, expected, np.nan)
    return value.reshape(shape), np.nan_to_num(expected).reshape(shape)
