"""What debench's branchiest functions produce, frozen so that a restructuring keeps every output.

Each case runs one function (or the command around it) on fixed, real inputs and returns plain
JSON: the transcripts DebateBench's parser reads, a forest chart's SVG elements, a speech-rating
report, the run and arena report pages' contents, an arena run's files and ranking, the adaptive
schedule's waves, topic files, answer shapes, template size estimates, Debatrix's score verdicts
and chains, the verdicts report, ``debench compare``. What changes from one run to the next (the
time, package versions, temporary folders, the stub server's port) is left out, and a text longer
than ``frozen_form.LONG`` characters is kept as its length and SHA-256, so the file stays small and a changed
byte still shows.

``python tests/frozen_outputs.py`` rewrites ``tests/frozen/outputs.json``. It was first run on the
code before its functions were split into named steps (issue 40); ``tests/test_frozen_outputs.py``
keeps the current code equal to it. Do not regenerate it to make that test pass: a changed output
is a changed behaviour, to be made on purpose and said in its commit.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from conftest import DATA_DIR, real_data_dir
from frozen_form import failure, frozen_form, sha, temporary_folder
from frozen_runs import (
    arena_run,
    compare_two_runs,
    debatrix_chain,
    rate_speeches_refusals,
    rate_speeches_reports,
    run_view,
    verdicts_reports,
)

from debench.arena.adaptive import Game, Slot, choose
from debench.arena.protocol import load_topics
from debench.arena.rank import analyse_judgments
from debench.arena.report import ratings_chart, summary_lines
from debench.core.charts import Estimate, Forest, ForestRow, RefBand, RefLine, forest
from debench.data.debatebench import parse_transcript
from debench.judging.debatrix import score_verdict
from debench.run.task_lookup import load_task
from debench.task.config import ParserConfig
from debench.task.parsing import check_shape
from debench.task.prompt_sandbox import _result_size

FROZEN = Path(__file__).resolve().parent / "frozen" / "outputs.json"


# ------------------------------------------------------------------------------ DebateBench


SYNTHETIC_TRANSCRIPTS = {
    "well formed": "Motion: This house would tax sugar\n<pm>We propose.</pm>\n"
    "<lo>We oppose.<poi>What of the poor?</poi> They gain.</lo>\n"
    "<dpm>More.</dpm><dlo>Less.</dlo><mg>Extension.</mg><mo>Counter.</mo><gw>Sum up.</gw><ow>Sum down.</ow>",
    "a point of information never closed": "<pm>Open.</pm><lo>Reply <poi>a question that runs on",
    "four speeches, one repeated": "<PM>one</PM><lo>two</lo><pm>three</pm><GW>four\n\n\n\nlines</GW>",
    "no tag": "Just a speech with no tags at all.",
    "a point of information before any speech": "<poi>early</poi><pm>Then the speech.</pm></poi>",
    "a role tag opening a point of information": "<pm>Speech <lo>a mistyped question</poi> goes on.</pm>",
    "an opener closing its speech": "<pm>Words.<pm>\n<lo>More words.</lo>",
    "an empty speech and unknown houses": "<pm></pm><og>house tag</og><co>closing</co>",
}


def debatebench_real() -> dict[str, Any]:
    """Every real DebateBench transcript, parsed."""
    folder = real_data_dir("debatebench") / "cleaned_speeches"
    return {p.name: _parsed(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.txt"))}


def debatebench_synthetic() -> dict[str, Any]:
    """Small transcripts with the faults the real ones lack."""
    return {name: _parsed(text) for name, text in SYNTHETIC_TRANSCRIPTS.items()}


def _parsed(text: str) -> dict[str, Any]:
    speeches, info = parse_transcript(text)
    return {**frozen_form(info), "speeches": [f"{s.speaker} {s.side}: {frozen_form(s.text)}" for s in speeches]}


# ------------------------------------------------------------------------------------ charts


def forest_charts() -> dict[str, list[str]]:
    """Forest charts' SVG elements: two series, reference lines, a band, empty rows and none."""
    full = Forest(
        "Ratings\nsecond line <b>",
        [
            ForestRow("alpha", [Estimate(120.5, [80.0, 160.25], text="121", title="a"), Estimate(90.0, [60, 130])]),
            ForestRow("a model with a very long name indeed", [Estimate(None), Estimate(-40.0, None, text="-40")]),
            ForestRow("gamma", [Estimate(None), Estimate(None)]),
            ForestRow("delta", [Estimate(10.0, [-5.0, 30.0], cls="pt own")]),
        ],
        series=["plain", "controlled"],
        lines=[
            RefLine(50.0, "random", "a baseline"),
            RefLine(-20.0, "constant", ""),
            RefLine(55.0, "third", "", cls="x"),
        ],
        band=RefBand(70.0, [65.0, 75.0], "humans"),
        axis="score",
    )
    plain = Forest("One series", [ForestRow("a", [Estimate(0.4, [0.1, 0.6])])], band=RefBand(0.3, None, "h"))
    empty = Forest("", [], empty="nothing ranked", label_w=100, plot_w=200)
    return {name: forest(f).parts for name, f in (("full", full), ("plain", plain), ("empty", empty))}


