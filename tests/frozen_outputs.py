"""What debench's branchiest functions produce, frozen so that a restructuring keeps every output.

Each case runs one function (or the command around it) on fixed, real inputs and returns plain
JSON: the transcripts DebateBench's parser reads, a forest chart's SVG elements, a speech-rating
report, the run and arena report pages' contents, an arena run's files and ranking, the adaptive
schedule's waves, topic files, answer shapes, template size estimates, Debatrix's score verdicts
and chains, the verdicts report, ``debench compare``. What changes from one run to the next (the
time, package versions, temporary folders, the stub server's port) is left out, and a text longer
than ``LONG`` characters is kept as its length and SHA-256, so the file stays small and a changed
byte still shows.

``python tests/frozen_outputs.py`` rewrites ``tests/frozen/outputs.json``. It was first run on the
code before its functions were split into named steps (issue 40); ``tests/test_frozen_outputs.py``
keeps the current code equal to it. Do not regenerate it to make that test pass: a changed output
is a changed behaviour, to be made on purpose and said in its commit.
"""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pandas as pd
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir
from test_debatrix_stub import per_prompt_responder

from debench.arena.adaptive import Game, Slot, choose
from debench.arena.protocol import load_topics
from debench.arena.rank import analyse_judgments
from debench.arena.report import ratings_chart, summary_lines
from debench.core.charts import Estimate, Forest, ForestRow, RefBand, RefLine, forest
from debench.core.errors import UserError
from debench.core.paths import portable_path
from debench.data.debatebench import parse_transcript
from debench.data.loading import load_task_data
from debench.data.samples import SampleRecord, read_records
from debench.judging.debatrix import score_verdict
from debench.run.compare_runs import compare_runs
from debench.run.task_lookup import load_task
from debench.scoring.scores import verdicts_report
from debench.task.config import ParserConfig
from debench.task.parsing import check_shape
from debench.task.prompt_sandbox import _result_size
from debench.task.transforms import ParseFailure
from debench.testing.stub_server import StubServer, fixed_responder
from debench.view.arena import build_arena_view
from debench.view.model import build_view

REPO_ROOT = Path(__file__).resolve().parent.parent
FROZEN = REPO_ROOT / "tests" / "frozen" / "outputs.json"
LONG = 400
"""Texts longer than this are frozen as their length and SHA-256."""
VARYING = frozenset({"created_at", "versions", "elapsed_s", "duration_s"})
"""Keys whose values change from one run to the next."""


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def frozen_form(value: Any, replace: dict[str, str] | None = None) -> Any:
    """``value`` as plain JSON: run-dependent strings replaced, long texts as length and hash,
    keys in ``VARYING`` left out."""
    replace = replace or {}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        return {str(k): frozen_form(v, replace) for k, v in value.items() if k not in VARYING}
    if isinstance(value, (list, tuple)):
        return [frozen_form(v, replace) for v in value]
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, str):
        for old, new in replace.items():
            value = value.replace(old, new)
        return value if len(value) <= LONG else f"<{len(value)} chars, sha256 {_sha(value)}>"
    if hasattr(value, "item"):  # a numpy scalar
        return value.item()
    return value


def _failure(fn: Callable[[], Any]) -> Any:
    """``fn()``, or the message of the ``ParseFailure`` / ``UserError`` it raises."""
    try:
        return fn()
    except (ParseFailure, UserError) as exc:
        return {"raises": f"{type(exc).__name__}: {exc}"}


@contextmanager
def _folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="debench-frozen-") as d:
        yield Path(d)


def _places(**folders: Path) -> dict[str, str]:
    """Each folder, as written and as a recorded file shows it (relative to here) -> ``<name>``."""
    out = {portable_path(str(path)): f"<{name}>" for name, path in folders.items()}
    return {**out, **{str(path): f"<{name}>" for name, path in folders.items()}}


def _ok(proc: Any) -> None:
    assert proc.returncode == 0, proc.stderr


# ------------------------------------------------------------------------------ DebateBench


