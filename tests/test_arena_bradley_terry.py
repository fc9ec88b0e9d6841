"""Bradley–Terry fits with planted truths: strengths, covariate coefficients, Davidson's tie parameter;
the Newton fit on aggregated cells against scipy's optimiser on the games one by one."""

from __future__ import annotations

import math

import numpy as np
import pytest
from arena_synth import fit_games

from debench.arena.bradley_terry import ELO_PER_LOGIT, LOG_NU_MAX


def planted_games(n_games: int, strengths: np.ndarray, beta: float, nu: float, seed: int) -> tuple[np.ndarray, ...]:
    """Games drawn from Davidson's model (nu = 0: plain Bradley–Terry) with one covariate."""
    rng = np.random.default_rng(seed)
    n = len(strengths)
    i = rng.integers(0, n, n_games)
    j = (i + rng.integers(1, n, n_games)) % n
    x = rng.normal(size=(n_games, 1))
    a = (strengths[i] - strengths[j] + beta * x[:, 0]) / 2
    w = np.stack([np.exp(a), np.exp(-a), np.full(n_games, nu)], axis=1)
    u = rng.random(n_games)[:, None]
    k = (u > np.cumsum(w / w.sum(axis=1, keepdims=True), axis=1)).sum(axis=1)
    y = np.select([k == 0, k == 1], [1.0, 0.0], 0.5)
    return i, j, y, x


TRUE = np.array([-1.0, -0.4, 0.1, 0.5, 0.8])


def test_strengths_and_covariate_are_recovered_jointly() -> None:
    i, j, y, x = planted_games(30000, TRUE, beta=0.7, nu=0.0, seed=1)
    fit = fit_games(5, i, j, y, x)
    assert fit.nu is None
    assert np.allclose(fit.strengths, TRUE - TRUE.mean(), atol=0.06)
    assert fit.beta[0] == pytest.approx(0.7, abs=0.05)
    assert abs(fit.strengths.sum()) < 1e-9
    # Without the covariate (independent of who plays here) the order of the strengths still holds.
    assert np.all(np.diff(fit_games(5, i, j, y).strengths) > 0)


@pytest.mark.parametrize("nu", [0.3, 1.0, 2.5])
def test_davidson_recovers_a_planted_tie_parameter(nu: float) -> None:
    i, j, y, x = planted_games(30000, TRUE, beta=0.5, nu=nu, seed=2)
    fit = fit_games(5, i, j, y, x, ties="davidson")
    assert fit.nu == pytest.approx(nu, rel=0.08)
    assert np.allclose(fit.strengths, TRUE - TRUE.mean(), atol=0.07)
    assert fit.beta[0] == pytest.approx(0.5, abs=0.06)
    # Half-win Bradley–Terry on the same games shrinks the strengths: draws pull everyone to the middle.
    half = fit_games(5, i, j, y, x)
    assert np.ptp(half.strengths) < np.ptp(fit.strengths)


def test_davidson_without_draws_is_plain_bradley_terry_and_all_draws_are_capped() -> None:
    i, j, y, _ = planted_games(2000, TRUE, beta=0.0, nu=0.0, seed=3)
    assert not np.any(y == 0.5)
    dav, plain = fit_games(5, i, j, y, ties="davidson"), fit_games(5, i, j, y)
    assert dav.nu == 0.0 and np.allclose(dav.strengths, plain.strengths)
    all_draws = fit_games(5, i, j, np.full(len(i), 0.5), ties="davidson")
    assert (
        all_draws.nu is not None
        and all_draws.nu == pytest.approx(math.exp(LOG_NU_MAX))
        and np.allclose(all_draws.strengths, 0, atol=1e-6)
    )


def scores_of(models: list[str], games: list[tuple[str, str, float]], l2: float = 0.01) -> dict[str, float]:
    index = {m: k for k, m in enumerate(models)}
    fit = fit_games(
        len(models),
        np.array([index[a] for a, _, _ in games]),
        np.array([index[b] for _, b, _ in games]),
        np.array([r for _, _, r in games]),
        l2=l2,
    )
    return {m: float(fit.strengths[index[m]] * ELO_PER_LOGIT) for m in models}


def test_empty_and_one_sided_records_stay_finite() -> None:
    empty = fit_games(3, np.array([], dtype=int), np.array([], dtype=int), np.array([]), ties="davidson")
    assert np.all(empty.strengths == 0) and empty.nu == 0.0
    # A model that won everything: the penalty keeps its strength finite, and it is first.
    scores = scores_of(["a", "b", "c"], [("a", "b", 1.0)] * 20 + [("a", "c", 1.0)] * 20 + [("b", "c", 0.5)] * 4)
    assert all(math.isfinite(v) for v in scores.values())
    assert scores["a"] > scores["b"] == pytest.approx(scores["c"])
    assert sum(scores.values()) == pytest.approx(0, abs=1e-6)


def test_elo_scale_is_400_over_ln10_per_logit() -> None:
    games = [("a", "b", 1.0)] * 750 + [("a", "b", 0.0)] * 250  # P(a beats b) = 3/4: a - b = ln 3 logits
    scores = scores_of(["a", "b"], games, l2=0.0)
    assert scores["a"] - scores["b"] == pytest.approx(math.log(3) * ELO_PER_LOGIT, rel=1e-4)


@pytest.mark.parametrize("ties", ["half", "davidson"])
@pytest.mark.parametrize("with_x", [False, True])
def test_the_newton_fit_on_cells_equals_scipy_on_each_game(ties: str, with_x: bool) -> None:
    """The same penalised likelihood, minimised game by game by scipy's trust-region method."""
    from benchmarks.arena_reference import fit_per_game

    i, j, y, x = planted_games(4000, TRUE, beta=0.6, nu=0.5, seed=5)
    ours = fit_games(5, i, j, y, x if with_x else None, ties=ties)
    ref = fit_per_game(5, i, j, y, x if with_x else None, ties=ties)
    assert ours.converged
    assert np.allclose(ours.strengths, ref.strengths, atol=1e-6)
    assert np.allclose(ours.beta, ref.beta, atol=1e-6)
    assert (ours.nu is None) == (ref.nu is None) and (ours.nu is None or ours.nu == pytest.approx(ref.nu, rel=1e-6))