# ------------------------------------------------------------------------------------ arena


def arena_ranking() -> dict[str, Any]:
    """``arena rank`` of three judges (one fond of its own model, one of side 1, one of long speeches)
    on planted strengths: the ranking file, its terminal summary and its chart."""
    from arena_synth import SynthJudge, simulate

    judges = [
        SynthJudge("alpha-judge", model_id="id-alpha", own_model="alpha", self_bonus=0.8),
        SynthJudge("side-one", model_id="id-side", side1_bonus=0.4, nu=0.3),
        SynthJudge("long-winded", length_weight=0.6),
    ]
    strengths = {"alpha": 0.6, "beta": 0.5, "gamma": -0.2, "delta": -0.9}
    verbosity = {"alpha": 300.0, "beta": 450.0, "gamma": 250.0, "delta": 300.0}
    judgments = simulate(strengths, judges, n_topics=6, seed=11, verbosity=verbosity)
    out: dict[str, Any] = {}
    for rule, reference in (("strict", ["alpha", "beta", "gamma", "delta"]), ("lenient", None)):
        ranking = analyse_judgments(
            judgments, rule, reference, n_boot=60, seed=5, n_perm=200, files=["j.jsonl"], ratings=["win_rate"]
        )
        out[rule] = {
            "summary": summary_lines(ranking),
            "ranking": f"sha256 {sha(ranking.model_dump_json())}",
            "chart": frozen_form(ratings_chart(ranking, subtitle=ranking.verdicts).markup()),
        }
    one = analyse_judgments([j for j in judgments if j.judge == "side-one"], n_boot=40, seed=1, controls=())
    out["one judge"] = {"summary": summary_lines(one), "chart": ratings_chart(one).parts}
    tied = [j.model_copy(update={"winner": None}) for j in judgments if j.judge != "long-winded"]
    ranking = analyse_judgments(tied, "lenient", n_boot=30, seed=0, n_perm=50)
    out["every debate tied"] = {
        "summary": summary_lines(ranking),
        "ranking": f"sha256 {sha(ranking.model_dump_json())}",
    }
    refused = {
        "an unknown control": lambda: analyse_judgments(judgments, controls=["length", "colour"]),
        "an unknown rating": lambda: analyse_judgments(judgments, ratings=["elo2"]),
        "no judgment": lambda: analyse_judgments([]),
        "strangers in the reference": lambda: analyse_judgments(judgments, reference=["alpha", "omega", "zeta"]),
    }
    out["refusals"] = {name: frozen_form(failure(fn)) for name, fn in refused.items()}
    return out


def adaptive_waves() -> dict[str, Any]:
    """Waves of the adaptive schedule, the models given out of alphabetical order (and in it)."""
    games = [
        Game("c", "a", 1.0),
        Game("a", "c", 0.5),
        Game("b", "a", 0.0, 0.5),
        Game("b", "d", 1.0),
        Game("d", "c", 0.0),
    ]
    taken = [Slot(0, "c", "a"), Slot(0, "a", "c"), Slot(1, "b", "a"), Slot(0, "b", "d"), Slot(2, "d", "c")]
    out = {}
    for order in (["c", "a", "b", "d"], ["a", "b", "c", "d"]):
        for seed, wave, k in ((0, 1, 6), (7, 3, 12)):
            out[f"{','.join(order)} seed {seed} wave {wave}"] = frozen_form(
                choose(order, 3, games, taken, k, seed, wave)
            )
    for order in (["b", "a"], ["a", "b"]):  # one leg played: in either order, its second leg and nothing else
        out[f"{','.join(order)}, one leg played"] = frozen_form(
            choose(order, 1, [Game("a", "b", 1.0)], [Slot(0, "a", "b")], 3, 0, 0)
        )
    out["no game yet"] = frozen_form(choose(["x", "y", "z"], 2, [], [], 5, 1, 0))
    out["every debate taken"] = frozen_form(
        choose(["x", "y"], 1, [Game("x", "y", 1.0)], [Slot(0, "x", "y"), Slot(0, "y", "x")], 3, 0, 0)
    )
    return out


