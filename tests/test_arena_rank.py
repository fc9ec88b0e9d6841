"""Ranking from judgment files with known answers: rules, ties, self-play, Kendall tau distance."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from arena_synth import rank_judgments
from clihelp import run_cli

from debench.arena.bt_bootstrap import kendall_tau_distance
from debench.arena.judgment_table import load_judgment_files
from debench.arena.judgments import Judgment
from debench.arena.rank import analyse_judgments
from debench.core.errors import UserError


def J(topic: str, s1: str, s2: str, w: int | None) -> Judgment:
    return Judgment(topic=topic, side1=s1, side2=s2, winner=w)


# A beats B on t1 (both legs); on t2 A wins one leg and the other is a tie; on t3 they split.
LEGS = [
    J("t1", "A", "B", 1),
    J("t1", "B", "A", 2),
    J("t2", "A", "B", 1),
    J("t2", "B", "A", None),
    J("t3", "A", "B", 2),
    J("t3", "B", "A", 2),
    J("t1", "A", "A", 1),
    J("t2", "B", "B", None),  # self-play
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
    assert r["self_play"] == {
        "A": {"side1_wins": 1, "side2_wins": 0, "ties": 0, "n_legs": 1},
        "B": {"side1_wins": 0, "side2_wins": 0, "ties": 1, "n_legs": 1},
    }
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
def test_kendall_tau_distance_by_hand(ranking, reference, expected) -> None:
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
        load_judgment_files([_write(tmp_path, [good, "{oops"])])
    with pytest.raises(UserError, match=r"line 1: .*field 'winner'|field 'winner'"):
        load_judgment_files([_write(tmp_path, [json.dumps({"topic": "t", "side1": "a", "side2": "b", "winner": 3})])])
    with pytest.raises(UserError, match="line 2: a second judgment"):
        load_judgment_files([_write(tmp_path, [good, good])])


@pytest.mark.slow  # bootstrap, permutations and the ratings chart through the CLI
def test_rank_cli(tmp_path: Path) -> None:
    lines = [json.dumps(j.model_dump()) for j in LEGS]
    jpath = _write(tmp_path, lines)
    ref = tmp_path / "ref.txt"
    ref.write_text("B\nA\n")
    out = tmp_path / "rank.json"
    proc = run_cli(
        "arena",
        "rank",
        "--judgments",
        str(jpath),
        "--rule",
        "lenient",
        "--reference",
        str(ref),
        "--output",
        str(out),
        "--plot",
        str(tmp_path / "bt.svg"),
        "--n-boot",
        "100",
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    assert res["ranking"] == ["A", "B"] and res["kendall_tau_distance"] == 1.0 and res["rule"] == "lenient"
    assert "A " in proc.stdout and "total" in proc.stdout  # the printed matrix
    svg = (tmp_path / "bt.svg").read_text()
    assert svg.startswith("<svg xmlns") and svg.count('class="pt"') == 2 and ">A<" in svg and "lenient rule" in svg
    bad = run_cli("arena", "rank", "--judgments", str(_write(tmp_path, ["nope"])), "--output", str(out))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
    # the chart is SVG: another name is refused before any work, in one line, nothing written
    png = run_cli(
        "arena",
        "rank",
        "--judgments",
        str(jpath),
        "--output",
        str(tmp_path / "other.json"),
        "--plot",
        str(tmp_path / "bt.png"),
    )
    assert (
        png.returncode == 2
        and png.stderr.count("\n") == 1
        and "name the file *.svg" in png.stderr
        and "--plot" in png.stderr
    )
    assert not (tmp_path / "other.json").exists() and not (tmp_path / "bt.png").exists()


# Moniri, Hassani & Dobriban, Table 1 (GPT-4 judging, strict rule, 25 topics): "x-y" = topics won by
# the row model - by the column model; the other topics were split. Self-play (the diagonal) left out.
MONIRI_MODELS = [
    "Llama-2-7b",
    "Llama-2-13b",
    "Llama-2-70b",
    "Llama-3-70b",
    "Vicuna-7b",
    "Vicuna-13b",
    "Mixtral-8x7B",
    "GPT-3.5",
    "GPT-4",
]
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
                legs += [
                    Judgment(topic=f"topic {t}", side1=a, side2=b, winner=w1, judge="GPT-4"),
                    Judgment(topic=f"topic {t}", side1=b, side2=a, winner=w2, judge="GPT-4"),
                ]
    return legs, expected


def test_moniri_table_1_reproduces_with_one_judge() -> None:
    legs, expected = moniri_legs()
    # A reference order consistent with the paper's reported 0.0833 to Chatbot Arena (3 of 36 pairs
    # swapped: GPT-3.5 and Llama-2-70b below Mixtral, Vicuna-13b above Llama-2-7b).
    reference = [
        "GPT-4",
        "Llama-3-70b",
        "Mixtral-8x7B",
        "GPT-3.5",
        "Llama-2-70b",
        "Llama-2-13b",
        "Vicuna-13b",
        "Llama-2-7b",
        "Vicuna-7b",
    ]
    r = analyse_judgments(legs, "strict", reference, n_boot=100)
    assert r.win_matrix == expected
    assert r.topic_wins == {
        "GPT-4": 165,
        "Llama-3-70b": 84,
        "GPT-3.5": 49,
        "Llama-2-70b": 44,
        "Mixtral-8x7B": 38,
        "Llama-2-13b": 30,
        "Llama-2-7b": 16,
        "Vicuna-13b": 5,
        "Vicuna-7b": 0,
    }
    assert r.ranking == [
        "GPT-4",
        "Llama-3-70b",
        "GPT-3.5",
        "Llama-2-70b",
        "Mixtral-8x7B",
        "Llama-2-13b",
        "Llama-2-7b",
        "Vicuna-13b",
        "Vicuna-7b",
    ]
    assert r.kendall_tau_distance is not None and round(r.kendall_tau_distance, 4) == 0.0833
    assert analyse_judgments(legs, "lenient", n_boot=0).win_matrix == expected  # no tied leg: the rules agree
    # GPT-4 judged debates it took part in, alone: the report says self-preference cannot be measured.
    (e,) = r.self_preference.entries
    assert e.judge == "GPT-4" and e.debaters == ["GPT-4"] and e.p_value is None and "only judge" in (e.note or "")
    assert r.length_controlled is None and any("lack side1_words/side2_words" in n for n in r.notes)
    assert (
        r.davidson["strict"].n_drawn == r.topics_drawn == 36 * 25 - sum(sum(row.values()) for row in expected.values())
    )


def test_a_panel_covering_the_debates_unevenly_is_noted_with_its_counts() -> None:
    """Moniri's Table 1 as GPT-4's verdicts on all 1,800 debates, with two more judges who decided
    the debates of the first 5 topics only (and disagree with GPT-4 on the self-play-free pairs'
    home legs): the panel's majority mixes one-verdict debates with two- and three-verdict ones."""
    legs, _ = moniri_legs()
    few = {f"topic {t}" for t in range(5)}
    others = [
        j.model_copy(update={"judge": judge, "winner": 3 - j.winner if judge == "B" else j.winner})
        for j in legs
        if j.topic in few
        for judge in ("A", "B")
    ]
    r = analyse_judgments(legs + others, n_boot=0, n_perm=10)
    (note,) = [n for n in r.notes if n.startswith("uneven coverage")]
    assert "very different numbers of the 1,800 debates (GPT-4 1,800, A 360, B 360)" in note
    even = [j.model_copy(update={"judge": "A"}) for j in legs]
    assert not any(n.startswith("uneven coverage") for n in analyse_judgments(legs + even, n_boot=0, n_perm=10).notes)


