"""Judge scores on the 1-5 (Likert) scale of the speech-rating tasks, as numbers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

LIKERT = np.arange(1, 6, dtype=float)


def judge_scores(preds: Sequence[Any] | np.ndarray) -> np.ndarray:
    """Judge scores as floats, NaN where a prediction is not a number (None, a bool, text).

    Called once per set of predictions, never per resample."""
    out = np.full(len(preds), np.nan)
    for i, p in enumerate(preds):
        if isinstance(p, (bool, np.bool_)) or p is None:
            continue
        try:
            out[i] = float(p)
        except (TypeError, ValueError):
            continue
    return out


def categories(judge: np.ndarray) -> np.ndarray:
    """1..5 plus any other finite value the judge gave (e.g. the paper's -1 for a parse failure), sorted."""
    return np.union1d(LIKERT, judge[np.isfinite(judge)])
