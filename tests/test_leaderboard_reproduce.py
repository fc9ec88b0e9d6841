"""The leaderboard ranks only its own numbers (issue 29): the refresh job runs the canonical judge
an entry nominates on every document through the trusted endpoint (a stub OpenAI server on
127.0.0.1 standing in for the provider), ranks the job's numbers in the judge's row, and shows the
submitted ones as the nomination's claim beside it. The attacks of the issue, rebuilt: each must
fail to get a forged number ranked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA_DIR, real_data_dir
from lbhelp import REPO, board_args, edit_records, rescore, samples_of, without_endpoint

from debench.data.samples import SampleRecord
from debench.leaderboard.compare import compare
from debench.leaderboard.entry_rules import entry_problems
from debench.leaderboard.public_text import public_text
from debench.leaderboard.queue import Queue, extend
from debench.leaderboard.same_judge import request_identity
from debench.run.task_lookup import installed_task
from debench.testing.stub_server import StubServer, likert_responder

MODEL = "gpt-4o-mini-2024-07-18"
TASK = "ibm_speech_likert"


def _refresh(root: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, str(REPO / "scripts" / "refresh_leaderboard.py"), *board_args(root / "leaderboard", *extra)]
    return subprocess.run(
        cmd, capture_output=True, text=True, check=False, env={**os.environ, **(env or {})}, timeout=1800
    )


def _eval(out: Path, base_url: str, model: str = MODEL) -> Path:
    """``debench eval`` of ``model`` with no api_base in its identity: litellm reaches the OpenAI
    API, which OPENAI_BASE_URL sends to the stub (the submitter's own proxy)."""
    env = {
        **os.environ,
        "OPENAI_BASE_URL": base_url,
        "OPENAI_API_KEY": "sk-submitter",
        "DEBENCH_CACHE_DIR": str(out / "cache"),
    }
    cmd = [
        sys.executable,
        "-m",
        "debench.cli",
        "eval",
        "--task",
        TASK,
        "--model",
        model,
        "--output-dir",
        str(out),
        "--data-source",
        "local",
        "--data-dir",
        str(DATA_DIR),
        "--no-progress",
        "--no-cache",
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env, timeout=1800)
    assert proc.returncode == 0, proc.stderr
    (results,) = sorted(out.rglob(f"results_{TASK}_*.json"))
    return results


def _board(root: Path) -> dict[str, Any]:
    return dict(json.loads((root / "leaderboard" / "leaderboard.json").read_text()))


@pytest.mark.slow
@pytest.mark.real_data("a full 631-speech run through the stub, twice")
def test_a_light_forgery_is_ranked_only_with_the_leaderboards_own_numbers(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    honest = likert_responder(seed=3, unparseable_rate=0.0)
    with StubServer(responder=honest) as srv:
        results = _eval(tmp_path / "run", srv.base_url)
    subs = tmp_path / "leaderboard" / "submissions" / "forger"
    subs.mkdir(parents=True)
    samples = samples_of(results)
    (subs / results.name).write_bytes(results.read_bytes())
    (subs / samples.name).write_bytes(samples.read_bytes())
    # the submitter's proxy is in the identity (the endpoint reached, issue 34); a forger deletes it, so
    # that the entry reads as a run of the provider's own API, fingerprint recomputed to match
    without_endpoint(subs / results.name)
    # the light touch of the issue: 10% of the documents set to the human label, metrics recomputed
    edit_records(
        subs / samples.name,
        lambda i, r: (
            r.update(
                prediction=min(5, max(1, round(r["target"]))), response=f"Score: {min(5, max(1, round(r['target'])))}"
            )
            if i % 10 == 0
            else None
        ),
    )
    rescore(subs / results.name)
    forged = json.loads((subs / results.name).read_text())["metrics"]["kendall_tau_c"]["value"]

    got = _refresh(tmp_path)  # no --reproduce: shown as self-reported, its judge's run waiting
    assert got.returncode == 0, got.stderr
    board = _board(tmp_path)
    assert [(w["judge"], w["nominated_by"]) for w in board["waiting"]] == [
        (f"{MODEL}/direct", f"forger/{results.name}")
    ]
    (task,) = [t for t in board["tasks"] if t["name"] == TASK]
    assert task["verified"] == [] and task["self_reported"][0]["queue_position"] == 1

    with StubServer(responder=honest) as srv:  # the trusted endpoint answers as the model does
        got = _refresh(
            tmp_path, "--reproduce", env={"OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": "sk-maintainers"}
        )
        asked = srv.stats.requests
    assert got.returncode == 0, got.stderr
    assert len(asked) == 631  # every document, no cache
    board = _board(tmp_path)
    (task,) = [t for t in board["tasks"] if t["name"] == TASK]
    (row,) = task["verified"]  # the canonical judge's row: the job's run, the job's numbers
    (entry,) = task["self_reported"]  # the forger's nomination: its numbers are its claim
    rep = entry["comparison"]
    assert row["rank"] == 1 and row["judge"] == f"{MODEL}/direct" and row["canonical"]["nominations"] == [entry["id"]]
    assert row["metrics"]["kendall_tau_c"]["value"] == rep["reproduced"] != forged
    assert entry["metrics"]["kendall_tau_c"]["value"] == forged == rep["submitted"] and entry["rank"] is None
    assert rep["within_noise"] is False and rep["difference"] > 0 and 0.85 < rep["agreement"] < 0.95
    assert str(tmp_path) not in (tmp_path / "leaderboard" / "leaderboard.json").read_text() + got.stdout + got.stderr
    # a run once made is final: a second refresh asks nothing
    with StubServer(responder=honest) as srv:
        got = _refresh(
            tmp_path, "--reproduce", env={"OPENAI_BASE_URL": srv.base_url, "OPENAI_API_KEY": "sk-maintainers"}
        )
        assert srv.stats.requests == []
    assert got.returncode == 0, got.stderr


# ----------------------------------------------------------------------------------------- fast


def test_a_seed_at_temperature_0_is_not_a_new_judge() -> None:
    task = installed_task(TASK)
    assert task is not None and task.generation.temperature == 0
    a = {"name": MODEL, "send_grammar": False, "generation": {"seed": 1}}
    b = {"name": MODEL, "send_grammar": False, "generation": {"seed": 2}}
    assert request_identity(a, task) == request_identity(b, task) == {"name": MODEL, "send_grammar": False}
    warm = [{"name": MODEL, "generation": {"seed": s, "temperature": 0.7}} for s in (1, 2)]
    assert request_identity(warm[0], task) != request_identity(warm[1], task)
    base = {"name": "baseline/random", "seed": 4}
    assert request_identity(base, task) == base


def test_no_control_character_absolute_path_or_workflow_command_reaches_the_log() -> None:
    root = Path("/home/runner/work/repo/leaderboard/submissions")
    text = public_text(f"{root}/evil/results_x.json: model 'm\n::error file=a::forged'", [(root, "submissions")])
    assert "\n" not in text and "/home/runner" not in text and "submissions/evil/results_x.json" in text
    assert not public_text("::error::x").startswith("::")


def test_a_folder_gets_one_results_file_per_task_each_with_its_own_log(tmp_path: Path) -> None:
    folder = tmp_path / "variants"
    folder.mkdir()
    paths = []
    for i in range(3):
        p = folder / f"results_{TASK}_{i:012d}.json"
        p.write_text(
            json.dumps(
                {
                    "task": {"name": TASK if i < 2 else "bp_top_team"},
                    "samples_file": "samples_shared.jsonl",
                    "model": {"name": "m"},
                }
            )
        )
        paths.append(p)
    got = entry_problems(paths)
    assert set(got) == {paths[1], paths[2]}
    assert "one results file per task" in str(got[paths[1]]) and "shares its samples log" in str(got[paths[2]])
    bad = tmp_path / "nl"
    bad.mkdir()
    q = bad / "results_x_1.json"
    q.write_text(json.dumps({"model": {"name": "gpt\n::error::x"}}))
    assert "control character" in str(entry_problems([q])[q])


def test_the_queue_keeps_merge_order() -> None:
    q = extend(Queue(entries=["b/r.json"]), ["a/r.json", "b/r.json", "c/r.json"])
    assert q.entries == ["b/r.json", "a/r.json", "c/r.json"] and q.folders() == ["b", "a", "c"]


def test_identical_runs_differ_by_zero_within_noise_and_a_forgery_does_not(tmp_path: Path) -> None:
    from debench.data.loading import load_task_data

    task = installed_task(TASK)
    assert task is not None
    real_data_dir("ibm_debate_speeches")
    docs = load_task_data(task, "local", str(DATA_DIR)).docs[:200]
    import random

    rng = random.Random(1)
    run = [SampleRecord(doc_id=d.doc_id, status="ok", prediction=rng.randint(1, 5)) for d in docs]
    same = compare(task, docs, run, run, "kendall_tau_c")
    assert same.difference == 0 and same.within_noise is True and same.agreement == 1
    gold = [
        r.model_copy(update={"prediction": min(5, max(1, round(d.target)))}) if i % 5 == 0 else r
        for i, (r, d) in enumerate(zip(run, docs, strict=True))
    ]
    forged = compare(task, docs, gold, run, "kendall_tau_c")
    assert forged.difference is not None and forged.difference > 0 and forged.within_noise is False