def test_ranking_file_follows_its_schema(tmp_path: Path) -> None:
    from arena_synth import SynthJudge, simulate

    from debench.arena.ranking_file import ARENA_RANKING_SCHEMA_PATH
    from debench.core.json_schema import validate_with_schema_file

    legs = simulate(
        {"A": 0.5, "B": 0.0, "C": -0.5},
        [SynthJudge("x", length_weight=1.0), SynthJudge("A", nu=0.3)],
        n_topics=6,
        seed=2,
    )
    validate_with_schema_file(
        rank_judgments(legs, "lenient", ["A", "B"], n_boot=30, n_perm=100), ARENA_RANKING_SCHEMA_PATH
    )
    validate_with_schema_file(rank_judgments(LEGS, n_boot=0), ARENA_RANKING_SCHEMA_PATH)


@pytest.mark.slow  # bootstrap, permutations, style control and the ratings chart through the CLI
def test_rank_cli_with_two_judges_in_two_files(tmp_path: Path) -> None:
    from arena_synth import SynthJudge, judgment_line, simulate

    legs = simulate(
        {"A": 1.0, "B": 0.0, "C": -1.0}, [SynthJudge("x", length_weight=1.5), SynthJudge("y")], n_topics=8, seed=4
    )
    files = []
    for judge in ("x", "y"):
        p = tmp_path / f"{judge}.jsonl"
        p.write_text("".join(judgment_line(j) for j in legs if j.judge == judge))
        files += ["--judgments", str(p)]
    out, chart = tmp_path / "rank.json", tmp_path / "ratings.svg"
    proc = run_cli(
        "arena",
        "rank",
        *files,
        "--output",
        str(out),
        "--plot",
        str(chart),
        "--n-boot",
        "50",
        "--n-perm",
        "200",
        "--control",
        "length",
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    assert res["judges"] == ["x", "y"] and set(res["per_judge"]) == {"x", "y"}
    # recorded as portable paths (relative to where the command ran), never the machine's absolute ones
    recorded = res["settings"]["judgments_files"]
    assert not any(Path(f).is_absolute() for f in recorded), recorded
    assert [(Path.cwd() / f).resolve() for f in recorded] == [
        (tmp_path / "x.jsonl").resolve(),
        (tmp_path / "y.jsonl").resolve(),
    ]
    assert res["settings"]["n_permutations"] == 200
    assert res["per_judge"]["x"]["length_controlled"]["covariates"]["length"]["coefficient"] > 0.5
    assert (
        "Krippendorff's alpha (nominal)" in proc.stdout
        and "style-controlled ranking" in proc.stdout
        and "Davidson tie parameter" in proc.stdout
    )
    svg = chart.read_text()  # plain and controlled ratings side by side: two points per model
    assert svg.count('class="pt"') == 6 and "controlled for length" in svg and "plain Bradley–Terry" in svg
    again = run_cli("arena", "rank", *files[:2], *files[:2], "--output", str(out), "--n-boot", "0")
    assert again.returncode == 2 and "a second judgment" in again.stderr and again.stderr.count("\n") == 1


def test_equal_records_are_ordered_by_name_whatever_the_rounding() -> None:
    """'B' and 'C' have identical records (each beat 'A' once and lost once; they split their
    topics): their scores differ only by rounding, and the documented rule puts B first. Listed
    in either order, with any seed, the ranking is the same."""
    legs = []
    for t, (first, second) in enumerate([("C", "B"), ("B", "C"), ("C", "B")]):
        legs += [J(f"t{t}", first, second, 1), J(f"t{t}", second, first, 1)]  # split: each wins at home
    for t in range(3, 7):
        for m in ("B", "C"):
            winner = 1 if t % 2 else 2
            legs += [J(f"t{t}", m, "A", winner), J(f"t{t}", "A", m, 3 - winner)]
    for legs_in in (legs, legs[::-1]):
        r = analyse_judgments(legs_in, n_boot=0, n_perm=0)
        assert r.topic_wins["B"] == r.topic_wins["C"] and r.bradley_terry["B"].score == pytest.approx(
            r.bradley_terry["C"].score, abs=1e-9
        )
        assert r.ranking.index("B") < r.ranking.index("C")
        assert r.length_controlled is None and [m for m in r.davidson["strict"].ranking if m != "A"] == ["B", "C"]
    assert "scores within 1e-06 Elo-like points count as equal" in r.ranking_order


def test_both_legs_of_a_self_play_debate_are_accepted_a_third_is_not(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from debench.cli import main

    rows = [{"topic": "t", "side1": "A", "side2": "A", "winner": w, "judge": "j"} for w in (1, 2)]
    rows += [
        {"topic": "t", "side1": "A", "side2": "B", "winner": 1, "judge": "j"},
        {"topic": "t", "side1": "B", "side2": "A", "winner": 1, "judge": "j"},
    ]
    table = load_judgment_files([_write(tmp_path, [json.dumps(r) for r in rows])])
    assert table.leg.tolist() == [0, 1, 0, 0]
    r = analyse_judgments(table, n_boot=0)
    assert r.self_play["A"].model_dump() == {"side1_wins": 1, "side2_wins": 1, "ties": 0, "n_legs": 2} and r.models == [
        "A",
        "B",
    ]
    third = _write(tmp_path, [json.dumps(r) for r in rows] + [json.dumps({**rows[0], "winner": None})])
    out = CliRunner().invoke(main, ["arena", "rank", "--judgments", str(third), "--output", str(tmp_path / "r.json")])
    assert out.exit_code == 2 and out.stderr.count("\n") == 1
    assert (
        f"{third} line 5: a third judgment of the self-play debate of 'A' on 't' by judge "
        f"'j'; the first is {third} line 1" in out.stderr
    )


def test_an_unbalanced_design_is_noted_and_ranked_by_bradley_terry_first() -> None:
    """'hub' met eight opponents and won every topic against the seven weak ones; 'strong' met
    only hub and took all their topics. By topic wins hub (14) is far ahead of strong (2); the
    design is unbalanced, so the ranking follows the Bradley-Terry score: strong first."""
    weak = [f"w{k}" for k in range(7)]
    legs = []
    for t in range(2):
        legs += [J(f"t{t}", "hub", "strong", 2), J(f"t{t}", "strong", "hub", 1)]
        for w in weak:
            legs += [J(f"t{t}", "hub", w, 1), J(f"t{t}", w, "hub", 2)]
    r = analyse_judgments(legs, n_boot=50, n_perm=0)
    assert r.topic_wins["hub"] == 14 and r.topic_wins["strong"] == 2
    assert (
        not r.design.balanced
        and r.design.opponents["hub"] == 8
        and r.design.opponents["strong"] == 1
        and r.design.topics["w0"] == 2
    )
    assert r.ranking[:2] == ["strong", "hub"] and r.ranking_order.startswith("Bradley-Terry score, then topic wins")
    assert any(
        n.startswith("unbalanced design: models met 1 to 8 opponents in 2 to 16 complete topics") for n in r.notes
    )
    balanced = analyse_judgments(LEGS, n_boot=0, n_perm=0)
    assert balanced.design.balanced and balanced.ranking_order.startswith("topic wins, then Bradley-Terry score")


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ({"topic": "t", "side1": "a", "side2": "b"}, "line 2: field 'winner' is missing (write null for a tie)"),
        ({"topic": "t", "side1": "a", "side2": "b", "winnr": 1}, "line 2: unknown key 'winnr'; did you mean 'winner'?"),
        (
            {"topic": "t", "side1": "a", "side2": "b", "winner": 1, "colour": "red"},
            "line 2: unknown key 'colour' (known: topic, side1, side2, winner",
        ),
        (
            {"topic": "t", "side1": "a", "side2": "b", "winner": True},
            "line 2: field 'winner': Input should be a valid integer",
        ),
        (
            {"topic": "t", "side1": "a", "side2": "b", "winner": "1"},
            "line 2: field 'winner': Input should be a valid integer",
        ),
        (
            {"topic": "t", "side1": "a", "side2": "b", "winner": 0},
            "line 2: field 'winner': Input should be greater than or equal to 1",
        ),
        (
            {"topic": "t", "side1": "a", "side2": "b", "winner": 1, "side1_words": "300"},
            "line 2: field 'side1_words': Input should be a valid integer",
        ),
        (
            {"topic": "", "side1": "a", "side2": "b", "winner": 1},
            "line 2: field 'topic': String should have at least 1 character",
        ),
        ([1, 2], "line 2: expected a JSON object"),
    ],
)
def test_judgment_lines_are_read_strictly(tmp_path: Path, line: object, message: str) -> None:
    """What a user hands in is refused with one line naming the file and the line, exit 2 —
    never read as a tie or with a key ignored."""
    from click.testing import CliRunner

    from debench.cli import main

    good = json.dumps({"topic": "t", "side1": "b", "side2": "a", "winner": None})
    path = _write(tmp_path, [good, json.dumps(line)])
    out = CliRunner().invoke(main, ["arena", "rank", "--judgments", str(path), "--output", str(tmp_path / "rank.json")])
    assert out.exit_code == 2 and out.stderr.count("\n") == 1, out.output
    assert out.stderr.startswith(f"debench: error: {path}: {message}"), out.stderr
    assert not (tmp_path / "rank.json").exists()


