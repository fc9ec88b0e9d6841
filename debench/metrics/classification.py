"""Verdict metrics: RMSE on the pro/tie/con scale (Debatrix), accuracy, macro-F1, Cohen's kappa.

DebateArt gold and predictions are ``"pro" | "tie" | "con"``; BP gold is a list of winning teams
and a prediction is correct when it names any of them. Each metric is a function of
per-document terms summed over the (resampled) documents.

``cohen_kappa`` is accuracy corrected for chance, ``(p_o - p_e) / (1 - p_e)``: ``p_e`` is the
accuracy expected of a judge that names each label as often as this one does, independently of
the debate, ``sum over labels of P(judge names l) * P(the gold holds l)``. With one gold label per
document it is Cohen's kappa between verdicts and gold; a BP gold of two advancing teams holds both.
A constant judge scores 0 however often its label is right.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from debench.metrics.base import Draws, ratio, register_sum_metric, safe_divide
from debench.metrics.params import LabelsArgs, ValueMapArgs

VERDICT_VALUES = {"pro": 0.0, "tie": 0.5, "con": 1.0}


def _rmse_terms(preds: np.ndarray, targets: np.ndarray, value_map: dict[str, float] | None = None) -> np.ndarray:
    """Root mean square error with pro=0, tie=0.5, con=1 (Debatrix reports it x100)."""
    vm = value_map or VERDICT_VALUES
    err = np.array([(vm[str(p)] - vm[str(g)]) ** 2 for p, g in zip(preds, targets, strict=True)], dtype=float)
    return np.column_stack([err, np.ones(len(err))])


def is_correct(pred: Any, gold: Any) -> bool:
    """A verdict is right when it is the gold label, or one of them (BP: any advancing team)."""
    if isinstance(gold, (list, tuple, set)):
        return pred in gold
    return bool(pred == gold)


def _accuracy_terms(preds: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Share of correct verdicts (a list of gold winners: any of them counts)."""
    right = np.array([is_correct(p, g) for p, g in zip(preds, targets, strict=True)], dtype=float)
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


def _kappa_terms(preds: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Per document: right or not, 1, then per label whether the judge named it and whether the gold holds it."""
    labels = sorted({str(p) for p in preds} | {str(g) for t in targets for g in _gold_labels(t)})
    rows = []
    for p, g in zip(preds, targets, strict=True):
        gold = {str(x) for x in _gold_labels(g)}
        rows.append(
            [
                float(is_correct(p, g)),
                1.0,
                *(float(str(p) == lab) for lab in labels),
                *(float(lab in gold) for lab in labels),
            ]
        )
    return np.array(rows, dtype=float).reshape(len(preds), 2 + 2 * len(labels))


def _gold_labels(gold: Any) -> list[Any]:
    return list(gold) if isinstance(gold, (list, tuple, set)) else [gold]


def _kappa(sums: np.ndarray) -> Draws:
    """Cohen's kappa: (observed - expected) / (1 - expected), the expected accuracy being that of a
    judge naming labels as often as this one does, independently of the debates."""
    right, n = sums[:, 0], sums[:, 1]
    k = (sums.shape[1] - 2) // 2
    named, held = sums[:, 2 : 2 + k], sums[:, 2 + k :]
    observed = safe_divide(right, n)
    expected = safe_divide((named * held).sum(axis=1), n * n)
    value = safe_divide(observed - expected, 1 - expected)
    draws = Draws.of(value).undefined(n == 0, "no documents")
    return draws.undefined(np.isclose(expected, 1), "every verdict and every gold label is the same label")


register_sum_metric(
    "rmse",
    _rmse_terms,
    partial(ratio, empty="no documents", transform=np.sqrt),
    higher_is_better=False,
    params=ValueMapArgs,
)
register_sum_metric("accuracy", _accuracy_terms, partial(ratio, empty="no documents"))
register_sum_metric("macro_f1", _f1_terms, _macro_f1, params=LabelsArgs)
register_sum_metric(
    "cohen_kappa",
    _kappa_terms,
    _kappa,
    description="Cohen's kappa between the verdicts and the gold labels: accuracy corrected for chance",
)
