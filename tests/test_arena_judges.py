"""Several judges on the same debates: loading, the panel's verdicts, per-judge rankings, the
distance between judges' rankings on the debates both judged, and Krippendorff's alpha (by hand
and against the ``krippendorff`` package)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from arena_synth import SynthJudge, simulate

from debench.arena.judges import agreement_alpha, majority, panel_verdicts
from debench.arena.judgment_table import load_judgment_files, table_of
from debench.arena.judgments import JUDGMENT_SCHEMA_PATH, Judgment
from debench.arena.rank import analyse_judgments
from debench.arena.topic_bootstrap import TopicDraws
from debench.core.errors import UserError
from debench.core.json_schema import validate_with_schema_file
from debench.metrics.alpha import alpha, unit_coincidences


def J(topic: str, s1: str, s2: str, w: int | None, judge: str | None = None) -> Judgment:
    return Judgment(topic=topic, side1=s1, side2=s2, winner=w, judge=judge)


def test_majority_verdict_and_panel() -> None:
    # columns: tie, side 1, side 2
    assert majority(np.array([[0, 2, 1], [0, 0, 1], [1, 1, 1], [0, 1, 1], [2, 1, 0]])).tolist() == [1, 2, 0, 0, 0]
    lines = [J("t", "a", "b", 1, "x"), J("t", "a", "b", 2, "y"), J("t", "a", "b", 2, "z"), J("t", "b", "a", 1, "x")]
    lines[1] = lines[1].model_copy(update={"side1_words": 120, "side2_words": 80})
    panel = panel_verdicts(table_of(lines))
    assert panel.winner.tolist() == [2, 1] and [panel.models[m] for m in panel.side1] == ["a", "b"]
    assert panel.words.tolist() == [[120, 80], [-1, -1]]  # from the first line that has them


def _draws(table, n_boot: int = 200):
    return TopicDraws(len(table.topics), n_boot, 0)


def test_krippendorff_alpha_by_hand() -> None:
    # Judge x: 1 1 2 2; judge y: 1 2 2 2. Coincidences: o11 = 2, o12 = o21 = 1, o22 = 4; n1 = 3, n2 = 5, n = 8.
    # D_o = 2/8, D_e = 2 * 3 * 5 / (8 * 7) = 30/56, alpha = 1 - (2/8) / (30/56) = 8/15.
    x = [J(f"t{k}", "a", "b", w, "x") for k, w in enumerate([1, 1, 2, 2])]
    y = [J(f"t{k}", "a", "b", w, "y") for k, w in enumerate([1, 2, 2, 2])]
    table = table_of(x + y)
    a = agreement_alpha(table, _draws(table))
    assert a.alpha == pytest.approx(8 / 15) and a.n_debates == 4 and a.n_judges == 2
    assert a.ci95 is not None and a.ci95[0] <= a.alpha <= a.ci95[1] + 1e-9 and 100 < a.draws_used < 200
    # Perfect agreement is 1; one value everywhere leaves alpha undefined (NaN here, null in the file).
    nominal = lambda counts: alpha(unit_coincidences(np.array(counts, dtype=float)).sum(axis=0), "nominal")[0]  # noqa: E731 - a one-line helper beside its use
    assert nominal([[0, 2, 0], [0, 0, 2], [2, 0, 0]]) == pytest.approx(1.0)
    assert np.isnan(nominal([[0, 2, 0], [0, 2, 0]]))
    assert np.isnan(nominal([[0, 1, 0]]))


@pytest.mark.parametrize("seed", range(6))
def test_alpha_equals_the_krippendorff_package(seed: int) -> None:
    """Three judges, some debates judged by one or two only, verdicts correlated with a truth."""
    rng = np.random.default_rng(seed)
    lines, reliability = [], np.full((3, 40), np.nan)
    for d in range(40):
        truth = int(rng.integers(0, 3))
        for judge in range(3):
            if rng.random() < 0.3:
                continue
            verdict = truth if rng.random() < 0.6 else int(rng.integers(0, 3))
            reliability[judge, d] = verdict
            lines.append(
                J(f"t{d // 4}", f"m{d % 4}", f"m{(d % 4 + 1) % 4}", None if verdict == 0 else verdict, f"judge{judge}")
            )
    table = table_of(lines)
    ours = agreement_alpha(table, _draws(table, 0)).alpha
    theirs = krippendorff.alpha(reliability_data=reliability, level_of_measurement="nominal", value_domain=[0, 1, 2])
    assert ours == pytest.approx(theirs, abs=1e-12)


@pytest.mark.slow  # simulated judges on many debates, with bootstrap CIs
def test_judges_who_agree_and_a_judge_who_reverses() -> None:
    strengths = {"A": 1.2, "B": 0.4, "C": -0.4, "D": -1.2}
    fair = simulate(strengths, [SynthJudge("fair1"), SynthJudge("fair2")], n_topics=25, seed=7)
    contrary = [
        j.model_copy(update={"judge": "contrary", "winner": None if j.winner is None else 3 - j.winner})
        for j in fair
        if j.judge == "fair1"
    ]
    r = analyse_judgments(fair + contrary, n_boot=100)
    # Judges in name order (issue 42: the ranking does not depend on the order of the lines).
    assert r.judges == ["contrary", "fair1", "fair2"] and r.verdicts.startswith("majority of 3 judges")
    assert r.per_judge["fair1"].ranking == ["A", "B", "C", "D"] == r.per_judge["fair2"].ranking
    assert r.per_judge["contrary"].ranking == ["D", "C", "B", "A"]
    pairs = {tuple(p.judges): p for p in r.judge_agreement.pairs}
    assert sorted(pairs) == [("contrary", "fair1"), ("contrary", "fair2"), ("fair1", "fair2")]
    assert pairs[("fair1", "fair2")].kendall_tau_distance == 0.0
    assert (
        pairs[("contrary", "fair1")].kendall_tau_distance
        == 1.0
        == pairs[("contrary", "fair1")].kendall_tau_distance_all_verdicts
    )
    assert pairs[("contrary", "fair1")].verdict_agreement == 0.0 and pairs[("contrary", "fair1")].n_debates == 25 * 12
    assert pairs[("contrary", "fair1")].n_models == 4
    # Two fair judges agree well above chance, the contrary one pulls alpha below zero.
    assert 0.3 < pairs[("fair1", "fair2")].verdict_agreement < 1.0
    alpha = r.judge_agreement.krippendorff_alpha
    assert alpha.alpha is not None and alpha.alpha < 0 and alpha.ci95 is not None and alpha.ci95[1] < 0.1
    fair_only = analyse_judgments(fair, n_boot=100).judge_agreement.krippendorff_alpha
    assert fair_only.alpha is not None and fair_only.alpha > 0.1 and fair_only.ci95[0] > 0
    # The panel (majority, a shared count is a tie) of fair1, fair2 and contrary.
    assert r.n_judgments == 25 * 12 and r.ranking == ["A", "B", "C", "D"]


def test_kendall_distance_is_over_the_debates_both_judges_decided() -> None:
    """Judge x decided every debate; judge y only those of topics 0-3, where it agrees with x on
    every verdict. Over all their own verdicts the two rankings differ (x saw topics where C beat
    B); on the debates both judged they are the same: distance 0, with its n."""

    def legs(topic: str, order: list[str], judge: str) -> list[Judgment]:
        out = []
        for a in order:
            for b in order:
                if a < b:
                    won = 1 if order.index(a) < order.index(b) else 2
                    out += [J(topic, a, b, won, judge), J(topic, b, a, 3 - won, judge)]
        return out

    shared = [j for t in range(4) for j in legs(f"t{t}", ["A", "B", "C"], "x")]
    x_only = [j for t in range(4, 12) for j in legs(f"t{t}", ["A", "C", "B"], "x")]
    y = [j.model_copy(update={"judge": "y"}) for j in shared]
    r = analyse_judgments(shared + x_only + y, n_boot=0, n_perm=0)
    (pair,) = r.judge_agreement.pairs
    assert r.per_judge["x"].ranking == ["A", "C", "B"] and r.per_judge["y"].ranking == ["A", "B", "C"]
    assert pair.kendall_tau_distance_all_verdicts == pytest.approx(1 / 3)
    assert pair.shared_rankings == {"x": ["A", "B", "C"], "y": ["A", "B", "C"]}
    assert pair.kendall_tau_distance == 0.0 and pair.n_debates == 4 * 6 and pair.n_models == 3
    assert pair.verdict_agreement == 1.0
    assert any(
        "kendall_tau_distance compares the two judges' rankings on the debates both judged" in c for c in r.conventions
    )


def test_one_judge_has_no_per_judge_sections() -> None:
    legs = simulate({"A": 0.5, "B": -0.5}, [SynthJudge(None)], n_topics=5, seed=1)
    r = analyse_judgments(legs, n_boot=10)
    assert r.judges == ["(unnamed judge)"] and r.per_judge == {} and r.judge_agreement is None
    assert r.verdicts == "one judge: (unnamed judge)"


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_loading_several_files(tmp_path: Path) -> None:
    row = {"topic": "t", "side1": "a", "side2": "b", "winner": 1}
    a = _write(tmp_path / "a.jsonl", [{**row, "judge": "x"}, {**row, "side1": "b", "side2": "a", "judge": "x"}])
    b = _write(tmp_path / "b.jsonl", [{**row, "judge": "y", "winner": None, "side1_words": 10, "side2_words": 12}])
    got = load_judgment_files([a, b])
    for r in ({**row, "judge": "x", "side1_words": 10, "side1_model_id": "h"}, row):
        validate_with_schema_file(r, JUDGMENT_SCHEMA_PATH)
    assert (  # rows in (topic, side 1, side 2, judge) order, not the lines' order
        [got.judges[j] for j in got.judge] == ["x", "y", "x"]
        and got.words[1].tolist() == [10, 12]
        and got.winner.tolist() == [1, 0, 1]
    )
    dup = _write(tmp_path / "dup.jsonl", [{**row, "judge": "x", "winner": 2}])
    with pytest.raises(
        UserError, match=r"dup.jsonl line 1: a second judgment .* by judge 'x'; the first is .*a.jsonl line 1"
    ):
        load_judgment_files([a, dup])
    old1, old2 = _write(tmp_path / "o1.jsonl", [row]), _write(tmp_path / "o2.jsonl", [row])
    with pytest.raises(UserError, match="by the unnamed judge \\(give each judge's lines a 'judge' field\\)"):
        load_judgment_files([old1, old2])
    with pytest.raises(UserError, match="field 'side1_words'"):
        load_judgment_files([_write(tmp_path / "neg.jsonl", [{**row, "side1_words": -3}])])
    with pytest.raises(UserError, match=re.escape("empty.jsonl: no judgments")):
        load_judgment_files([a, _write(tmp_path / "empty.jsonl", [])])
