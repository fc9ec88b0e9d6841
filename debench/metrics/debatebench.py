"""DebateBench metrics (Tiwari et al. 2025): house ranking, speaker scores, speaker ranking.

Gold per debate: ``{"ranking": [house, ...] first->fourth, "scores": {role: score}}``.

* ``verdict_delta`` — for each debate, sum over the four houses of |predicted position - gold
  position|; averaged over debates (0 = the official ranking).
* ``mae`` — mean absolute error over all speaker scores (8 per debate, pooled).
* ``acc_within_k`` (k = 2..9) — share of speaker scores with |predicted - gold| <= k.
* ``rank_delta`` — for each debate, sum over the 8 speakers of |predicted rank - gold rank|,
  gold ranks from the official speaker scores (ties share the mean of their positions);
  averaged over debates.

Each is a ratio of per-debate terms summed over the (resampled) debates.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np
from scipy.stats import rankdata

from debench.metrics.base import ratio, register_sum_metric

ROLES = ("pm", "lo", "dpm", "dlo", "mg", "mo", "gw", "ow")
NO_SCORES = "no speaker scores"


def _positions(order: list[str]) -> dict[str, int]:
    return {item: i + 1 for i, item in enumerate(order)}


def ranking_delta(pred: list[str], gold: list[str]) -> float:
    if sorted(pred) != sorted(gold):
        raise ValueError(f"prediction {pred} is not a permutation of {gold}")
    p, g = _positions(pred), _positions(gold)
    return float(sum(abs(p[h] - g[h]) for h in gold))


def _per_debate(values: list[float]) -> np.ndarray:
    return np.column_stack([np.array(values, dtype=float), np.ones(len(values))])


def _verdict_terms(preds: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Mean over debates of the summed position error of the four houses."""
    return _per_debate([ranking_delta(list(p), list(t["ranking"])) for p, t in zip(preds, targets, strict=True)])


def _score_errors(pred: dict[str, float], gold: dict[str, float]) -> np.ndarray:
    return np.array([abs(float(pred[r]) - float(gold[r])) for r in gold], dtype=float)


def _error_terms(preds: np.ndarray, targets: np.ndarray, of: Callable[[np.ndarray], float]) -> np.ndarray:
    rows = [_score_errors(p, t["scores"]) for p, t in zip(preds, targets, strict=True)]
    return np.array([[of(e), len(e)] for e in rows], dtype=float).reshape(len(rows), 2)


def _mae_terms(preds: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Mean absolute error of the speaker scores, pooled over all speakers."""
    return _error_terms(preds, targets, np.sum)


def _within_terms(k: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def terms(preds: np.ndarray, targets: np.ndarray) -> np.ndarray:
        return _error_terms(preds, targets, lambda e: float(np.sum(e <= k)))

    terms.__doc__ = f"Share of speaker scores within {k} points of the official score."
    return terms


def gold_speaker_order(scores: dict[str, float]) -> dict[str, float]:
    """Gold rank of each speaker (1 = best); tied scores share the mean rank."""
    roles = list(scores)
    ranks = rankdata([-float(scores[r]) for r in roles], method="average")
    return dict(zip(roles, (float(x) for x in ranks), strict=True))


def _rank_delta(pred: list[str], scores: dict[str, float]) -> float:
    gold = gold_speaker_order(scores)
    pos = _positions(list(pred))
    if set(pos) != set(gold):
        raise ValueError(f"prediction {list(pred)} does not rank the speakers {sorted(gold)}")
    return float(sum(abs(pos[r] - gold[r]) for r in gold))


def _rank_terms(preds: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Mean over debates of the summed rank error of the eight speakers."""
    return _per_debate([_rank_delta(p, t["scores"]) for p, t in zip(preds, targets, strict=True)])


_mean = partial(ratio, empty="no debates")
register_sum_metric("verdict_delta", _verdict_terms, _mean, higher_is_better=False)
register_sum_metric("mae", _mae_terms, partial(ratio, empty=NO_SCORES), higher_is_better=False)
for _k in range(2, 10):
    register_sum_metric(f"acc_within_{_k}", _within_terms(_k), partial(ratio, empty=NO_SCORES))
register_sum_metric("rank_delta", _rank_terms, _mean, higher_is_better=False)
