"""Seeded percentile bootstrap over documents."""

from __future__ import annotations

from typing import Any

import numpy as np

from debench.metrics.base import Metric, finite_or_none


def point_and_ci(
    metric: Metric, state: Any, preds: np.ndarray, n_boot: int, seed: int
) -> tuple[float | None, list[float] | None]:
    n = len(preds)
    if n == 0:
        return None, None
    value = finite_or_none(metric.compute(state, preds, np.arange(n)))
    if value is None or n_boot <= 0 or n < 2:
        return value, None
    rng = np.random.default_rng(seed)
    draws: list[float] = []
    for _ in range(n_boot):
        idx = rng.integers(0, n, size=n)
        v = finite_or_none(metric.compute(state, preds, idx))
        if v is not None:
            draws.append(v)
    # A CI from a minority of defined resamples would be misleading: report none.
    if len(draws) < max(2, n_boot // 2):
        return value, None
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return value, [float(lo), float(hi)]


def wilson_ci(k: int, n: int) -> list[float] | None:
    """Wilson score 95% interval of ``k`` successes in ``n`` trials (None when ``n`` is 0)."""
    if n == 0:
        return None
    from scipy.stats import binomtest

    ci = binomtest(int(k), int(n)).proportion_ci(confidence_level=0.95, method="wilson")
    return [float(max(0.0, ci.low)), float(min(1.0, ci.high))]


def proportion_ci(flags: np.ndarray) -> tuple[float | None, list[float] | None]:
    """Share of 1s in a 0/1 array with a Wilson score 95% interval.

    Used for rates (parse failures, completion). Unlike a bootstrap, Wilson's interval stays
    informative at 0% and 100% (0 failures in 631 samples is not "exactly 0, certainly").
    """
    n = len(flags)
    if n == 0:
        return None, None
    k = int(np.sum(flags))
    return k / n, wilson_ci(k, n)


def mean_ci(values: np.ndarray, n_boot: int, seed: int) -> tuple[float | None, list[float] | None]:
    """Mean with a seeded percentile-bootstrap 95% interval (None with fewer than 2 values)."""
    x = np.asarray(values, dtype=float)
    if len(x) == 0:
        return None, None
    value = float(x.mean())
    if len(x) < 2 or n_boot <= 0:
        return value, None
    rng = np.random.default_rng(seed)
    draws = x[rng.integers(0, len(x), size=(n_boot, len(x)))].mean(axis=1)
    lo, hi = np.percentile(draws, [2.5, 97.5])
    return value, [float(lo), float(hi)]


def mean_diff_ci(a: np.ndarray, b: np.ndarray, n_boot: int, seed: int) -> tuple[float | None, list[float] | None]:
    """mean(a) - mean(b) for two independent groups, each resampled on its own (seeded)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(x) == 0 or len(y) == 0:
        return None, None
    value = float(x.mean() - y.mean())
    if len(x) < 2 or len(y) < 2 or n_boot <= 0:
        return value, None
    rng = np.random.default_rng(seed)
    dx = x[rng.integers(0, len(x), size=(n_boot, len(x)))].mean(axis=1)
    dy = y[rng.integers(0, len(y), size=(n_boot, len(y)))].mean(axis=1)
    lo, hi = np.percentile(dx - dy, [2.5, 97.5])
    return value, [float(lo), float(hi)]
