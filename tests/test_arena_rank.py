"""Ranking from judgment files with known answers: rules, ties, self-play, Kendall tau distance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import run_cli
from debench.arena.judgments import Judgment, load_judgments
from debench.arena.rank import kendall_tau_distance, rank_judgments
from debench.errors import UserError


def J(topic: str, s1: str, s2: str, w: int | None) -> Judgment:
    return Judgment(topic=topic, side1=s1, side2=s2, winner=w)


# A beats B on t1 (both legs); on t2 A wins one leg and the other is a tie; on t3 they split.
LEGS = [
    J("t1", "A", "B", 1), J("t1", "B", "A", 2),
    J("t2", "A", "B", 1), J("t2", "B", "A", None),
    J("t3", "A", "B", 2), J("t3", "B", "A", 2),
    J("t1", "A", "A", 1), J("t2", "B", "B", None),  # self-play
    J("t4", "A", "B", 1),  # one leg only: incomplete
]


def test_strict_and_lenient_rules_differ_on_win_plus_tie() -> None:
    strict = rank_judgments(LEGS, "strict", n_boot=50)
    lenient = rank_judgments(LEGS, "lenient", n_boot=50)
    assert strict["win_matrix"] == {"A": {"B": 1}, "B": {"A": 0}}
    assert lenient["win_matrix"] == {"A": {"B": 2}, "B": {"A": 0}}
    assert strict["topics_drawn"] == 2 and lenient["topics_drawn"] == 1
    assert strict["incomplete_pairs"] == lenient["incomplete_pairs"] == 1
    assert strict["ranking"] == ["A", "B"]


def test_self_play_is_reported_apart_and_never_ranked() -> None:
    r = rank_judgments(LEGS, "strict", n_boot=20)
    assert r["self_play"] == {"A": {"side1_wins": 1, "side2_wins": 0, "ties": 0}, "B": {"side1_wins": 0, "side2_wins": 0, "ties": 1}}
    assert r["models"] == ["A", "B"]
    # position bias over the 7 non-self-play legs: 6 decided, 3 won by side 1
    assert r["position_bias"]["n_decided"] == 6 and r["position_bias"]["n_ties"] == 1
    assert r["position_bias"]["side1_win_rate"] == pytest.approx(3 / 6)


def test_bradley_terry_follows_the_results_and_cis_hold_the_point() -> None:
    legs = []
    for t in range(6):
        legs += [J(f"t{t}", "strong", "mid", 1), J(f"t{t}", "mid", "strong", 2)]
        legs += [J(f"t{t}", "mid", "weak", 1), J(f"t{t}", "weak", "mid", 2)]
        legs += [J(f"t{t}", "strong", "weak", 1), J(f"t{t}", "weak", "strong", 1 if t == 0 else 2)]
    r = rank_judgments(legs, "strict", n_boot=200, seed=3)
    bt = r["bradley_terry"]
    assert bt["strong"]["score"] > bt["mid"]["score"] > bt["weak"]["score"]
    assert abs(sum(v["score"] for v in bt.values())) < 1e-6
    for v in bt.values():
        assert v["ci95"][0] <= v["score"] <= v["ci95"][1]
    assert r["ranking"] == ["strong", "mid", "weak"]
    assert rank_judgments(legs, "strict", n_boot=200, seed=3) == r  # seeded


@pytest.mark.parametrize(
    ("ranking", "reference", "expected"),
    [
        (list("abcd"), list("abcd"), 0.0),
        (list("abcd"), list("dcba"), 1.0),
        (list("abcd"), list("abdc"), 1 / 6),  # one adjacent swap among 4: 1 of 6 pairs
        (list("abcdefghi"), list("bacdfegih"), None),
    ],
)
def test_kendall_tau_distance_by_hand(ranking, reference, expected) -> None:  # type: ignore[no-untyped-def]
    d, missing = kendall_tau_distance(ranking, reference)
    if expected is None:
        # 9 models, adjacent swaps (a,b), (e,f), (h,i): 3 discordant pairs of 36 = 0.0833, the paper's figure
        assert d == pytest.approx(3 / 36) and round(d, 4) == 0.0833
    else:
        assert d == pytest.approx(expected)
    assert missing == []


def test_reference_missing_models_are_listed() -> None:
    d, missing = kendall_tau_distance(["a", "b", "x"], ["b", "a"])
    assert d == 1.0 and missing == ["x"]


def _write(tmp_path: Path, lines: list[str]) -> Path:
    p = tmp_path / "j.jsonl"
    p.write_text("\n".join(lines) + "\n")
    return p


def test_loader_rejects_bad_lines(tmp_path: Path) -> None:
    good = json.dumps({"topic": "t", "side1": "a", "side2": "b", "winner": 1})
    with pytest.raises(UserError, match="line 2: not valid JSON"):
        load_judgments(_write(tmp_path, [good, "{oops"]))
    with pytest.raises(UserError, match=r"line 1: .*field 'winner'|field 'winner'"):
        load_judgments(_write(tmp_path, [json.dumps({"topic": "t", "side1": "a", "side2": "b", "winner": 3})]))
    with pytest.raises(UserError, match="line 2: a second judgment"):
        load_judgments(_write(tmp_path, [good, good]))


def test_rank_cli(tmp_path: Path) -> None:
    lines = [json.dumps(j.model_dump()) for j in LEGS]
    jpath = _write(tmp_path, lines)
    ref = tmp_path / "ref.txt"
    ref.write_text("B\nA\n")
    out = tmp_path / "rank.json"
    proc = run_cli("arena", "rank", "--judgments", str(jpath), "--rule", "lenient", "--reference", str(ref), "--output", str(out),
                   "--plot", str(tmp_path / "bt.png"), "--n-boot", "100")
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    assert res["ranking"] == ["A", "B"] and res["kendall_tau_distance"] == 1.0 and res["rule"] == "lenient"
    assert "A " in proc.stdout and "total" in proc.stdout  # the printed matrix
    assert (tmp_path / "bt.png").stat().st_size > 1000
    bad = run_cli("arena", "rank", "--judgments", str(_write(tmp_path, ["nope"])), "--output", str(out))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
