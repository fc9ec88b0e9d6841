"""Self-preference: a judge that favours its own model is detected, an unbiased one is not (level
0.05, over seeds); identity by model id, falling back to names; a lone self-judging judge is named."""

from __future__ import annotations

import numpy as np
import pytest

from arena_synth import SynthJudge, simulate
from debench.arena.judges import by_judge
from debench.arena.judgments import Judgment
from debench.arena.rank import analyse_judgments
from debench.arena.self_preference import ModelIdentity, permutation_p_value, self_preference

STRENGTHS = {"alpha": 0.6, "beta": 0.2, "gamma": -0.2, "delta": -0.6}


def panel(self_bonus: float) -> list[SynthJudge]:
    """Judge 'alpha-judge' runs the debater alpha's model (same model id); two others do not."""
    return [
        SynthJudge("alpha-judge", model_id="id-alpha", own_model="alpha", self_bonus=self_bonus),
        SynthJudge("other-1", model_id="id-other-1"),
        SynthJudge("other-2", model_id="id-other-2", side1_bonus=0.3),
    ]


def entry_for(judgments: list[Judgment], seed: int):  # type: ignore[no-untyped-def]
    prefs = self_preference(by_judge(judgments), n_boot=200, n_perm=2000, seed=seed)
    assert [e.judge for e in prefs.entries] == ["alpha-judge"]
    return prefs.entries[0]


def test_a_self_favouring_judge_is_detected_on_every_seed() -> None:
    for seed in range(10):
        e = entry_for(simulate(STRENGTHS, panel(1.0), n_topics=20, seed=seed), seed)
        assert e.identity == "model_id" and e.debaters == ["alpha"] and e.other_judges == ["other-1", "other-2"]
        assert e.n_debates == 20 * 6  # alpha is in 3 pairs, 2 legs each
        assert e.detected is True and e.p_value is not None and e.p_value < 0.05, (seed, e)
        assert e.difference is not None and e.difference_ci95 is not None and e.difference_ci95[0] > 0
        assert e.own_judge_rate > e.other_judges_rate  # type: ignore[operator]


def test_an_unbiased_judge_is_rarely_flagged() -> None:
    flagged, p_values = 0, []
    for seed in range(20):
        e = entry_for(simulate(STRENGTHS, panel(0.0), n_topics=20, seed=100 + seed), seed)
        flagged += bool(e.detected)
        p_values.append(e.p_value)
    # At level 0.05 about 1 in 20 seeds is a false alarm; the p-values spread over (0, 1].
    assert flagged <= 2
    assert np.median(p_values) > 0.2


def test_a_self_deprecating_judge_is_not_called_self_preferring() -> None:
    e = entry_for(simulate(STRENGTHS, panel(-1.5), n_topics=20, seed=3), 3)
    assert e.p_value is not None and e.p_value < 0.05 and e.difference < 0 and e.detected is False  # type: ignore[operator]


def test_permutation_p_value_by_hand() -> None:
    # Two debates, two judges: own points (1, 1), other (0, 0): observed mean difference 1. The
    # four equally likely relabelings give differences 1, 0, 0, -1: P(|d| >= 1) = 1/2.
    rows = np.array([[1.0, 0.0], [1.0, 0.0]])
    p = permutation_p_value(rows, np.array([1.0, 1.0]), 1.0, n_perm=20000, seed=0)
    assert p == pytest.approx(0.5, abs=0.02)


def test_identity_uses_model_ids_and_falls_back_to_names() -> None:
    lines = [
        Judgment(topic="t", side1="gpt-x", side2="small", judge="gpt-x", judge_model_id="h1", side1_model_id="h2", side2_model_id="h3"),
        Judgment(topic="t", side1="gpt-x@temperature=0.9", side2="small", judge="judge-a", judge_model_id="h2", side1_model_id="h2", side2_model_id="h3"),
        Judgment(topic="t", side1="named", side2="small", judge="named"),
    ]
    ident = ModelIdentity(lines)
    assert ident.same("gpt-x", "gpt-x") is None  # same name, different model ids
    assert ident.same("judge-a", "gpt-x") == "model_id" and ident.same("judge-a", "gpt-x@temperature=0.9") == "model_id"
    assert ident.same("named", "named") == "name" and ident.same("judge-a", "small") is None


def test_other_judges_of_the_same_model_are_left_out_of_the_comparison() -> None:
    judges = panel(1.0) + [SynthJudge("alpha-judge-2", model_id="id-alpha")]
    prefs = self_preference(by_judge(simulate(STRENGTHS, judges, n_topics=5, seed=1)), n_boot=20, n_perm=200, seed=0)
    entries = {x.judge: x for x in prefs.entries}
    assert set(entries) == {"alpha-judge", "alpha-judge-2"}
    assert entries["alpha-judge"].other_judges == ["other-1", "other-2"] == entries["alpha-judge-2"].other_judges


def test_a_lone_self_judging_judge_is_named_in_the_output() -> None:
    legs = simulate(STRENGTHS, [SynthJudge("alpha", own_model="alpha", self_bonus=2.0)], n_topics=6, seed=1)
    r = analyse_judgments(legs, n_boot=50)
    (e,) = r.self_preference.entries
    assert e.judge == "alpha" and e.identity == "name" and e.difference is None and e.p_value is None and e.detected is None
    assert "only judge is also a debater" in (e.note or "") and any("self-preference of alpha: the only judge" in n for n in r.notes)
    assert e.n_debates == 6 * 6 and e.own_judge_rate is not None and e.own_judge_rate > 0.7
    unrelated = analyse_judgments(simulate(STRENGTHS, [SynthJudge("judge")], n_topics=3, seed=1), n_boot=10)
    assert unrelated.self_preference.entries == [] and "no judge is also a debater" in (unrelated.self_preference.note or "")
