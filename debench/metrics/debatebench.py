"""DebateBench metrics (Tiwari et al. 2025): house ranking, speaker scores, speaker ranking.

Gold per debate: ``{"ranking": [house, ...] first->fourth, "scores": {role: score}}``.

* ``verdict_delta`` — for each debate, sum over the four houses of |predicted position - gold
  position|; averaged over debates (0 = the official ranking).
* ``mae`` — mean absolute error over all speaker scores (8 per debate, pooled).
* ``acc_within_k`` (k = 2..9) — share of speaker scores with |predicted - gold| <= k.
* ``rank_delta`` — for each debate, sum over the 8 speakers of |predicted rank - gold rank|,
  gold ranks from the official speaker scores (ties share the mean of their positions);
  averaged over debates.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import rankdata

from debench.metrics.base import simple_metric

ROLES = ("pm", "lo", "dpm", "dlo", "mg", "mo", "gw", "ow")


def _positions(order: list[str]) -> dict[str, int]:
    return {item: i + 1 for i, item in enumerate(order)}


def ranking_delta(pred: list[str], gold: list[str]) -> float:
    if sorted(pred) != sorted(gold):
        raise ValueError(f"prediction {pred} is not a permutation of {gold}")
    p, g = _positions(pred), _positions(gold)
    return float(sum(abs(p[h] - g[h]) for h in gold))


@simple_metric("verdict_delta", higher_is_better=False)
def verdict_delta(preds: np.ndarray, targets: np.ndarray) -> float | None:
    """Mean over debates of the summed position error of the four houses."""
    if len(preds) == 0:
        return None
    return float(np.mean([ranking_delta(list(p), list(t["ranking"])) for p, t in zip(preds, targets, strict=True)]))


def _score_errors(preds: np.ndarray, targets: np.ndarray) -> np.ndarray:
    errs = [abs(float(p[r]) - float(t["scores"][r])) for p, t in zip(preds, targets, strict=True) for r in t["scores"]]
    return np.array(errs, dtype=float)


@simple_metric("mae", higher_is_better=False)
def mae(preds: np.ndarray, targets: np.ndarray) -> float | None:
    """Mean absolute error of the speaker scores, pooled over all speakers."""
    errs = _score_errors(preds, targets)
    return float(errs.mean()) if len(errs) else None


def _within(k: int):  # type: ignore[no-untyped-def]
    def fn(preds: np.ndarray, targets: np.ndarray) -> float | None:
        errs = _score_errors(preds, targets)
        return float(np.mean(errs <= k)) if len(errs) else None

    fn.__doc__ = f"Share of speaker scores within {k} points of the official score."
    return fn


for _k in range(2, 10):
    simple_metric(f"acc_within_{_k}")(_within(_k))


def gold_speaker_order(scores: dict[str, float]) -> dict[str, float]:
    """Gold rank of each speaker (1 = best); tied scores share the mean rank."""
    roles = list(scores)
    ranks = rankdata([-float(scores[r]) for r in roles], method="average")
    return dict(zip(roles, (float(x) for x in ranks), strict=True))


@simple_metric("rank_delta", higher_is_better=False)
def rank_delta(preds: np.ndarray, targets: np.ndarray) -> float | None:
    """Mean over debates of the summed rank error of the eight speakers."""
    if len(preds) == 0:
        return None
    out = []
    for p, t in zip(preds, targets, strict=True):
        gold = gold_speaker_order(t["scores"])
        pos = _positions(list(p))
        if set(pos) != set(gold):
            raise ValueError(f"prediction {list(p)} does not rank the speakers {sorted(gold)}")
        out.append(sum(abs(pos[r] - gold[r]) for r in gold))
    return float(np.mean(out))
