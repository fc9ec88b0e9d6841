"""Several judges on the same debates: loading, the panel's verdicts, per-judge rankings, the
distance between judges' rankings and Krippendorff's alpha (checked by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from arena_synth import SynthJudge, simulate
from debench.arena.judges import agreement_alpha, by_judge, majority_verdict, nominal_alpha, panel_verdicts
from debench.arena.judgments import JUDGMENT_SCHEMA_PATH, Judgment, load_judgment_files
from debench.arena.rank import analyse_judgments
from debench.errors import UserError
from debench.json_schema import validate_with_schema_file


def J(topic: str, s1: str, s2: str, w: int | None, judge: str | None = None) -> Judgment:
    return Judgment(topic=topic, side1=s1, side2=s2, winner=w, judge=judge)


def test_majority_verdict_and_panel() -> None:
    assert majority_verdict([1, 1, 2]) == 1
    assert majority_verdict([2]) == 2
    assert majority_verdict([1, 2, None]) is None  # no majority: a tie
    assert majority_verdict([1, 2]) is None
    assert majority_verdict([None, None, 1]) is None  # the majority says tie
    lines = [J("t", "a", "b", 1, "x"), J("t", "a", "b", 2, "y"), J("t", "a", "b", 2, "z"), J("t", "b", "a", 1, "x")]
    lines[0] = lines[0].model_copy(update={"side1_words": 120, "side2_words": 80})
    panel = {j.debate: j for j in panel_verdicts(lines)}
    assert panel[("t", "a", "b")].winner == 2 and panel[("t", "b", "a")].winner == 1
    assert panel[("t", "a", "b")].side1_words == 120 and panel[("t", "a", "b")].judge is None


def test_krippendorff_alpha_by_hand() -> None:
    # Judge x: 1 1 2 2; judge y: 1 2 2 2. Coincidences: o11 = 2, o12 = o21 = 1, o22 = 4; n1 = 3, n2 = 5, n = 8.
    # D_o = 2/8, D_e = 2 * 3 * 5 / (8 * 7) = 30/56, alpha = 1 - (2/8) / (30/56) = 8/15.
    x = [J(f"t{k}", "a", "b", w, "x") for k, w in enumerate([1, 1, 2, 2])]
    y = [J(f"t{k}", "a", "b", w, "y") for k, w in enumerate([1, 2, 2, 2])]
    a = agreement_alpha(by_judge(x + y), n_boot=200, seed=0)
    assert a.alpha == pytest.approx(8 / 15) and a.n_debates == 4 and a.n_judges == 2
    assert a.ci95 is not None and a.ci95[0] <= a.alpha <= a.ci95[1] + 1e-9
    # Perfect agreement is 1; one value everywhere leaves alpha undefined (None, never NaN).
    assert nominal_alpha(np.array([[0, 2, 0], [0, 0, 2], [2, 0, 0]], dtype=float)) == pytest.approx(1.0)
    assert nominal_alpha(np.array([[0, 2, 0], [0, 2, 0]], dtype=float)) is None
    assert nominal_alpha(np.array([[0, 1, 0]], dtype=float)) is None


@pytest.mark.slow  # simulated judges on many debates, with bootstrap CIs
def test_judges_who_agree_and_a_judge_who_reverses() -> None:
    strengths = {"A": 1.2, "B": 0.4, "C": -0.4, "D": -1.2}
    fair = simulate(strengths, [SynthJudge("fair1"), SynthJudge("fair2")], n_topics=25, seed=7)
    contrary = [j.model_copy(update={"judge": "contrary", "winner": None if j.winner is None else 3 - j.winner}) for j in fair if j.judge == "fair1"]
    r = analyse_judgments(fair + contrary, n_boot=100)
    assert r.judges == ["fair1", "fair2", "contrary"] and r.verdicts.startswith("majority of 3 judges")
    assert r.per_judge["fair1"].ranking == ["A", "B", "C", "D"] == r.per_judge["fair2"].ranking
    assert r.per_judge["contrary"].ranking == ["D", "C", "B", "A"]
    pairs = {tuple(p.judges): p for p in r.judge_agreement.pairs}  # type: ignore[union-attr]
    assert pairs[("fair1", "fair2")].kendall_tau_distance == 0.0
    assert pairs[("fair1", "contrary")].kendall_tau_distance == 1.0
    assert pairs[("fair1", "contrary")].verdict_agreement == 0.0 and pairs[("fair1", "contrary")].n_debates == 25 * 12
    # Two fair judges agree well above chance, the contrary one pulls alpha below zero.
    assert 0.3 < pairs[("fair1", "fair2")].verdict_agreement < 1.0  # type: ignore[operator]
    alpha = r.judge_agreement.krippendorff_alpha  # type: ignore[union-attr]
    assert alpha.alpha is not None and alpha.alpha < 0 and alpha.ci95 is not None and alpha.ci95[1] < 0.1
    fair_only = analyse_judgments(fair, n_boot=100).judge_agreement.krippendorff_alpha  # type: ignore[union-attr]
    assert fair_only.alpha is not None and fair_only.alpha > 0.1 and fair_only.ci95[0] > 0  # type: ignore[index]
    # The panel (majority, a shared count is a tie) of fair1, fair2 and contrary.
    assert r.n_judgments == 25 * 12 and r.ranking == ["A", "B", "C", "D"]


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
    assert [j.judge for j in got] == ["x", "x", "y"] and got[2].side2_words == 12
    dup = _write(tmp_path / "dup.jsonl", [{**row, "judge": "x", "winner": 2}])
    with pytest.raises(UserError, match=r"dup.jsonl: line 1: a second judgment .* by judge 'x'; the first is .*a.jsonl line 1"):
        load_judgment_files([a, dup])
    old1, old2 = _write(tmp_path / "o1.jsonl", [row]), _write(tmp_path / "o2.jsonl", [row])
    with pytest.raises(UserError, match="by the unnamed judge \\(give each judge's lines a 'judge' field\\)"):
        load_judgment_files([old1, old2])
    with pytest.raises(UserError, match="field 'side1_words'"):
        load_judgment_files([_write(tmp_path / "neg.jsonl", [{**row, "side1_words": -3}])])
    with pytest.raises(UserError, match="empty.jsonl: no judgments"):
        load_judgment_files([a, _write(tmp_path / "empty.jsonl", [])])