SYNTHETIC_TRANSCRIPTS = {
    "well formed": "Motion: This house would tax sugar\n<pm>We propose.</pm>\n<lo>We oppose.<poi>What of the poor?</poi> They gain.</lo>\n"
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


# --------------------------------------------------------------------------------- speeches


def _rate(out: Path, speeches: Path, *args: str) -> dict[str, Any]:
    """``debench rate-speeches``: the report and chart it wrote, or its exit code and message."""
    proc = run_cli(
        "rate-speeches", "--speeches", str(speeches), "--bootstrap", "200", "--output-dir", str(out), "--no-progress",
        *args, env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )  # fmt: skip
    replace = _places(speeches=speeches, out=out, data=DATA_DIR)
    if proc.returncode != 0:
        return frozen_form({"exit": proc.returncode, "stderr": proc.stderr}, replace)
    report = next(out.glob("*/speech_rating_*.json"))
    return {
        "report": frozen_form(json.loads(report.read_text(encoding="utf-8")), replace),
        "charts": [frozen_form(p.read_text(encoding="utf-8")) for p in sorted(out.glob("*/*.svg"))],
    }


def rate_speeches_reports() -> dict[str, Any]:
    """GPT-4.1's speeches of three topics rated by a seeded random judge, beside every annotated
    source and beside two of them."""
    speeches = real_data_dir("ibm_debate_speeches") / "GPT_4_1_speeches.csv"
    with _folder() as out:
        return {
            "every source": _rate(out / "all", speeches, "--model", "baseline/random", "--seed", "4", "--limit", "3"),
            "two sources": _rate(
                out / "two", speeches, "--model", "baseline/random", "--limit", "2",
                "--human-sources", "Human expert,Speech-GPT2",
            ),
        }  # fmt: skip


def rate_speeches_refusals() -> dict[str, Any]:
    """A file whose id or source is the annotated speeches', an unknown annotated source, and a
    judge that never answers in the format (no mean, no chart)."""
    gpt = real_data_dir("ibm_debate_speeches") / "GPT_4_1_speeches.csv"
    with open(gpt, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))[:2]
    human = pd.read_csv(real_data_dir("ibm_debate_speeches") / "data.csv", dtype=str)
    out: dict[str, Any] = {}
    with _folder() as tmp:
        variants = {
            "an annotated id": [{**rows[0], "id": human["id"][0]}, rows[1]],
            "an annotated source": [{**rows[0], "source": "Human expert"}, rows[1]],
            "two sources": [rows[0], {**rows[1], "source": "another writer"}],
        }
        for name, variant in variants.items():
            path = tmp / f"{name}.csv"
            with open(path, "w", newline="", encoding="utf-8") as fh:
                writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
                writer.writeheader()
                writer.writerows(variant)
            out[name] = _rate(tmp / name, path, "--model", "baseline/random", "--limit", "1")
        out["an unknown annotated source"] = _rate(tmp / "u", gpt, "--model", "baseline/random", "--human-sources", "X")
        with StubServer(responder=fixed_responder("I would rather not say.")) as srv:
            out["no answer read"] = _rate(
                tmp / "none", tmp / "two sources.csv", "--model", "openai/mute", "--api-base", srv.base_url,
                "--limit", "1", "--model-args", "max_retries=0",
            )  # fmt: skip
    for name in ("two sources", "no answer read"):  # the rest of the report is as in the case above
        report = out[name]["report"]
        out[name]["report"] = {k: report[k] for k in ("speeches_file", "sources", "comparisons", "plots", "usage")}
    return out


# -------------------------------------------------------------------------------- run views


def _eval(out: Path, *args: str) -> Path:
    _ok(run_cli("eval", *args, "--output-dir", str(out), "--no-progress", "--data-dir", str(DATA_DIR)))
    return next(p for p in out.glob("*/*.json") if not p.name.endswith(".meta.json"))


def run_view() -> dict[str, Any]:
    """The run report's contents (before rendering) for a seeded random judge on IBM speeches."""
    with _folder() as out:
        results = _eval(out, "--task", "ibm_speech_likert", "--model", "baseline/random", "--limit", "12")
        view = build_view(results, data_dir=str(DATA_DIR))
        view["facts"] = [fact for fact in view["facts"] if fact[0] != "created"]
        return frozen_form(view, _places(out=out, data=DATA_DIR))


