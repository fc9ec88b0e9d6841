"""Length-controlled ratings on synthetic judgments where the judge's taste for length is planted."""

from __future__ import annotations

import numpy as np
import pytest
from arena_synth import SynthJudge, simulate

from debench.arena.judgments import Judgment
from debench.arena.rank import analyse_judgments
from debench.arena.style_control import normalised_difference, z_score
from debench.core.errors import UserError

STRENGTHS = {"A": 1.0, "B": 0.4, "C": -0.4, "D": -1.0}
# The weaker a debater, the more it talks.
VERBOSE_WEAK = {"A": 150.0, "B": 250.0, "C": 400.0, "D": 600.0}
PLANTED = ["A", "B", "C", "D"]


def test_normalised_difference_and_z_score() -> None:
    assert normalised_difference(np.array([300, 100, 0]), np.array([100, 300, 0])).tolist() == [0.5, -0.5, 0.0]
    z, mean, sd = z_score(np.array([[1.0, 2.0], [3.0, 2.0]]))
    assert z.tolist() == [[-1.0, 0.0], [1.0, 0.0]] and mean.tolist() == [2.0, 2.0] and sd.tolist() == [1.0, 0.0]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_length_loving_judge_has_a_large_length_coefficient_and_control_recovers_the_strengths(seed: int) -> None:
    legs = simulate(STRENGTHS, [SynthJudge(length_weight=2.0)], n_topics=30, seed=seed, verbosity=VERBOSE_WEAK)
    r = analyse_judgments(legs, n_boot=200, seed=seed)
    lc = r.length_controlled
    assert lc is not None and lc.controls == ["length"] and lc.n_debates == len(legs)
    length = lc.covariates["length"]
    assert length.coefficient is not None and length.ci95 is not None
    assert 1.4 < length.coefficient < 2.6 and length.ci95[0] > 1.0  # planted: 2 logits per SD
    assert lc.ranking == PLANTED
    # Without control the talkative weak models climb: the plain ranking is wrong, and far from the controlled one.
    assert (
        lc.plain_ranking != PLANTED
        and lc.kendall_tau_distance_to_plain is not None
        and lc.kendall_tau_distance_to_plain >= 0.5
    )
    for s in lc.bradley_terry.values():
        assert s.ci95 is not None and s.ci95[0] <= s.score <= s.ci95[1]


def test_a_judge_indifferent_to_length_gets_a_coefficient_near_zero() -> None:
    legs = simulate(STRENGTHS, [SynthJudge(length_weight=0.0)], n_topics=30, seed=4, verbosity=VERBOSE_WEAK)
    lc = analyse_judgments(legs, n_boot=200).length_controlled
    assert lc is not None
    c = lc.covariates["length"]
    assert c.ci95 is not None and c.ci95[0] < 0 < c.ci95[1] and abs(c.coefficient or 0) < 0.4
    # Here talking is a sign of weakness only through who talks: controlling keeps the order.
    assert lc.ranking == PLANTED == lc.plain_ranking


def _with(legs: list[Judgment], **fields: object) -> list[Judgment]:
    return [j.model_copy(update=fields) for j in legs]


def test_missing_words_skip_the_control_with_a_note_and_sources_are_a_second_covariate() -> None:
    legs = simulate(STRENGTHS, [SynthJudge(length_weight=1.0)], n_topics=6, seed=5, verbosity=VERBOSE_WEAK)
    partly = legs[:-1] + _with(legs[-1:], side2_words=None)
    r = analyse_judgments(partly, n_boot=20)
    assert r.length_controlled is None
    assert any("1 of 72 debates lack side1_words/side2_words" in n for n in r.notes)
    r = analyse_judgments(legs, n_boot=20, controls=("length", "sources"))
    assert r.length_controlled is None and any("sources control skipped" in n for n in r.notes)
    rng = np.random.default_rng(0)
    with_sources = [
        j.model_copy(update={"side1_sources": int(rng.integers(0, 4)), "side2_sources": int(rng.integers(0, 4))})
        for j in legs
    ]
    lc = analyse_judgments(with_sources, n_boot=20, controls=("length", "sources")).length_controlled
    assert lc is not None and list(lc.covariates) == ["length", "sources"]
    assert lc.covariates["sources"].raw_sd > 0 and lc.covariates["sources"].coefficient is not None
    # A covariate that never varies cannot be estimated: no coefficient, no interval.
    flat = analyse_judgments(
        _with(legs, side1_sources=2, side2_sources=2), n_boot=20, controls=("length", "sources")
    ).length_controlled
    assert (
        flat is not None and flat.covariates["sources"].coefficient is None and flat.covariates["sources"].ci95 is None
    )
    assert analyse_judgments(legs, n_boot=0, controls=()).length_controlled is None
    with pytest.raises(UserError, match="unknown control 'style'"):
        analyse_judgments(legs, n_boot=0, controls=("style",))
