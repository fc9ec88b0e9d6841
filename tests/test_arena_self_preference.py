"""Self-preference: a judge that favours its own model is detected, an unbiased one is not (level
0.05, over seeds); identity by model id, then the judge's model id as a debater's name, then the
judge's label; a lone self-judging judge is named."""

from __future__ import annotations

import numpy as np
import pytest
from arena_synth import SynthJudge, simulate

from debench.arena.judgment_table import table_of
from debench.arena.judgments import Judgment
from debench.arena.rank import analyse_judgments
from debench.arena.self_preference import ModelIdentity, permutation_p_value, self_preference
from debench.arena.topic_bootstrap import TopicDraws

STRENGTHS = {"alpha": 0.6, "beta": 0.2, "gamma": -0.2, "delta": -0.6}


def panel(self_bonus: float) -> list[SynthJudge]:
    """Judge 'alpha-judge' runs the debater alpha's model (same model id); two others do not."""
    return [
        SynthJudge("alpha-judge", model_id="id-alpha", own_model="alpha", self_bonus=self_bonus),
        SynthJudge("other-1", model_id="id-other-1"),
        SynthJudge("other-2", model_id="id-other-2", side1_bonus=0.3),
    ]


def entry_for(judgments: list[Judgment], seed: int):
    table = table_of(judgments)
    prefs = self_preference(table, TopicDraws(len(table.topics), 200, seed), n_perm=2000)
    assert [e.judge for e in prefs.entries] == ["alpha-judge"]
    return prefs.entries[0]


def test_a_self_favouring_judge_is_detected_on_every_seed() -> None:
    for seed in range(10):
        e = entry_for(simulate(STRENGTHS, panel(1.0), n_topics=20, seed=seed), seed)
        assert e.identity == "model_id" and e.debaters == ["alpha"] and e.other_judges == ["other-1", "other-2"]
        assert e.n_debates == 20 * 6  # alpha is in 3 pairs, 2 legs each
        assert e.detected is True and e.p_value is not None and e.p_value < 0.05, (seed, e)
        assert e.difference is not None and e.difference_ci95 is not None and e.difference_ci95[0] > 0
        assert e.own_judge_rate > e.other_judges_rate


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
    assert e.p_value is not None and e.p_value < 0.05 and e.difference < 0 and e.detected is False


def test_permutation_p_value_by_hand() -> None:
    # Two debates, two judges: own points (1, 1), other (0, 0): observed mean difference 1. The
    # four equally likely relabelings give differences 1, 0, 0, -1: P(|d| >= 1) = 1/2.
    # Per debate, how many of its verdicts give the own side 0, 0.5 and 1 point:
    values = np.array([[1, 0, 1], [1, 0, 1]])
    p = permutation_p_value(values, np.array([1, 1]), 1.0, n_perm=20000, seed=0)
    assert p == pytest.approx(0.5, abs=0.02)


def test_permutation_p_value_equals_shuffling_debate_by_debate() -> None:
    """Drawing per kind of debate (multinomial) has the distribution of shuffling which judge is
    the own one in every debate: both p-values agree within Monte Carlo error."""
    rng = np.random.default_rng(3)
    n, k = 60, 2
    rows = rng.choice([0.0, 0.5, 1.0], size=(n, k + 1), p=[0.3, 0.2, 0.5])
    rows[:, 0] = np.minimum(1.0, rows[:, 0] + 0.5 * (rng.random(n) < 0.3))  # a mild preference
    observed = float((rows[:, 0] - rows[:, 1:].mean(axis=1)).mean())
    values = np.stack([(rows == v).sum(axis=1) for v in (0.0, 0.5, 1.0)], axis=1)
    ours = permutation_p_value(values, np.full(n, k), observed, n_perm=20000, seed=1)
    pick = rng.integers(0, k + 1, size=(20000, n))
    chosen = rows[np.arange(n), pick]
    stats = (chosen - (rows.sum(axis=1) - chosen) / k).mean(axis=1)
    shuffled = (1 + np.sum(np.abs(stats) >= abs(observed) - 1e-12)) / 20001
    assert 0.005 < shuffled < 0.5 and ours == pytest.approx(
        shuffled, abs=4 * np.sqrt(shuffled * (1 - shuffled) / 20000) + 1e-3
    )


