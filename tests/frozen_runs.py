"""The cases of ``tests/frozen_outputs.py`` that run a command (``rate-speeches``, ``eval``, ``arena``,
through the stub server where a model answers) and read what it wrote, or score records on the
real data."""

from __future__ import annotations

import csv
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir
from frozen_form import failure, frozen_form, ok, places, temporary_folder
from test_debatrix_stub import per_prompt_responder

from debench.data.loading import load_task_data
from debench.data.samples import SampleRecord, read_records
from debench.run.compare_runs import compare_runs
from debench.run.task_lookup import load_task
from debench.scoring.scores import verdicts_report
from debench.testing.stub_server import StubServer, fixed_responder
from debench.view.arena import build_arena_view
from debench.view.model import build_view

# --------------------------------------------------------------------------------- speeches


def _rate(out: Path, speeches: Path, *args: str) -> dict[str, Any]:
    """``debench rate-speeches``: the report and chart it wrote, or its exit code and message."""
    proc = run_cli(
        "rate-speeches", "--speeches", str(speeches), "--bootstrap", "200", "--output-dir", str(out), "--no-progress",
        *args, env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )  # fmt: skip
    replace = places(speeches=speeches, out=out, data=DATA_DIR)
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
    with temporary_folder() as out:
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
    with temporary_folder() as tmp:
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
    ok(run_cli("eval", *args, "--output-dir", str(out), "--no-progress", "--data-dir", str(DATA_DIR)))
    return next(p for p in out.glob("*/*.json") if not p.name.endswith(".meta.json"))


def run_view() -> dict[str, Any]:
    """The run report's contents (before rendering) for a seeded random judge on IBM speeches."""
    with temporary_folder() as out:
        results = _eval(out, "--task", "ibm_speech_likert", "--model", "baseline/random", "--limit", "12")
        view = build_view(results, data_dir=str(DATA_DIR))
        view["facts"] = [fact for fact in view["facts"] if fact[0] != "created"]
        return frozen_form(view, places(out=out, data=DATA_DIR))


def compare_two_runs() -> dict[str, Any]:
    """``debench compare`` of a seeded random judge and the majority baseline with each test, and
    of runs it refuses to compare."""
    with temporary_folder() as out:
        common = ("--task", "debateart_winner", "--limit", "40")
        a = _eval(out / "a", *common, "--model", "baseline/random", "--seed", "1")
        b = _eval(out / "b", *common, "--model", "baseline/majority")
        other_task = _eval(out / "c", "--task", "debateart_source", "--limit", "5", "--model", "baseline/majority")
        where = places(out=out)
        compared = {
            test: frozen_form(compare_runs(a, b, test=test, n=300, seed=3, data_dir=str(DATA_DIR)), where)
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
            compared[name] = frozen_form(failure(lambda x=x, y=y: compare_runs(x, y, data_dir=str(DATA_DIR))), where)
        both = [
            _edited(r, out / f"h{n}", lambda r: r["dataset"].update(content_hash="sha256:" + "1" * 64))
            for n, r in enumerate((a, b))
        ]
        compared["data not found"] = frozen_form(failure(lambda: compare_runs(*both, data_dir=str(DATA_DIR))), where)
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
    with temporary_folder() as tmp:
        topics = tmp / "t.txt"
        topics.write_text("Is tea better than coffee?\nShould cities ban cars? | Ban | Keep\n", encoding="utf-8")
        with StubServer(responder=_arena_responder) as srv:
            stub = srv.base_url
            ok(
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
            stub: "<stub>", folder.name: "<arena folder>", **places(tmp=tmp),
            **{i: f"<model id {n}>" for n, i in enumerate(ids)},
        }  # fmt: skip
        read = (folder / "debates.jsonl").read_text(encoding="utf-8").splitlines()
        return {
            "config": frozen_form(json.loads((folder / "arena_config.json").read_text(encoding="utf-8")), replace),
            "judgments": frozen_form(judgments, replace),
            "debates": frozen_form([json.loads(line) for line in read], replace),
            "view": frozen_form(build_arena_view(folder), replace),
        }


# ------------------------------------------------------------------------------------ Debatrix


def debatrix_chain(method: str) -> dict[str, Any]:
    """A DebateArt debate through a Debatrix variant: every step's prompt (its hash), score and
    memory, the record's verdicts and the verdicts report."""
    with temporary_folder() as tmp, StubServer(responder=per_prompt_responder) as srv:
        results = _eval(
            tmp, "--task", "debateart_winner", "--model", "openai/stub", "--api-base", srv.base_url,
            "--method", method, "--limit", "1", "--bootstrap", "50",
        )  # fmt: skip
        data = json.loads(results.read_text(encoding="utf-8"))
        (record,) = read_records(results.parent / data["samples_file"])
    steps = [
        [
            s.get("column"),
            s["step"],
            s.get("speech") or s.get("side"),
            s["prompt_sha256"][:16],
            s.get("score"),
            s.get("memory"),
        ]
        for s in record.steps
    ]
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
