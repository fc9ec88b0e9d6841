"""Verdict metrics: RMSE on the pro/tie/con scale (Debatrix), accuracy, macro-F1.

DebateArt gold and predictions are ``"pro" | "tie" | "con"``; BP gold is a list of winning teams
and a prediction is correct when it names any of them. Each metric is a function of
per-document terms summed over the (resampled) documents.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from debench.metrics.base import Draws, ratio, register_sum_metric, safe_divide

VERDICT_VALUES = {"pro": 0.0, "tie": 0.5, "con": 1.0}


def _rmse_terms(preds: np.ndarray, targets: np.ndarray, value_map: dict[str, float] | None = None) -> np.ndarray:
    """Root mean square error with pro=0, tie=0.5, con=1 (Debatrix reports it x100)."""
    vm = value_map or VERDICT_VALUES
    err = np.array([(vm[str(p)] - vm[str(g)]) ** 2 for p, g in zip(preds, targets, strict=True)], dtype=float)
    return np.column_stack([err, np.ones(len(err))])


def _correct(pred: Any, gold: Any) -> bool:
    if isinstance(gold, (list, tuple, set)):
        return pred in gold
    return bool(pred == gold)


def _accuracy_terms(preds: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Share of correct verdicts (a list of gold winners: any of them counts)."""
    right = np.array([_correct(p, g) for p, g in zip(preds, targets, strict=True)], dtype=float)
    return np.column_stack([right, np.ones(len(right))])


def _f1_terms(preds: np.ndarray, targets: np.ndarray, labels: list[str] | None = None) -> np.ndarray:
    """Unweighted mean of per-label F1 (labels: given, else those in gold or predictions).

    A label with no gold and no predicted instance in the (re)sample is left out; one with gold
    instances but no correct prediction scores 0.
    """
    p = np.array([str(x) for x in preds])
    g = np.array([str(x) for x in targets])
    labels = labels or sorted(set(p) | set(g))
    # Per label: true positive, false positive, false negative (columns 3l, 3l+1, 3l+2).
    cols = [[(p == lab) & (g == lab), (p == lab) & (g != lab), (p != lab) & (g == lab)] for lab in labels]
    return np.array([c for trio in cols for c in trio], dtype=float).T.reshape(len(p), 3 * len(labels))


def _macro_f1(sums: np.ndarray) -> Draws:
    tp, fp, fn = (sums.reshape(len(sums), -1, 3)[:, :, i] for i in range(3))
    counted = (tp + fp + fn) > 0
    f1 = safe_divide(2 * tp, 2 * tp + fp + fn)
    k = counted.sum(axis=1)
    mean = safe_divide(np.where(counted, f1, 0.0).sum(axis=1), k)
    return Draws.of(mean).undefined(k == 0, "no prediction or gold label is one of the labels")


register_sum_metric(
    "rmse", _rmse_terms, partial(ratio, empty="no documents", transform=np.sqrt), higher_is_better=False
)
register_sum_metric("accuracy", _accuracy_terms, partial(ratio, empty="no documents"))
register_sum_metric("macro_f1", _f1_terms, _macro_f1)
