"""``within_one``: the share of numeric predictions within 1 of the gold value (e.g. a Likert
rating against the mean human rating)."""

from __future__ import annotations

from functools import partial

import numpy as np

from debench.plugin_types import Metric, ratio, register_sum_metric


def _within_one_terms(preds: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Share of predictions within 1 of the gold value."""
    hit = np.array([abs(float(p) - float(g)) <= 1 for p, g in zip(preds, targets, strict=True)], dtype=float)
    return np.column_stack([hit, np.ones(len(hit))])


WITHIN_ONE: Metric = register_sum_metric("within_one", _within_one_terms, partial(ratio, empty="no documents"))