TOPIC_FILES = {
    "topics.txt": "# comment\nIs tea better than coffee?\n\n  Should cities ban cars? | Ban | Keep  \n",
    "bad_line.txt": "a | b\n",
    "empty.txt": "# only a comment\n",
    "duplicate.txt": "Same?\nSame?\n",
    "topics.yaml": 'topics:\n  - Is golf a sport?\n  - {question: "Are cats better?", side1: Cats, side2: 3}\n'
    "  - question: Only a question\n",
    "list.yml": "- One?\n- Two?\n",
    "bad_entry.yaml": "topics:\n  - 3\n",
    "not_a_list.yaml": "topics: yes\n",
    "broken.yaml": "topics: [\n",
    "latin1.txt": "caf\xe9",
}


def topic_files() -> dict[str, Any]:
    """Topic files of each form and fault, and the built-in topics."""
    out: dict[str, Any] = {"built-in": frozen_form(load_topics())}
    with temporary_folder() as d:
        for name, text in TOPIC_FILES.items():
            path = d / name
            if name == "latin1.txt":
                path.write_bytes(text.encode("latin-1"))
            else:
                path.write_text(text, encoding="utf-8")
            out[name] = frozen_form(failure(lambda p=path: load_topics(p)), {str(d): "<tmp>"})
        out["missing.txt"] = frozen_form(failure(lambda: load_topics(d / "missing.txt")), {str(d): "<tmp>"})
    return out


# ------------------------------------------------------------------------ parsing and prompts

SHAPES: list[tuple[dict[str, Any], Any]] = [
    ({"type": "list"}, "a"),
    ({"type": "dict"}, [1]),
    ({"type": "str", "choices": ["Pro", "con"]}, "pro"),
    ({"type": "str", "choices": ["Pro", "con"]}, "CON"),
    ({"type": "str", "choices": ["Pro", "con"]}, "maybe"),
    ({"type": "int", "choices": [1, 2]}, 2),
    ({"type": "list", "choices": ["OG", "OO", "CG", "CO"]}, ["og", "CO", "cg", "oo"]),
    ({"type": "list", "choices": ["OG", "OO"]}, ["og", "xx"]),
    ({"type": "list", "length": 3}, [1, 2]),
    ({"type": "list", "length": 2, "unique": True}, ["a", "a"]),
    ({"type": "list", "length": 2, "unique": True}, ["a", "b"]),
    ({"type": "list", "unique": True}, [1, "1"]),
    ({"type": "dict", "keys": ["Pro", "Con"]}, {" PRO ": 3, "con": 4}),
    ({"type": "dict", "keys": ["Pro", "Con"]}, {"pro": 3}),
    ({"type": "dict", "keys": ["Pro"]}, {"pro": 3, "extra": 1}),
    ({"type": "dict", "value_range": [1, 10]}, {"a": 1, "b": 10.0}),
    ({"type": "dict", "value_range": [1, 10]}, {"a": 0}),
    ({"type": "dict", "value_range": [1, 10]}, {"a": True}),
    ({"type": "dict", "value_range": [1, 10]}, {"a": "5"}),
    ({"type": "dict", "choices": ["x"], "keys": ["a"], "value_range": [0, 1]}, {"A": 0.5}),
    ({"type": "float"}, 2.5),
]


def answer_shapes() -> list[Any]:
    """``check_shape`` on values of each type against each rule."""
    return [
        {
            "parser": cfg,
            "value": value,
            "out": frozen_form(failure(lambda c=cfg, v=value: check_shape(v, ParserConfig(patterns=["x"], **c)))),
        }
        for cfg, value in SHAPES
    ]


SIZES: list[tuple[str, Any, tuple[Any, ...], dict[str, Any]]] = [
    ("center", "ab", (10,), {}),
    ("zfill", "ab", (-7, True), {}),
    ("batch", [1, 2], (), {"linecount": 40}),
    ("upper", 5, (), {}),
    ("format", "{:>12}{:.3f}", (1, 2), {}),
    ("format", "{:>{}}", (1, 500), {}),
    ("format_map", "{a:9}", ({"a": 1},), {}),
    ("%", "%08.2f %(x)5d", (1,), {}),
    ("%", "%*d", (900, 1), {}),
    ("%", "plain", (), {}),
    ("replace", "banana", ("a", "xyz"), {}),
    ("replace", "banana", ("", "--"), {}),
    ("replace", "banana", ("an", "a"), {}),
    ("replace", "banana", ("a",), {}),
    ("replace", "banana", ("a", 3), {}),
    ("join", ", ", (["ab", "c", 7],), {}),
    ("join", "-", (), {}),
    ("join", ["ab", "c"], ("::",), {}),
    ("join", ["ab", "c"], (), {"d": "//"}),
    ("join", ["ab", "c"], (), {}),
    ("join", (x for x in "ab"), ("-",), {}),
    ("indent", "a\nb\nc", (), {}),
    ("indent", "a\nb", (-6,), {}),
    ("indent", "a\nb", ("> ",), {}),
    ("indent", "a\nb", (), {"width": 3}),
    ("expandtabs", "a\tb\t", (), {}),
    ("expandtabs", "a\tb", (16,), {}),
    ("title", "abc", (), {}),
]


