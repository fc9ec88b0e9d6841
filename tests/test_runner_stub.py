"""The runner against a local OpenAI-compatible stub server on 127.0.0.1: concurrency, retries,
faults, the cache and resume-after-kill, on real IBM speeches."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from clihelp import run_cli, with_default_sigint
from conftest import DATA_DIR, real_data_dir

from debench.data.samples import read_records
from debench.models.factory import make_model, parse_model_args
from debench.run.pipeline import EvalOptions, evaluate_task
from debench.run.task_lookup import load_task
from debench.task.parsing import parse_answer
from debench.testing.fixed_status import FixedStatusServer
from debench.testing.stub_server import FaultPlan, StubServer, likert_responder

FAST_RETRY = "max_retries=4,base_delay=0.05,max_delay=2,timeout=5"


def run_eval(
    srv: StubServer,
    out: Path,
    *,
    limit: int,
    concurrency: int = 8,
    model_args: str = FAST_RETRY,
    use_cache: bool = True,
):
    real_data_dir("ibm_debate_speeches")
    task, path = load_task("ibm_speech_likert")
    model = make_model("openai/stub", api_bases=[srv.base_url], model_args=parse_model_args(model_args))
    opts = EvalOptions(
        output_dir=out,
        limit=limit,
        concurrency=concurrency,
        data_source="local",
        data_dir=str(DATA_DIR),
        progress=False,
        n_bootstrap=50,
        use_cache=use_cache,
    )
    return asyncio.run(evaluate_task(task, path, model, opts))


@pytest.mark.real_data("runs 12 to 120 IBM speeches (the sample has 8)")
def test_concurrency_limit_is_reached_and_never_exceeded(tmp_path: Path) -> None:
    with StubServer(latency=0.25) as srv:
        out = run_eval(srv, tmp_path, limit=48, concurrency=8)
        stats = srv.stats
    assert stats.peak_in_flight == 8
    assert stats.total_requests == 48
    assert out.results.n_samples == 48


@pytest.mark.real_data("runs 12 to 120 IBM speeches (the sample has 8)")
def test_realistic_answers_are_parsed_and_failures_counted(tmp_path: Path) -> None:
    with StubServer(responder=likert_responder(seed=5, unparseable_rate=0.2)) as srv:
        out = run_eval(srv, tmp_path, limit=120)
    recs = read_records(out.samples_path)
    assert len(recs) == 120
    task, _ = load_task("ibm_speech_likert")
    expected_failures = sum(1 for r in recs if not parse_answer(r.response, task.parser).ok)
    assert 0 < expected_failures < 120
    assert out.results.n_parse_failures == expected_failures
    assert out.results.metrics["parse_failure_rate"].value == pytest.approx(expected_failures / 120)
    assert out.results.metrics["kendall_tau_c"].n == 120 - expected_failures
    for r in recs:
        assert r.status in ("ok", "parse_failure")
        if r.status == "ok":
            assert r.prediction == parse_answer(r.response, task.parser).value


@pytest.mark.parametrize(
    "kind", ["429", "500", "drop", pytest.param("slow", marks=pytest.mark.slow)]
)  # "slow": answers wait for the timeout
@pytest.mark.real_data("runs 12 to 120 IBM speeches (the sample has 8)")
def test_transient_faults_are_retried_until_success(tmp_path: Path, kind: str) -> None:
    plan = FaultPlan(fail_first_n_per_prompt=2, fail_kind=kind, retry_after="0.3", slow_seconds=8)
    args = FAST_RETRY.replace("timeout=5", "timeout=1")
    with StubServer(faults=plan) as srv:
        t0 = time.perf_counter()
        out = run_eval(srv, tmp_path, limit=12, concurrency=4, model_args=args)
        elapsed = time.perf_counter() - t0
        stats = srv.stats
    assert out.results.n_errors == 0 and out.results.n_samples == 12
    assert all(n == 3 for n in stats.attempts_per_prompt.values())
    assert all(r.attempts == 3 for r in read_records(out.samples_path))
    assert out.results.usage.n_requests == 36
    if kind == "429":
        # Retry-After: 0.3 s honoured twice per prompt, 12 prompts through 4 workers
        assert elapsed >= 3 * 2 * 0.3


def test_retries_are_capped_and_failures_recorded_as_errors(tmp_path: Path) -> None:
    plan = FaultPlan(fail_first_n_per_prompt=100, fail_kind="500")
    with StubServer(faults=plan) as srv:
        out = run_eval(srv, tmp_path, limit=6, concurrency=3, model_args="max_retries=2,base_delay=0.01,max_delay=0.05")
        stats = srv.stats
    assert stats.total_requests == 6 * 3  # first attempt + 2 retries, never more
    assert out.results.n_errors == 6
    assert out.results.n_parse_failures == 0
    assert out.results.metrics["kendall_tau_c"].value is None and out.results.metrics["kendall_tau_c"].n == 0
    recs = read_records(out.samples_path)
    assert {r.status for r in recs} == {"error"} and all("gave up after 3 attempts" in r.error for r in recs)
    assert {r.attempts for r in recs} == {3}  # the record counts the requests its error names
    assert out.results.usage.n_requests == stats.total_requests == 18


@pytest.mark.real_data("runs 12 to 120 IBM speeches (the sample has 8)")
def test_cached_rerun_makes_no_request(tmp_path: Path) -> None:
    with StubServer() as srv:
        first = run_eval(srv, tmp_path / "a", limit=30)
        n_first = srv.stats.total_requests
        second = run_eval(srv, tmp_path / "b", limit=30)  # new output dir: nothing to resume, all cached
        n_second = srv.stats.total_requests - n_first
    assert n_first == 30 and n_second == 0
    assert second.results.usage.n_cached == 30 and second.results.usage.n_requests == 0
    assert second.results.metrics["kendall_tau_c"].value == first.results.metrics["kendall_tau_c"].value


def test_api_error_rate_cli_exit_code(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    plan = FaultPlan(fail_first_n_per_prompt=100, fail_kind="500")
    with StubServer(faults=plan) as srv:
        proc = run_cli(
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "openai/stub",
            "--api-base",
            srv.base_url,
            "--limit",
            "4",
            "--output-dir",
            str(tmp_path),
            "--no-progress",
            "--model-args",
            "max_retries=1,base_delay=0.01",
            "--max-error-rate",
            "0.5",
            "--data-source",
            "local",
            "--data-dir",
            str(DATA_DIR),
            "--bootstrap",
            "20",
        )
    assert proc.returncode == 1, proc.stderr
    assert "is above --max-error-rate" in proc.stderr
    assert list(tmp_path.glob("*/results_*.json"))  # results are written all the same


def test_missing_provider_key_is_one_line_exit_2(tmp_path: Path) -> None:
    """No OPENAI_API_KEY for gpt-4o: a user error before any request, not a run of retried errors."""
    real_data_dir("ibm_debate_speeches")
    proc = run_cli(
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "gpt-4o",
        "--limit",
        "3",
        "--concurrency",
        "3",
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        "--data-source",
        "local",
        "--data-dir",
        str(DATA_DIR),
        env={"OPENAI_API_KEY": None},
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines() == [
        "debench: error: model 'gpt-4o' needs OPENAI_API_KEY in the environment (or --api-key)"
    ]
    assert not [
        r for p in tmp_path.glob("*/samples_*.jsonl") for r in read_records(p)
    ]  # nothing recorded as an answer or error


def _eval_cmd(srv: StubServer, out: Path, limit: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "debench.cli",
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "openai/stub",
        "--api-base",
        srv.base_url,
        "--limit",
        str(limit),
        "--concurrency",
        "4",
        "--output-dir",
        str(out),
        "--no-progress",
        "--no-cache",
        "--data-source",
        "local",
        "--data-dir",
        str(DATA_DIR),
        "--bootstrap",
        "20",
    ]


def _wait_for_lines(path: Path, n: int, timeout: float = 120) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if path.exists() and path.read_bytes().count(b"\n") >= n:
            return
        time.sleep(0.05)
    raise AssertionError(f"{path} never reached {n} lines")


@pytest.mark.slow  # a real process, interrupted mid-run, then resumed
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT], ids=["kill-9", "ctrl-c"])
@pytest.mark.real_data("runs 12 to 120 IBM speeches (the sample has 8)")
def test_resume_after_interruption_loses_and_duplicates_nothing(tmp_path: Path, sig: int) -> None:
    real_data_dir("ibm_debate_speeches")
    limit = 40
    with StubServer(latency=0.15) as srv:
        proc = subprocess.Popen(
            with_default_sigint(_eval_cmd(srv, tmp_path, limit)),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        log_glob = lambda: list(tmp_path.glob("openai__stub/samples_ibm_speech_likert_*.jsonl"))  # noqa: E731 - a one-line helper beside its use
        deadline = time.time() + 120
        while not log_glob() and time.time() < deadline:
            time.sleep(0.05)
        log = log_glob()[0]
        _wait_for_lines(log, 10)
        os.kill(proc.pid, sig)
        out, err = proc.communicate(timeout=60)
        if sig == signal.SIGINT:
            assert proc.returncode == 130 and "rerun the same command to resume" in err, (
                f"exit {proc.returncode}; stdout: {out[-1500:]}; stderr: {err[-1500:]}"
            )
        before = {r.doc_id for r in read_records(log)}
        assert 10 <= len(before) < limit
        n_before = srv.stats.total_requests
        again = run_cli(*_eval_cmd(srv, tmp_path, limit)[3:])  # the rerun needs no new process
        assert again.returncode == 0, again.stderr
        n_resumed = srv.stats.total_requests - n_before
    records = read_records(log)
    ids = [r.doc_id for r in records]
    assert len(ids) == limit == len(set(ids))  # every document exactly once
    assert n_resumed == limit - len(before)  # finished samples were not asked again
    results = json.loads(next(tmp_path.glob("openai__stub/results_*.json")).read_text())
    assert results["n_samples"] == limit


def test_permanent_errors_fail_fast(tmp_path: Path) -> None:
    """A content filter's 400 (about one prompt) is not retried: exactly one request per sample,
    recorded as an error with its one attempt. (A 401 / 404 / 501 stops the run, and a 400 / 422
    before any answer: see test_dead_endpoints.py, test_hostile_inputs.py, test_refused_documents.py.)"""
    err = {
        "error": {"message": "flagged by the safety system", "type": "invalid_request_error", "code": "content_filter"}
    }
    with FixedStatusServer(400, err) as srv:
        real_data_dir("ibm_debate_speeches")
        task, path = load_task("ibm_speech_likert")
        model = make_model("openai/missing", api_bases=[srv.base_url], model_args=parse_model_args(FAST_RETRY))
        opts = EvalOptions(
            output_dir=tmp_path,
            limit=3,
            concurrency=1,
            data_source="local",
            data_dir=str(DATA_DIR),
            progress=False,
            n_bootstrap=10,
        )
        out = asyncio.run(evaluate_task(task, path, model, opts))
    assert len(srv.hits) == 3  # max_retries=4 was allowed, none was used
    assert out.results.n_errors == 3
    assert all(
        r.status == "error" and "BadRequestError" in r.error and r.attempts == 1 for r in read_records(out.samples_path)
    )
    assert out.results.usage.n_requests == 3
