"""Seeded percentile bootstrap over documents, and Wilson intervals for rates.

Resamples are drawn as ``rng.integers(0, n, size=n)`` per resample from
``np.random.default_rng(seed)``; they are generated in blocks (the same stream: block b holds
resamples ``b * size .. (b + 1) * size - 1``) and handed to the metric as document counts, so a
metric evaluates many resamples in one pass. A task's metric is resampled with ``metric_seed(seed,
name)``: its CI is the same wherever the metric stands in the task's list.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from dataclasses import dataclass
from math import exp, lgamma, log, log1p, sqrt
from typing import Any

import numpy as np

from debench.metrics.base import Evaluate, Metric

BLOCK_ELEMENTS = 1 << 20
"""At most this many (resample, document) counts are held at once (8 MB)."""

NO_PREDICTIONS = "no parsed predictions"
NO_BOOTSTRAP = "no CI: the bootstrap is turned off (0 resamples)"
TOO_FEW_DOCS = "a CI needs at least two documents"


def metric_seed(seed: int, name: str) -> int:
    """The bootstrap seed of the metric ``name`` in a run whose bootstrap seed is ``seed``: a function
    of the two alone (the first 8 bytes of a sha256), never of the metric's place among the task's
    metrics, so reordering them or adding one (a plug-in metric) changes no other metric's CI."""
    return int.from_bytes(hashlib.sha256(f"{seed}\x1f{name}".encode()).digest()[:8], "big")


@dataclass(frozen=True)
class Estimate:
    value: float | None
    ci95: list[float] | None
    note: str | None = None
    """Why the value or the CI is missing (None when both exist)."""


def resample_counts(n: int, n_boot: int, seed: int | np.random.Generator) -> Iterator[np.ndarray]:
    """Blocks of (b, n) document counts, one row per resample, in the order they are drawn: the
    one bootstrap sampler of debench (documents, topics, speeches of a source). ``seed`` may be a
    generator already in use, so that two groups resampled one after the other share a stream."""
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    size = max(1, min(n_boot, BLOCK_ELEMENTS // max(n, 1)))
    done = 0
    while done < n_boot:
        b = min(size, n_boot - done)
        # int32 draws are the same numbers as the default int64 ones, drawn twice as fast.
        idx = rng.integers(0, n, size=(b, n), dtype=np.int32 if b * n < 2**31 else np.int64)
        idx += (n * np.arange(b, dtype=idx.dtype))[:, None]
        yield np.bincount(idx.ravel(), minlength=b * n).reshape(b, n).astype(float)
        done += b


def resampled_values(evaluate: Evaluate, n: int, n_boot: int, seed: int) -> np.ndarray:
    """The metric on each of ``n_boot`` seeded resamples (NaN where undefined)."""
    return np.concatenate([evaluate(c).finish().values for c in resample_counts(n, n_boot, seed)])


def percentile_ci(draws: np.ndarray, n_boot: int) -> tuple[list[float] | None, str | None]:
    """The 2.5-97.5 percentile interval of the defined draws; none from a minority of them."""
    defined = draws[np.isfinite(draws)]
    if len(defined) < max(2, n_boot // 2):
        return None, f"a CI needs at least half the bootstrap resamples defined (only {len(defined)} of {n_boot} were)"
    lo, hi = np.percentile(defined, [2.5, 97.5])
    return [float(lo), float(hi)], None


def point_and_ci(metric: Metric, state: Any, preds: np.ndarray, n_boot: int, seed: int) -> Estimate:
    n = len(preds)
    if n == 0:
        return Estimate(None, None, NO_PREDICTIONS)
    evaluate = metric.bind(state, preds)
    point = evaluate(np.ones((1, n))).finish()
    value = point.value(0)
    if value is None:
        return Estimate(None, None, point.note(0))
    if metric.no_ci is not None:
        return Estimate(value, None, metric.no_ci)
    if n_boot <= 0:
        return Estimate(value, None, NO_BOOTSTRAP)
    if n < 2:
        return Estimate(value, None, TOO_FEW_DOCS)
    ci, note = percentile_ci(resampled_values(evaluate, n, n_boot, seed), n_boot)
    return Estimate(value, ci, note)


Z95 = 1.959963984540054
"""The two-sided 95% normal quantile, ``scipy.special.ndtri(0.975)`` (a test checks it)."""


def wilson_ci(k: int, n: int) -> list[float] | None:
    """Wilson score 95% interval of ``k`` successes in ``n`` trials (None when ``n`` is 0), without
    continuity correction (Newcombe 1998, method 3): the interval of ``scipy.stats.binomtest(k,
    n).proportion_ci(method="wilson")`` (equal to 1e-12, see the tests), in closed form, because
    importing ``scipy.stats`` costs ~0.7 s of CPU after the last answer of every command."""
    if n == 0:
        return None
    p = k / n
    denom = 2 * (n + Z95**2)
    centre = (2 * n * p + Z95**2) / denom
    half = Z95 / denom * sqrt(4 * n * p * (1 - p) + Z95**2)
    lo = 0.0 if k == 0 else centre - half
    hi = 1.0 if k == n else centre + half
    return [float(max(0.0, lo)), float(min(1.0, hi))]


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p): the p-value of the one-sided exact test of a share above
    ``p`` (``scipy.stats.binomtest(k, n, p, alternative="greater").pvalue``, equal to 1e-12 in the
    tests), summed in log space in closed form for the reason ``wilson_ci`` gives."""
    if k <= 0 or p >= 1:
        return 1.0
    if k > n or p <= 0:
        return 0.0
    terms = [
        lgamma(n + 1) - lgamma(i + 1) - lgamma(n - i + 1) + i * log(p) + (n - i) * log1p(-p) for i in range(k, n + 1)
    ]
    top = max(terms)
    return min(1.0, exp(top) * sum(exp(t - top) for t in terms))


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


def resampled_means(x: np.ndarray, n_boot: int, seed: int | np.random.Generator) -> np.ndarray:
    """The mean of ``x`` on each of ``n_boot`` seeded resamples (``resample_counts``)."""
    return np.concatenate([c @ x for c in resample_counts(len(x), n_boot, seed)]) / len(x)


def mean_ci(values: np.ndarray, n_boot: int, seed: int) -> tuple[float | None, list[float] | None]:
    """Mean with a seeded percentile-bootstrap 95% interval (None with fewer than 2 values)."""
    x = np.asarray(values, dtype=float)
    if len(x) == 0:
        return None, None
    value = float(x.mean())
    if len(x) < 2 or n_boot <= 0:
        return value, None
    ci, _ = percentile_ci(resampled_means(x, n_boot, seed), n_boot)
    return value, ci


def mean_diff_ci(a: np.ndarray, b: np.ndarray, n_boot: int, seed: int) -> tuple[float | None, list[float] | None]:
    """mean(a) - mean(b) for two independent groups, each resampled on its own: ``a``'s resamples
    first, then ``b``'s, from one seeded stream."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if len(x) == 0 or len(y) == 0:
        return None, None
    value = float(x.mean() - y.mean())
    if len(x) < 2 or len(y) < 2 or n_boot <= 0:
        return value, None
    rng = np.random.default_rng(seed)
    dx = resampled_means(x, n_boot, rng)
    dy = resampled_means(y, n_boot, rng)
    ci, _ = percentile_ci(dx - dy, n_boot)
    return value, ci
