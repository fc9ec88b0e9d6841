"""The one bootstrap sampler (``metrics.bootstrap.resample_counts``) serves the means of speech
ratings too: their intervals are the ones one ``rng.integers`` draw per resample gives, and two
groups compared are resampled one after the other from one seeded stream."""

from __future__ import annotations

import numpy as np
import pytest

from debench.metrics.bootstrap import mean_ci, mean_diff_ci


def _drawn_means(x: np.ndarray, n_boot: int, rng: np.random.Generator) -> np.ndarray:
    return x[rng.integers(0, len(x), size=(n_boot, len(x)))].mean(axis=1)


@pytest.mark.parametrize("n", [2, 9, 631])
def test_mean_ci_is_the_percentile_interval_of_resampled_means(n: int) -> None:
    x = np.random.default_rng(n).integers(1, 6, n).astype(float)
    value, ci = mean_ci(x, 500, seed=3)
    expected = np.percentile(_drawn_means(x, 500, np.random.default_rng(3)), [2.5, 97.5])
    assert value == pytest.approx(x.mean()) and ci == pytest.approx(list(expected), abs=1e-12)


def test_mean_diff_ci_resamples_each_group_from_one_stream() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.normal(3, 1, 40), rng.normal(2.5, 1, 25)
    value, ci = mean_diff_ci(a, b, 800, seed=11)
    stream = np.random.default_rng(11)
    da = _drawn_means(a, 800, stream)
    db = _drawn_means(b, 800, stream)
    assert value == pytest.approx(a.mean() - b.mean())
    assert ci == pytest.approx(list(np.percentile(da - db, [2.5, 97.5])), abs=1e-12)


def test_no_interval_without_two_values_or_resamples() -> None:
    assert mean_ci(np.array([4.0]), 100, 0) == (4.0, None)
    assert mean_ci(np.array([1.0, 2.0]), 0, 0) == (1.5, None)
    assert mean_diff_ci(np.array([1.0]), np.array([1.0, 2.0]), 100, 0) == (-0.5, None)
    assert mean_ci(np.array([]), 100, 0) == (None, None)
