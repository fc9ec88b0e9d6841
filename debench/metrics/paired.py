"""Paired comparison of two runs on the same documents.

Both runs' predictions are scored on the documents both of them answered; the same bootstrap
resample of documents is applied to both, so the interval and p-value are for the *difference*.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from debench.metrics.base import Metric
from debench.metrics.bootstrap import percentile_ci, resample_counts

BLOCK = 1024
"""Permutations drawn at a time (the same stream as one at a time)."""


def _whole(metric: Metric, state: Any, preds: np.ndarray) -> float | None:
    return metric.bind(state, preds)(np.ones((1, len(preds)))).finish().value(0)


def paired_bootstrap(
    metric: Metric, state: Any, preds_a: np.ndarray, preds_b: np.ndarray, n_boot: int = 10000, seed: int = 0
) -> dict[str, Any]:
    """diff = metric(A) - metric(B) with a percentile 95% CI and a two-sided p-value.

    The p-value is the share of resampled differences on the far side of zero, doubled, with
    the usual +1 correction so it is never exactly 0: p = min(1, 2 (1 + #{d* <= 0 or >= 0}) / (1 + B)).
    Resamples where either value is undefined are skipped and counted; the interval is
    ``bootstrap.percentile_ci``'s (none when fewer than half the resamples are defined).
    """
    n = len(preds_a)
    eval_a, eval_b = metric.bind(state, preds_a), metric.bind(state, preds_b)
    ones = np.ones((1, n))
    a, b = eval_a(ones).finish().value(0), eval_b(ones).finish().value(0)
    if a is None or b is None:
        return {"a": a, "b": b, "diff": None, "ci95": None, "p_value": None, "n": n, "n_skipped": 0}
    va, vb = [], []
    for counts in resample_counts(n, n_boot, seed):
        va.append(eval_a(counts).finish().values)
        vb.append(eval_b(counts).finish().values)
    xa, xb = np.concatenate(va), np.concatenate(vb)
    both = np.isfinite(xa) & np.isfinite(xb)
    d = xa[both] - xb[both]
    skipped = int(n_boot - both.sum())
    if len(d) == 0:
        return {"a": a, "b": b, "diff": a - b, "ci95": None, "p_value": None, "n": n, "n_skipped": skipped}
    tail = min(np.sum(d <= 0), np.sum(d >= 0))
    p = min(1.0, 2 * (1 + tail) / (1 + len(d)))
    ci, _ = percentile_ci(d, n_boot)
    return {"a": a, "b": b, "diff": a - b, "ci95": ci, "p_value": float(p), "n": n, "n_skipped": skipped}


def paired_permutation(
    metric: Metric, state: Any, preds_a: np.ndarray, preds_b: np.ndarray, n_perm: int = 10000, seed: int = 0
) -> dict[str, Any]:
    """Two-sided permutation test: swap the two runs' predictions per document at random."""
    n = len(preds_a)
    a, b = _whole(metric, state, preds_a), _whole(metric, state, preds_b)
    if a is None or b is None:
        return {"a": a, "b": b, "diff": None, "p_value": None, "n": n}
    observed = abs(a - b)
    rng = np.random.default_rng(seed)
    extreme = 0
    done = 0
    for start in range(0, n_perm, BLOCK):
        for swap in rng.random((min(BLOCK, n_perm - start), n)) < 0.5:
            va = _whole(metric, state, np.where(swap, preds_b, preds_a))
            vb = _whole(metric, state, np.where(swap, preds_a, preds_b))
            if va is None or vb is None:
                continue
            done += 1
            extreme += abs(va - vb) >= observed - 1e-12
    return {"a": a, "b": b, "diff": a - b, "p_value": (1 + extreme) / (1 + done), "n": n}
