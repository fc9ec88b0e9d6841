"""Ranking from judgment files with known answers: rules, ties, self-play, Kendall tau distance."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clihelp import run_cli
from debench.arena.judgments import Judgment, load_judgments
from debench.arena.rank import analyse_judgments, rank_judgments
from debench.arena.ranking_distance import kendall_tau_distance
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


@pytest.mark.slow  # bootstrap, permutations and a PNG plot through the CLI
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


# Moniri, Hassani & Dobriban, Table 1 (GPT-4 judging, strict rule, 25 topics): "x-y" = topics won by
# the row model - by the column model; the other topics were split. Self-play (the diagonal) left out.
MONIRI_MODELS = ["Llama-2-7b", "Llama-2-13b", "Llama-2-70b", "Llama-3-70b", "Vicuna-7b", "Vicuna-13b", "Mixtral-8x7B", "GPT-3.5", "GPT-4"]
MONIRI_TABLE = [
    "0-6 0-9 0-11 9-0 6-2 1-8 0-5 0-24",
    "0-7 2-13 14-0 8-0 0-5 0-7 0-22",
    "0-9 13-0 12-0 2-1 1-2 0-21",
    "23-0 17-0 6-0 5-0 0-13",
    "0-3 0-11 0-18 0-24",
    "0-13 0-13 0-23",
    "0-3 0-24",
    "1-14",
]


def moniri_legs() -> tuple[list[Judgment], dict[str, dict[str, int]]]:
    legs, expected = [], {a: {b: 0 for b in MONIRI_MODELS if b != a} for a in MONIRI_MODELS}
    for r, row in enumerate(MONIRI_TABLE):
        for c, cell in enumerate(row.split(), start=r + 1):
            a, b = MONIRI_MODELS[r], MONIRI_MODELS[c]
            wins_a, wins_b = (int(v) for v in cell.split("-"))
            expected[a][b], expected[b][a] = wins_a, wins_b
            for t in range(25):
                w1, w2 = (1, 2) if t < wins_a else (2, 1) if t < wins_a + wins_b else (1, 1)  # (a at home, b at home)
                legs += [Judgment(topic=f"topic {t}", side1=a, side2=b, winner=w1, judge="GPT-4"),
                         Judgment(topic=f"topic {t}", side1=b, side2=a, winner=w2, judge="GPT-4")]
    return legs, expected


def test_moniri_table_1_reproduces_with_one_judge() -> None:
    legs, expected = moniri_legs()
    # A reference order consistent with the paper's reported 0.0833 to Chatbot Arena (3 of 36 pairs
    # swapped: GPT-3.5 and Llama-2-70b below Mixtral, Vicuna-13b above Llama-2-7b).
    reference = ["GPT-4", "Llama-3-70b", "Mixtral-8x7B", "GPT-3.5", "Llama-2-70b", "Llama-2-13b", "Vicuna-13b", "Llama-2-7b", "Vicuna-7b"]
    r = analyse_judgments(legs, "strict", reference, n_boot=100)
    assert r.win_matrix == expected
    assert r.topic_wins == {"GPT-4": 165, "Llama-3-70b": 84, "GPT-3.5": 49, "Llama-2-70b": 44, "Mixtral-8x7B": 38,
                            "Llama-2-13b": 30, "Llama-2-7b": 16, "Vicuna-13b": 5, "Vicuna-7b": 0}
    assert r.ranking == ["GPT-4", "Llama-3-70b", "GPT-3.5", "Llama-2-70b", "Mixtral-8x7B", "Llama-2-13b", "Llama-2-7b", "Vicuna-13b", "Vicuna-7b"]
    assert r.kendall_tau_distance is not None and round(r.kendall_tau_distance, 4) == 0.0833
    assert analyse_judgments(legs, "lenient", n_boot=0).win_matrix == expected  # no tied leg: the rules agree
    # GPT-4 judged debates it took part in, alone: the report says self-preference cannot be measured.
    (e,) = r.self_preference.entries
    assert e.judge == "GPT-4" and e.debaters == ["GPT-4"] and e.p_value is None and "only judge" in (e.note or "")
    assert r.length_controlled is None and any("lack side1_words/side2_words" in n for n in r.notes)
    assert r.davidson["strict"].n_drawn == r.topics_drawn == 36 * 25 - sum(sum(row.values()) for row in expected.values())


def test_ranking_file_follows_its_schema(tmp_path: Path) -> None:
    from arena_synth import SynthJudge, simulate

    from debench.arena.ranking_file import ARENA_RANKING_SCHEMA_PATH
    from debench.json_schema import validate_with_schema_file

    legs = simulate({"A": 0.5, "B": 0.0, "C": -0.5}, [SynthJudge("x", length_weight=1.0), SynthJudge("A", nu=0.3)], n_topics=6, seed=2)
    validate_with_schema_file(rank_judgments(legs, "lenient", ["A", "B"], n_boot=30, n_perm=100), ARENA_RANKING_SCHEMA_PATH)
    validate_with_schema_file(rank_judgments(LEGS, n_boot=0), ARENA_RANKING_SCHEMA_PATH)


@pytest.mark.slow  # bootstrap, permutations, style control and a PNG plot (matplotlib) through the CLI
def test_rank_cli_with_two_judges_in_two_files(tmp_path: Path) -> None:
    from arena_synth import SynthJudge, simulate

    legs = simulate({"A": 1.0, "B": 0.0, "C": -1.0}, [SynthJudge("x", length_weight=1.5), SynthJudge("y")], n_topics=8, seed=4)
    files = []
    for judge in ("x", "y"):
        p = tmp_path / f"{judge}.jsonl"
        p.write_text("".join(j.model_dump_json(exclude_none=True) + "\n" for j in legs if j.judge == judge))
        files += ["--judgments", str(p)]
    out, png = tmp_path / "rank.json", tmp_path / "ratings.png"
    proc = run_cli("arena", "rank", *files, "--output", str(out), "--plot", str(png), "--n-boot", "50", "--n-perm", "200", "--control", "length")
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    assert res["judges"] == ["x", "y"] and set(res["per_judge"]) == {"x", "y"}
    assert res["settings"]["judgments_files"] == [str(tmp_path / "x.jsonl"), str(tmp_path / "y.jsonl")] and res["settings"]["n_permutations"] == 200
    assert res["per_judge"]["x"]["length_controlled"]["covariates"]["length"]["coefficient"] > 0.5
    assert "Krippendorff's alpha (nominal)" in proc.stdout and "style-controlled ranking" in proc.stdout and "Davidson tie parameter" in proc.stdout
    assert png.stat().st_size > 1000
    again = run_cli("arena", "rank", *files[:2], *files[:2], "--output", str(out), "--n-boot", "0")
    assert again.returncode == 2 and "a second judgment" in again.stderr and again.stderr.count("\n") == 1