def template_sizes() -> list[Any]:
    """What the prompt sandbox estimates a filter or text method would build."""
    return [
        {
            "name": name,
            "value": value if isinstance(value, (str, list, int)) else type(value).__name__,
            "args": repr(args),
            "kwargs": kwargs,
            "size": _result_size(name, value, args, kwargs),
        }
        for name, value, args, kwargs in SIZES
    ]


# ------------------------------------------------------------------------------------ Debatrix

SCORES: list[tuple[str, dict[str, float | None]]] = [
    ("debateart_winner", {"pro": 8.0, "con": 6.0}),
    ("debateart_winner", {"pro": 6.0, "con": 6.0}),
    ("debateart_winner", {"pro": None, "con": 6.0}),
    ("debateart_source_scores", {"pro": 8.0, "con": 6.0}),
    ("debateart_source_scores", {"pro": 9.5, "con": 6.0}),
    ("debateart_source_scores", {"con": 2.0, "pro": 6.0}),
    ("debateart_source", {"pro": 8.0, "con": 6.0}),
    ("debateart_source", {"pro": 9.5, "con": 6.0}),
    ("bp_top_team", {"OG": 7.0, "OO": 8.0, "CG": 6.5, "CO": 7.5}),
    ("bp_top_team", {"OG": 8.0, "OO": 8.0, "CG": 6.5, "CO": 7.5}),
    ("bp_top_team", {"OG": 8.0, "OO": None, "CG": None, "CO": 7.5}),
    ("bp_top_team", {"OG": 7.0, "OO": 8.0}),
    ("debateart_source_scores", {"a": 5.0, "b": 9.0}),
    ("debateart_source_scores", {"pro": 12.0, "con": 6.0}),
    ("debateart_winner", {"pro": 0.5, "con": 6.0}),
    ("ibm_speech_likert", {"a": 3.0, "b": 2.0}),
]


def score_verdicts() -> list[Any]:
    """The score-comparison verdict of tasks with and without a rule, a band, a tie, choices."""
    out = []
    for name, scores in SCORES:
        task, _ = load_task(name)
        out.append({"task": name, "scores": scores, "verdict": list(score_verdict(task, scores))})
    return out


CASES: dict[str, Callable[[], Any]] = {
    "debatebench.parse_transcript real": debatebench_real,
    "debatebench.parse_transcript synthetic": debatebench_synthetic,
    "charts.forest": forest_charts,
    "speeches.rate_speeches": rate_speeches_reports,
    "speeches.rate_speeches refusals": rate_speeches_refusals,
    "view.build_view": run_view,
    "run.compare_runs": compare_two_runs,
    "arena.run_arena and view.build_arena_view": arena_run,
    "arena.analyse_judgments, summary_lines, ratings_chart": arena_ranking,
    "arena.adaptive.choose": adaptive_waves,
    "arena.protocol.load_topics": topic_files,
    "task.parsing.check_shape": answer_shapes,
    "task.prompt_sandbox._result_size": template_sizes,
    "judging.debatrix.score_verdict": score_verdicts,
    "judging.debatrix.run_column debatrix-h": lambda: debatrix_chain("debatrix-h"),
    "judging.debatrix.run_column debatrix-f-scores": lambda: debatrix_chain("debatrix-f-scores"),
    "scoring.scores.verdicts_report": verdicts_reports,
}


NEEDS_NO_DATA = frozenset(
    {
        "debatebench.parse_transcript synthetic",
        "charts.forest",
        "arena.analyse_judgments, summary_lines, ratings_chart",
        "arena.adaptive.choose",
        "arena.protocol.load_topics",
        "task.parsing.check_shape",
        "task.prompt_sandbox._result_size",
        "judging.debatrix.score_verdict",
    }
)
"""The cases that read no data set (the others were frozen on the real ones)."""


def answer(case: str) -> Any:
    """The case's output as the frozen file holds it."""
    return json.loads(json.dumps(frozen_form(CASES[case]())))


def answers() -> dict[str, Any]:
    return {name: answer(name) for name in CASES}


def main() -> None:
    os.environ.setdefault("DEBENCH_DATA_DIR", str(DATA_DIR))
    with temporary_folder() as cache:
        os.environ["DEBENCH_CACHE_DIR"] = str(cache)
        os.environ["HF_HUB_OFFLINE"] = "1"
        FROZEN.write_text(json.dumps(answers(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {FROZEN} ({FROZEN.stat().st_size} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
