"""Paired comparison of two runs on the same documents.

Both runs' predictions are scored on the documents both of them answered; the same bootstrap
resample of documents is applied to both, so the interval and p-value are for the *difference*.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from debench.metrics.base import Metric, finite_or_none


def paired_bootstrap(metric: Metric, state: Any, preds_a: np.ndarray, preds_b: np.ndarray, n_boot: int = 10000, seed: int = 0) -> dict[str, Any]:
    """diff = metric(A) - metric(B) with a percentile 95% CI and a two-sided p-value.

    The p-value is the share of resampled differences on the far side of zero, doubled, with
    the usual +1 correction so it is never exactly 0: p = min(1, 2 (1 + #{d* <= 0 or >= 0}) / (1 + B)).
    Resamples where either value is undefined are skipped and counted.
    """
    n = len(preds_a)
    idx0 = np.arange(n)
    a = finite_or_none(metric.compute(state, preds_a, idx0))
    b = finite_or_none(metric.compute(state, preds_b, idx0))
    if a is None or b is None:
        return {"a": a, "b": b, "diff": None, "ci95": None, "p_value": None, "n": n, "n_skipped": 0}
    rng = np.random.default_rng(seed)
    diffs = []
    skipped = 0
    for _ in range(n_boot):
        idx = rng.integers(0, n, size=n)
        va, vb = finite_or_none(metric.compute(state, preds_a, idx)), finite_or_none(metric.compute(state, preds_b, idx))
        if va is None or vb is None:
            skipped += 1
            continue
        diffs.append(va - vb)
    d = np.array(diffs)
    if len(d) == 0:
        return {"a": a, "b": b, "diff": a - b, "ci95": None, "p_value": None, "n": n, "n_skipped": skipped}
    tail = min(np.sum(d <= 0), np.sum(d >= 0))
    p = min(1.0, 2 * (1 + tail) / (1 + len(d)))
    lo, hi = np.percentile(d, [2.5, 97.5])
    return {"a": a, "b": b, "diff": a - b, "ci95": [float(lo), float(hi)], "p_value": float(p), "n": n, "n_skipped": skipped}


def paired_permutation(metric: Metric, state: Any, preds_a: np.ndarray, preds_b: np.ndarray, n_perm: int = 10000, seed: int = 0) -> dict[str, Any]:
    """Two-sided permutation test: swap the two runs' predictions per document at random."""
    n = len(preds_a)
    idx0 = np.arange(n)
    a = finite_or_none(metric.compute(state, preds_a, idx0))
    b = finite_or_none(metric.compute(state, preds_b, idx0))
    if a is None or b is None:
        return {"a": a, "b": b, "diff": None, "p_value": None, "n": n}
    observed = abs(a - b)
    rng = np.random.default_rng(seed)
    extreme = 0
    done = 0
    for _ in range(n_perm):
        swap = rng.random(n) < 0.5
        pa = np.where(swap, preds_b, preds_a)
        pb = np.where(swap, preds_a, preds_b)
        va, vb = finite_or_none(metric.compute(state, pa, idx0)), finite_or_none(metric.compute(state, pb, idx0))
        if va is None or vb is None:
            continue
        done += 1
        extreme += abs(va - vb) >= observed - 1e-12
    return {"a": a, "b": b, "diff": a - b, "p_value": (1 + extreme) / (1 + done), "n": n}
