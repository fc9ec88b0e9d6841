"""``eval --batch``: a run through an OpenAI-compatible batch API (the stub's ``/v1/files`` and
``/v1/batches``), in-process and as a child process: answers equal a live run's, one batch per
run, priced at the batch rate, resumed after ``kill -9`` without a second batch, and an expired or
failed batch stops the command with one line, keeping what it answered."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir

from debench.data.samples import read_records
from debench.models.price_table import lookup
from debench.testing.stub_server import BatchPlan, StubProcess, StubServer

MODEL = "openai/gpt-4o-mini"  # in litellm's price table (with batch prices); the stub answers any model name
N = 24


def eval_args(base_url: str, out: Path, *extra: str) -> list[str]:
    return [
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        MODEL,
        "--api-base",
        base_url,
        "--limit",
        str(N),
        "--output-dir",
        str(out),
        "--no-progress",
        "--bootstrap",
        "20",
        "--data-dir",
        str(DATA_DIR),
        *extra,
    ]


def batch_args(base_url: str, out: Path, *extra: str) -> list[str]:
    return eval_args(base_url, out, "--batch", "--batch-poll", "0.05", *extra)


def run_folder(out: Path) -> Path:
    return out / "openai__gpt-4o-mini"


@pytest.fixture(autouse=True)
def _data() -> None:
    real_data_dir("ibm_debate_speeches")


@pytest.mark.real_data("24 IBM speeches (the sample has 8)")
@pytest.mark.slow  # a live run, a batch run and its rerun: about 3.5 s
def test_a_batch_run_answers_as_a_live_run_at_the_batch_price(tmp_path: Path) -> None:
    with StubServer() as srv:
        live = run_cli(*eval_args(srv.base_url, tmp_path / "live"), env={"DEBENCH_CACHE_DIR": str(tmp_path / "c1")})
        srv.reset_stats()
        batch = run_cli(*batch_args(srv.base_url, tmp_path / "batch"), env={"DEBENCH_CACHE_DIR": str(tmp_path / "c2")})
        stats = srv.stats
        results = json.loads(next(run_folder(tmp_path / "batch").glob("results_*.json")).read_text())
        again = run_cli(*batch_args(srv.base_url, tmp_path / "batch"), env={"DEBENCH_CACHE_DIR": str(tmp_path / "c2")})
        after = srv.stats
    assert live.returncode == 0 and batch.returncode == 0 and again.returncode == 0, batch.stderr
    assert stats.total_requests == 0 and stats.batches_created == 1  # no live request: one batch
    assert after.batches_created == 1  # the rerun finds every sample finished: nothing submitted
    live_recs = {r.doc_id: r for r in read_records(next(run_folder(tmp_path / "live").glob("samples_*.jsonl")))}
    batch_recs = read_records(next(run_folder(tmp_path / "batch").glob("samples_*.jsonl")))
    assert len(batch_recs) == N
    price = lookup(MODEL)
    assert price is not None and price.input_cost_per_token_batches is not None
    for r in batch_recs:
        twin = live_recs[r.doc_id]
        assert (r.status, r.prediction, r.response, r.prompt_tokens) == (
            twin.status,
            twin.prediction,
            twin.response,
            twin.prompt_tokens,
        )
        assert r.cost_usd == pytest.approx(0.5 * twin.cost_usd)  # gpt-4o-mini's batch rates are half its live rates
    state = json.loads(next(run_folder(tmp_path / "batch").glob("batches_*.json")).read_text())
    assert (
        results["config"]["batch"]["batches"] == [b["batch_id"] for b in state["batches"]]
        and len(state["batches"]) == 1
    )
    assert state["batches"][0]["status"] == "collected" and len(state["batches"][0]["keys"]) == N
    assert results["model"]["batch"] is True and results["usage"]["n_requests"] == N


@pytest.mark.slow  # a real process, killed mid-run, then resumed
@pytest.mark.real_data("24 IBM speeches (the sample has 8)")
def test_a_killed_run_resumes_its_submitted_batch(tmp_path: Path) -> None:
    """The stub (in this process) takes 4 s over the batch; the command is killed once the batch id
    is in its folder; the same command then collects that batch: one batch in all, every document once."""
    out = tmp_path / "out"
    env = {**os.environ, "DEBENCH_CACHE_DIR": str(tmp_path / "cache")}
    with StubServer(batch=BatchPlan(duration=4.0)) as srv:
        proc = subprocess.Popen(
            [sys.executable, "-m", "debench.cli", *batch_args(srv.base_url, out)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 120
        while not list(run_folder(out).glob("batches_*.json")) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        state = json.loads(next(run_folder(out).glob("batches_*.json")).read_text())
        assert [b["status"] for b in state["batches"]] == ["submitted"]
        assert not list(run_folder(out).glob("samples_*.jsonl")) or not read_records(
            next(run_folder(out).glob("samples_*.jsonl"))
        )
        resumed = run_cli(*batch_args(srv.base_url, out), env={"DEBENCH_CACHE_DIR": str(tmp_path / "cache")})
        stats = srv.stats
    assert resumed.returncode == 0, resumed.stderr
    assert stats.batches_created == 1 and stats.total_requests == 0
    recs = read_records(next(run_folder(out).glob("samples_*.jsonl")))
    assert sorted(r.doc_id for r in recs) == sorted({r.doc_id for r in recs}) and len(recs) == N
    state = json.loads(next(run_folder(out).glob("batches_*.json")).read_text())
    assert [b["status"] for b in state["batches"]] == ["collected"]


@pytest.mark.parametrize(("outcome", "saved"), [("expired", N // 2), ("failed", 0)])
@pytest.mark.real_data("24 IBM speeches (the sample has 8)")
def test_an_expired_or_failed_batch_is_one_line_and_a_rerun_submits_the_rest(
    tmp_path: Path, outcome: str, saved: int
) -> None:
    out = tmp_path / "out"
    env = {"DEBENCH_CACHE_DIR": str(tmp_path / "cache")}
    with StubProcess() as srv:  # the stub as a child process
        srv.configure(batch=BatchPlan(outcome=outcome, answered_share=0.5))
        first = run_cli(*batch_args(srv.base_url, out), env=env)
        assert first.returncode == 2, first.stderr
        assert (
            len(first.stderr.strip().splitlines()) == 1
            and f" {outcome} " in first.stderr
            and "rerun the same command" in first.stderr
        )
        samples = list(run_folder(out).glob("samples_*.jsonl"))
        assert (len(read_records(samples[0])) if samples else 0) == saved  # what the batch answered is kept
        srv.configure(batch=BatchPlan(outcome="completed"))
        second = run_cli(*batch_args(srv.base_url, out), env=env)
        stats = srv.stats
    assert second.returncode == 0, second.stderr
    state = json.loads(next(run_folder(out).glob("batches_*.json")).read_text())
    assert [b["status"] for b in state["batches"]] == [outcome, "collected"]
    assert len(state["batches"][1]["keys"]) == N - saved  # only the unanswered requests went again
    assert stats.batches_created == 2 and stats.total_requests == 0
    assert len(read_records(next(run_folder(out).glob("samples_*.jsonl")))) == N


@pytest.mark.real_data("24 IBM speeches (the sample has 8)")
def test_batch_through_litellm(tmp_path: Path) -> None:
    with StubServer() as srv:
        proc = run_cli(
            *batch_args(srv.base_url, tmp_path, "--model-args", "client=litellm"),
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "cache")},
        )
        stats = srv.stats
    assert proc.returncode == 0, proc.stderr
    assert stats.batches_created == 1 and stats.total_requests == 0
    assert len(read_records(next(run_folder(tmp_path).glob("samples_*.jsonl")))) == N


def test_a_model_without_a_batch_api_is_one_line(tmp_path: Path) -> None:
    proc = run_cli("eval", "--task", "ibm_speech_likert", "--model", "baseline/random", "--batch", "--limit", "3",
                   "--output-dir", str(tmp_path), "--no-progress", "--data-dir", str(DATA_DIR))  # fmt: skip
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and "--batch" in proc.stderr, proc.stderr