def compare_two_runs() -> dict[str, Any]:
    """``debench compare`` of a seeded random judge and the majority baseline with each test, and
    of runs it refuses to compare."""
    with _folder() as out:
        common = ("--task", "debateart_winner", "--limit", "40")
        a = _eval(out / "a", *common, "--model", "baseline/random", "--seed", "1")
        b = _eval(out / "b", *common, "--model", "baseline/majority")
        other_task = _eval(out / "c", "--task", "debateart_source", "--limit", "5", "--model", "baseline/majority")
        places = _places(out=out)
        compared = {
            test: frozen_form(compare_runs(a, b, test=test, n=300, seed=3, data_dir=str(DATA_DIR)), places)
            for test in ("bootstrap", "permutation")
        }
        refusals = {
            "another task": (a, other_task),
            "other data": (a, _edited(b, out / "d", lambda r: r["dataset"].update(content_hash="sha256:" + "0" * 64))),
            "no samples file named": (a, _edited(b, out / "e", lambda r: r.update(samples_file=None))),
            "no samples file beside": (a, _edited(b, out / "f", lambda r: None, samples=False)),
            "no scored document in common": (a, _edited(b, out / "g", lambda r: None, status="error")),
        }
        for name, (x, y) in refusals.items():
            compared[name] = frozen_form(_failure(lambda x=x, y=y: compare_runs(x, y, data_dir=str(DATA_DIR))), places)
        both = [
            _edited(r, out / f"h{n}", lambda r: r["dataset"].update(content_hash="sha256:" + "1" * 64))
            for n, r in enumerate((a, b))
        ]
        compared["data not found"] = frozen_form(_failure(lambda: compare_runs(*both, data_dir=str(DATA_DIR))), places)
        return compared


def _edited(
    results: Path, folder: Path, edit: Callable[[dict[str, Any]], None], samples: bool = True, status: str | None = None
) -> Path:
    """A copy of a run in ``folder``: its results edited, its samples log copied (every record given
    ``status``) or left out."""
    data = json.loads(results.read_text(encoding="utf-8"))
    folder.mkdir(parents=True)
    if samples:
        lines = [
            json.loads(line)
            for line in (results.parent / data["samples_file"]).read_text(encoding="utf-8").splitlines()
        ]
        for line in lines:
            line["status"] = status or line["status"]
        (folder / data["samples_file"]).write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    edit(data)
    (folder / results.name).write_text(json.dumps(data), encoding="utf-8")
    return folder / results.name


# ------------------------------------------------------------------------------------ arena


def _arena_responder(request: dict[str, Any]) -> str:
    """Three judges: j1 always side 1 with a reason, j2 side 2 on tea, j3 never readable."""
    first = request["messages"][0]["content"]
    if "judging a finished debate" in first:
        if request["model"] == "j3":
            return "I will not say."
        if request["model"] == "j2" and "tea" in first.lower():
            return "side1: [[3]], side2: [[8]], winner: [[2]]"
        return "side1: [[7]], side2: [[5]], winner: [[1]], reason: [[clearer]]"
    return f"{request['model']} argues its side at some length about the question put to it."


def arena_run() -> dict[str, Any]:
    """``debench arena`` through the stub server: its files, its report page's contents, its ranking."""
    with _folder() as tmp:
        topics = tmp / "t.txt"
        topics.write_text("Is tea better than coffee?\nShould cities ban cars? | Ban | Keep\n", encoding="utf-8")
        with StubServer(responder=_arena_responder) as srv:
            stub = srv.base_url
            _ok(
                run_cli(
                    "arena", "--models", "openai/b,openai/a", "--judge", "openai/j1,openai/j2,openai/j3",
                    "--api-base", srv.base_url, "--topics", str(topics), "--rounds", "2", "--reason",
                    "--output-dir", str(tmp / "out"), "--no-progress",
                )
            )  # fmt: skip
        folder = next((tmp / "out").glob("arena_*"))
        judgments = [json.loads(line) for line in (folder / "judgments.jsonl").read_text(encoding="utf-8").splitlines()]
        ids = dict.fromkeys(v for j in judgments for k, v in j.items() if k.endswith("model_id") and v)
        # the folder's name and the models' ids depend on the server's address, a new port each time
        replace = {
            stub: "<stub>", folder.name: "<arena folder>", **_places(tmp=tmp),
            **{i: f"<model id {n}>" for n, i in enumerate(ids)},
        }  # fmt: skip
        read = (folder / "debates.jsonl").read_text(encoding="utf-8").splitlines()
        return {
            "config": frozen_form(json.loads((folder / "arena_config.json").read_text(encoding="utf-8")), replace),
            "judgments": frozen_form(judgments, replace),
            "debates": frozen_form([json.loads(line) for line in read], replace),
            "view": frozen_form(build_arena_view(folder), replace),
        }


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
            "ranking": f"sha256 {_sha(ranking.model_dump_json())}",
            "chart": frozen_form(ratings_chart(ranking, subtitle=ranking.verdicts).markup()),
        }
    one = analyse_judgments([j for j in judgments if j.judge == "side-one"], n_boot=40, seed=1, controls=())
    out["one judge"] = {"summary": summary_lines(one), "chart": ratings_chart(one).parts}
    tied = [j.model_copy(update={"winner": None}) for j in judgments if j.judge != "long-winded"]
    ranking = analyse_judgments(tied, "lenient", n_boot=30, seed=0, n_perm=50)
    out["every debate tied"] = {
        "summary": summary_lines(ranking),
        "ranking": f"sha256 {_sha(ranking.model_dump_json())}",
    }
    refused = {
        "an unknown control": lambda: analyse_judgments(judgments, controls=["length", "colour"]),
        "an unknown rating": lambda: analyse_judgments(judgments, ratings=["elo2"]),
        "no judgment": lambda: analyse_judgments([]),
        "strangers in the reference": lambda: analyse_judgments(judgments, reference=["alpha", "omega", "zeta"]),
    }
    out["refusals"] = {name: frozen_form(_failure(fn)) for name, fn in refused.items()}
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
    for order in (["b", "a"], ["a", "b"]):  # one leg played: the models' order decides what is chosen
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
    "topics.yaml": 'topics:\n  - Is golf a sport?\n  - {question: "Are cats better?", side1: Cats, side2: 3}\n  - question: Only a question\n',
    "list.yml": "- One?\n- Two?\n",
    "bad_entry.yaml": "topics:\n  - 3\n",
    "not_a_list.yaml": "topics: yes\n",
    "broken.yaml": "topics: [\n",
    "latin1.txt": "caf\xe9",
}


