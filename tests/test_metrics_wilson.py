"""Every Wilson interval is scipy's (``binomtest(...).proportion_ci("wilson")``), computed in closed
form by ``debench.metrics.bootstrap.wilson_ci`` (importing scipy.stats costs ~0.7 s): the scoring's
rates and the probes' rates agree with it. The memorization probe's one-sided binomial test is
scipy's too (``binomial_tail``)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest

from debench.metrics.bootstrap import proportion_ci, wilson_ci
from debench.probes.stats import rate


@pytest.mark.parametrize(
    ("k", "n"), [(0, 1), (0, 631), (1, 3), (17, 40), (631, 631), (1, 1), (3, 7), (500, 631), (630, 631), (1, 100_000)]
)
def test_wilson_is_scipys(k, n):
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert wilson_ci(k, n) == pytest.approx([max(0.0, ci.low), min(1.0, ci.high)], abs=1e-15)
    flags = [True] * k + [False] * (n - k)
    assert proportion_ci(np.array(flags, dtype=float)) == (k / n, wilson_ci(k, n))
    r = rate(flags)
    assert (r.value, r.ci95, r.n, r.k) == (k / n, wilson_ci(k, n), n, k)


def test_every_k_of_small_n_and_the_quantile_are_scipys():
    from scipy.special import ndtri

    from debench.metrics.bootstrap import Z95

    assert float(ndtri(0.975)) == Z95
    for n in range(1, 60):
        for k in range(n + 1):
            ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
            assert wilson_ci(k, n) == pytest.approx([max(0.0, ci.low), min(1.0, ci.high)], abs=1e-12, rel=0)


def test_no_trials_no_interval():
    assert wilson_ci(0, 0) is None
    assert proportion_ci(np.array([])) == (None, None)
    assert rate([]).ci95 is None
    # 0 failures in 631 is not "certainly 0": the interval has width
    assert wilson_ci(0, 631)[1] > 0.005


@pytest.mark.parametrize("n", [1, 5, 22, 40, 100, 631])
@pytest.mark.parametrize("p", [0.0, 0.01, 0.27, 0.56, 0.73, 0.99, 1.0])
def test_the_binomial_tail_is_scipys_one_sided_exact_test(n, p):
    """The memorization probe's p-value (``binomial_tail``): P(X >= k), every k of n."""
    from debench.metrics.bootstrap import binomial_tail

    for k in range(0, n + 1, max(1, n // 40)):
        expected = binomtest(k, n, p, alternative="greater").pvalue
        assert binomial_tail(k, n, p) == pytest.approx(expected, abs=1e-12, rel=0)
