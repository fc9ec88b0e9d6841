"""Verdict metrics: RMSE on the pro/tie/con scale (Debatrix), accuracy, macro-F1.

DebateArt gold and predictions are ``"pro" | "tie" | "con"``; BP gold is a list of winning teams
and a prediction is correct when it names any of them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from debench.metrics.base import simple_metric

VERDICT_VALUES = {"pro": 0.0, "tie": 0.5, "con": 1.0}


@simple_metric("rmse", higher_is_better=False)
def rmse(preds: np.ndarray, targets: np.ndarray, value_map: dict[str, float] | None = None) -> float | None:
    """Root mean square error with pro=0, tie=0.5, con=1 (Debatrix reports it x100)."""
    if len(preds) == 0:
        return None
    vm = value_map or VERDICT_VALUES
    p = np.array([vm[str(x)] for x in preds], dtype=float)
    g = np.array([vm[str(x)] for x in targets], dtype=float)
    return float(np.sqrt(np.mean((p - g) ** 2)))


def _correct(pred: Any, gold: Any) -> bool:
    if isinstance(gold, (list, tuple, set)):
        return pred in gold
    return bool(pred == gold)


@simple_metric("accuracy")
def accuracy(preds: np.ndarray, targets: np.ndarray) -> float | None:
    """Share of correct verdicts (a list of gold winners: any of them counts)."""
    if len(preds) == 0:
        return None
    return float(np.mean([_correct(p, g) for p, g in zip(preds, targets, strict=True)]))


@simple_metric("macro_f1")
def macro_f1(preds: np.ndarray, targets: np.ndarray, labels: list[str] | None = None) -> float | None:
    """Unweighted mean of per-label F1 (labels: given, else those in gold or predictions).

    A label with no gold and no predicted instance in the (re)sample is left out; one with gold
    instances but no correct prediction scores 0.
    """
    if len(preds) == 0:
        return None
    labels = labels or sorted({str(x) for x in preds} | {str(x) for x in targets})
    p = np.array([str(x) for x in preds])
    g = np.array([str(x) for x in targets])
    scores = []
    for lab in labels:
        tp = int(np.sum((p == lab) & (g == lab)))
        fp = int(np.sum((p == lab) & (g != lab)))
        fn = int(np.sum((p != lab) & (g == lab)))
        if tp + fp + fn == 0:
            continue
        scores.append(2 * tp / (2 * tp + fp + fn))
    return float(np.mean(scores)) if scores else None