def test_the_line_validator_and_the_schema_agree() -> None:
    """The fast per-line validator is built from the Judgment model: the same fields, types,
    bounds, required keys and no extra keys (the schema file is written from the model)."""
    from debench.arena import judgments

    published = json.loads(judgments.JUDGMENT_SCHEMA_PATH.read_text())

    assert published == json.loads(json.dumps(judgments.judgment_json_schema()))
    assert published["required"] == ["topic", "side1", "side2", "winner"] and published["additionalProperties"] is False
    validate = judgments.line_validator()
    cases = [
        {"topic": "t", "side1": "a", "side2": "b", "winner": None},
        {
            "topic": "t",
            "side1": "a",
            "side2": "b",
            "winner": 2,
            "side1_words": 0,
            "side2_sources": 3,
            "side1_score": 7,
            "reason": "r",
            "judge": "j",
        },
        {"topic": "t", "side1": "a", "side2": "b", "winner": 2.0},
        {"topic": "t", "side1": "a", "side2": "b", "winner": 3},
        {"topic": "t", "side1": "a", "side2": "b", "winner": 1, "side2_words": -1},
        {"topic": "t", "side1": "a", "side2": "b", "winner": 1, "side1_model_id": 5},
        {"topic": "t", "side1": "a", "winner": 1},
        {"topic": "t", "side1": "a", "side2": "b", "winner": 1, "extra": 1},
    ]
    for case in cases:
        text = json.dumps(case)
        try:
            model_ok = Judgment.model_validate_json(text).model_dump(exclude_unset=True) == case
        except ValueError:
            model_ok = False
        try:
            line_ok = validate(text) == case
        except ValueError:
            line_ok = False
        assert model_ok == line_ok, case


@pytest.mark.parametrize("seed", range(5))
def test_kendall_tau_distance_equals_scipy(seed: int) -> None:
    """For rankings without ties, the normalized distance is (1 - tau) / 2 with scipy's tau, over
    the models both rankings hold."""
    from scipy.stats import kendalltau

    rng = np.random.default_rng(seed)
    models = [f"m{k}" for k in range(12)]
    ranking = list(rng.permutation(models))
    reference = [m for m in rng.permutation(models) if m != ranking[0]]  # one model missing from the reference
    d, missing = kendall_tau_distance(ranking, reference)
    common = [m for m in ranking if m in reference]
    tau = kendalltau([ranking.index(m) for m in common], [reference.index(m) for m in common]).statistic
    assert missing == [ranking[0]] and d == pytest.approx((1 - tau) / 2, abs=1e-12)