def topic_files() -> dict[str, Any]:
    """Topic files of each form and fault, and the built-in topics."""
    out: dict[str, Any] = {"built-in": frozen_form(load_topics())}
    with _folder() as d:
        for name, text in TOPIC_FILES.items():
            path = d / name
            if name == "latin1.txt":
                path.write_bytes(text.encode("latin-1"))
            else:
                path.write_text(text, encoding="utf-8")
            out[name] = frozen_form(_failure(lambda p=path: load_topics(p)), {str(d): "<tmp>"})
        out["missing.txt"] = frozen_form(_failure(lambda: load_topics(d / "missing.txt")), {str(d): "<tmp>"})
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
            "out": frozen_form(_failure(lambda c=cfg, v=value: check_shape(v, ParserConfig(patterns=["x"], **c)))),
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


def debatrix_chain(method: str) -> dict[str, Any]:
    """A DebateArt debate through a Debatrix variant: every step's prompt (its hash), score and
    memory, the record's verdicts and the verdicts report."""
    with _folder() as tmp, StubServer(responder=per_prompt_responder) as srv:
        results = _eval(
            tmp, "--task", "debateart_winner", "--model", "openai/stub", "--api-base", srv.base_url,
            "--method", method, "--limit", "1", "--bootstrap", "50",
        )  # fmt: skip
        data = json.loads(results.read_text(encoding="utf-8"))
        (record,) = read_records(results.parent / data["samples_file"])
    steps = [
        [s.get("column"), s["step"], s.get("speech") or s.get("side"), s["prompt_sha256"][:16], s.get("score"), s.get("memory")]
        for s in record.steps
    ]  # fmt: skip
    return {
        "record": {
            k: getattr(record, k) for k in ("doc_id", "status", "prediction", "verdicts", "parse_error", "response")
        },
        "steps": steps,
        "report": frozen_form(data["reports"]["debatrix_verdicts"]),
    }


def verdicts_reports() -> dict[str, Any]:
    """The verdicts report over DebateArt documents: verdicts read, unread, missing, disagreeing."""
    task, _ = load_task("debateart_winner")
    docs = load_task_data(task, "local", str(DATA_DIR)).docs[:12]
    summary = ["pro", "con", None, "con", "tie", "pro", "con", "con", None, "pro", "pro", "con"]
    scores = ["pro", "pro", "con", None, "tie", "con", "con", None, "pro", "pro", "tie", "con"]
    records = {}
    for k, d in enumerate(docs):
        if k == 5:
            continue  # never answered
        verdicts = None if k == 7 else {"summary": summary[k], "scores": scores[k], "extra": "pro" if k % 3 else None}
        records[d.doc_id] = SampleRecord(doc_id=d.doc_id, status="ok", prediction=summary[k], verdicts=verdicts)
    return {
        "three verdicts": frozen_form(verdicts_report(task, docs, records, 100, 4)),
        "none answered": frozen_form(verdicts_report(task, docs, {}, 100, 4)),
    }


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
    with _folder() as cache:
        os.environ["DEBENCH_CACHE_DIR"] = str(cache)
        os.environ["HF_HUB_OFFLINE"] = "1"
        FROZEN.write_text(json.dumps(answers(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {FROZEN} ({FROZEN.stat().st_size} bytes)", file=sys.stderr)


if __name__ == "__main__":
    main()