def test_identity_uses_model_ids_then_the_judge_model_id_then_the_label() -> None:
    lines = [
        Judgment(
            topic="t",
            winner=1,
            side1="gpt-x",
            side2="small",
            judge="gpt-x",
            judge_model_id="h1",
            side1_model_id="h2",
            side2_model_id="h3",
        ),
        Judgment(
            topic="t",
            winner=1,
            side1="gpt-x@temperature=0.9",
            side2="small",
            judge="judge-a",
            judge_model_id="h2",
            side1_model_id="h2",
            side2_model_id="h3",
        ),
        Judgment(topic="t", winner=1, side1="named", side2="plain", judge="named"),
        Judgment(topic="t", winner=1, side1="plain", side2="named", judge="GPT-4 as judge", judge_model_id="plain"),
    ]
    ident = ModelIdentity(table_of(lines))
    assert ident.same("gpt-x", "gpt-x") is None  # same name, different model ids: ids decide
    assert ident.same("judge-a", "gpt-x") == "model_id" and ident.same("judge-a", "gpt-x@temperature=0.9") == "model_id"
    assert ident.same("named", "named") == "name" and ident.same("judge-a", "small") is None
    # the label names no debater, its judge_model_id does (the debater having no id)
    assert ident.same("GPT-4 as judge", "plain") == "model_id_as_name" and ident.same("GPT-4 as judge", "named") is None


def test_a_debater_with_model_ids_is_never_matched_by_the_judge_label() -> None:
    """docs/arena.md: a name match requires the debater to have no model id. A judge without a
    model id, labelled like a debater that carries one, is not that debater's model."""
    lines = [
        Judgment(
            topic="t", winner=1, side1="gpt-x", side2="small", judge="gpt-x", side1_model_id="h2", side2_model_id="h3"
        ),
        Judgment(topic="t", winner=2, side1="bare", side2="small", judge="bare", side2_model_id="h3"),
    ]
    ident = ModelIdentity(table_of(lines))
    assert ident.same("gpt-x", "gpt-x") is None
    assert ident.same("bare", "bare") == "name"  # no model id on the debater: its name decides


def test_self_preference_found_through_judge_model_id_when_sides_carry_no_ids() -> None:
    """A published two-judge file: debaters by name only, the judges labelled as people would
    label them and identified by judge_model_id. The favouring judge is found through its model
    id (its label matches no debater) and its preference is detected."""
    judges = [SynthJudge("Judge A", own_model="alpha", self_bonus=1.5), SynthJudge("Judge B")]
    legs = simulate(STRENGTHS, judges, n_topics=20, seed=2)
    published = [
        j.model_copy(
            update={
                "side1_model_id": None,
                "side2_model_id": None,
                "judge_model_id": "alpha" if j.judge == "Judge A" else "some-other-model",
            }
        )
        for j in legs
    ]
    table = table_of(published)
    (e,) = self_preference(table, TopicDraws(len(table.topics), 200, 0), n_perm=2000).entries
    assert (
        e.judge == "Judge A"
        and e.debaters == ["alpha"]
        and e.identity == "model_id_as_name"
        and e.other_judges == ["Judge B"]
    )
    assert e.detected is True and e.draws_used == 200
    # by label alone nothing would have matched: the same file without judge_model_id
    bare = table_of([j.model_copy(update={"judge_model_id": None}) for j in published])
    assert self_preference(bare, TopicDraws(len(bare.topics), 20, 0), n_perm=100).entries == []


def test_other_judges_of_the_same_model_are_left_out_of_the_comparison() -> None:
    judges = [*panel(1.0), SynthJudge("alpha-judge-2", model_id="id-alpha")]
    table = table_of(simulate(STRENGTHS, judges, n_topics=5, seed=1))
    prefs = self_preference(table, TopicDraws(len(table.topics), 20, 0), n_perm=200)
    entries = {x.judge: x for x in prefs.entries}
    assert set(entries) == {"alpha-judge", "alpha-judge-2"}
    assert entries["alpha-judge"].other_judges == ["other-1", "other-2"] == entries["alpha-judge-2"].other_judges


def test_a_lone_self_judging_judge_is_named_in_the_output() -> None:
    legs = simulate(STRENGTHS, [SynthJudge("alpha", own_model="alpha", self_bonus=2.0)], n_topics=6, seed=1)
    # debaters by name only (a debater with model ids is never matched by the judge's label)
    legs = [j.model_copy(update={"side1_model_id": None, "side2_model_id": None}) for j in legs]
    r = analyse_judgments(legs, n_boot=50)
    (e,) = r.self_preference.entries
    assert (
        e.judge == "alpha"
        and e.identity == "name"
        and e.difference is None
        and e.p_value is None
        and e.detected is None
    )
    assert "only judge is also a debater" in (e.note or "") and any(
        "self-preference of alpha: the only judge" in n for n in r.notes
    )
    assert e.n_debates == 6 * 6 and e.own_judge_rate is not None and e.own_judge_rate > 0.7
    unrelated = analyse_judgments(simulate(STRENGTHS, [SynthJudge("judge")], n_topics=3, seed=1), n_boot=10)
    assert unrelated.self_preference.entries == [] and "no judge is also a debater" in (
        unrelated.self_preference.note or ""
    )
