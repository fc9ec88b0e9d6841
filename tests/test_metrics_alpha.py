"""debench's one Krippendorff's alpha (``metrics.alpha``, from coincidence matrices) equals the
``krippendorff`` package's, nominal and ordinal, with missing ratings, and a resample's alpha is
the alpha of its units' matrices weighted by how often each unit was drawn."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest

from debench.metrics.alpha import alpha, unit_coincidences


def _reliability(seed: int, coders: int, units: int, values: int) -> np.ndarray:
    """Coders x units, values 0..values-1 correlated with a truth per unit, about a third missing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, values, units)
    data = np.where(rng.random((coders, units)) < 0.6, truth, rng.integers(0, values, (coders, units))).astype(float)
    data[rng.random((coders, units)) < 0.35] = np.nan
    return data


def _counts(data: np.ndarray, values: int) -> np.ndarray:
    return np.stack([(data == v).sum(axis=0) for v in range(values)], axis=1).astype(float)


@pytest.mark.parametrize("level", ["nominal", "ordinal"])
@pytest.mark.parametrize("seed", range(5))
def test_equals_the_krippendorff_package(level: str, seed: int) -> None:
    data = _reliability(seed, coders=4 + seed, units=60, values=3 + seed % 3)
    values = 3 + seed % 3
    got, _ = alpha(unit_coincidences(_counts(data, values)).sum(axis=0), level)
    ref = krippendorff.alpha(reliability_data=data, value_domain=np.arange(values), level_of_measurement=level)
    assert float(got) == pytest.approx(ref, abs=1e-9)


def test_a_resample_is_its_units_matrices_weighted() -> None:
    data = _reliability(7, coders=5, units=40, values=5)
    per_unit = unit_coincidences(_counts(data, 5))
    rng = np.random.default_rng(1)
    draws = [rng.integers(0, 40, 40) for _ in range(3)]
    weights = np.array([np.bincount(d, minlength=40) for d in draws], dtype=float)
    got, _ = alpha(np.einsum("bu,uvw->bvw", weights, per_unit), "ordinal")
    for b, d in enumerate(draws):
        ref = krippendorff.alpha(reliability_data=data[:, d], value_domain=np.arange(5), level_of_measurement="ordinal")
        assert got[b] == pytest.approx(ref, abs=1e-9)


def test_undefined_without_pairs_or_without_disagreement() -> None:
    one_value = alpha(unit_coincidences(np.array([[0, 3, 0], [0, 2, 0]], dtype=float)).sum(axis=0), "ordinal")
    unpaired = alpha(unit_coincidences(np.array([[1, 0, 0], [0, 1, 0]], dtype=float)).sum(axis=0), "nominal")
    assert np.isnan(one_value[0]) and one_value[1] == 0 and np.isnan(unpaired[0])
