"""A request the endpoint refuses as malformed (400, 422): the run stops while the endpoint has
answered none of its requests (every request is built the same way), and is that document's error
once it has (a provider that refuses one document's prompt), counted by ``--max-error-rate``; a
rerun asks only for the documents still missing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clihelp import invoke
from conftest import DATA_DIR, real_data_dir

from debench.testing.fixed_status import FixedStatusServer
from debench.testing.stub_server import FaultPlan, StubServer

LIMIT = 8


def _args(api_base: str, out: Path, *extra: str) -> list[str]:
    return ["eval", "--task", "ibm_speech_likert", "--model", "openai/stub", "--api-base", api_base,
            "--limit", str(LIMIT), "--output-dir", str(out), "--no-progress", "--bootstrap", "20",
            "--data-dir", str(DATA_DIR), "--model-args", "max_retries=2,base_delay=0.01", *extra]  # fmt: skip


@pytest.fixture(scope="module")
def pieces(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """For each document, in the order a run asks them one at a time, a piece of its prompt that no
    other document's prompt has."""
    real_data_dir("ibm_debate_speeches")
    with StubServer() as srv:
        invoke(*_args(srv.base_url, tmp_path_factory.mktemp("order"), "--concurrency", "1"))
        prompts = [r["messages"][-1]["content"] for r in srv.stats.requests]
    out = [p[-200:] for p in prompts]
    assert len(out) == LIMIT and all(sum(x in p for p in prompts) == 1 for x in out)
    return out


@pytest.mark.parametrize("refused", [0, 5])
def test_one_refused_document_is_its_error_and_a_rerun_asks_only_for_it(
    tmp_path: Path, pieces: list[str], refused: int
) -> None:
    """The refused document asked first (its 400 may come before any answer: it waits for the
    others' answers) or among the others; four requests at a time."""
    plan = FaultPlan(refuse=[pieces[refused]])
    with StubServer(faults=plan, latency=0.05) as srv:
        first = invoke(*_args(srv.base_url, tmp_path, "--concurrency", "4", "--max-error-rate", "0.2"))
        asked_first = srv.stats.total_requests
        srv.reset_stats()
        again = invoke(*_args(srv.base_url, tmp_path, "--concurrency", "4", "--max-error-rate", "0.2"))
        asked_again = [r["messages"] for r in srv.stats.requests]
    assert first.returncode == 0, first.stderr
    results = json.loads(next(tmp_path.glob("openai__stub/results_*.json")).read_text())
    assert (results["n_samples"], results["n_errors"]) == (LIMIT, 1)
    samples = [json.loads(x) for x in next(tmp_path.glob("openai__stub/samples_*.jsonl")).read_text().splitlines()]
    errors = [s for s in samples if s["status"] == "error"]
    assert len(errors) == 1 and "HTTP 400" in errors[0]["error"]
    assert asked_first == LIMIT  # a refusal is not retried
    assert again.returncode == 0, again.stderr  # the rerun: only the missing document, refused again, its error
    assert len(asked_again) == 1 and pieces[refused] in asked_again[0][-1]["content"]


def test_the_error_counts_toward_the_error_rate(tmp_path: Path, pieces: list[str]) -> None:
    """1 of 8 documents (12.5%) is past the default --max-error-rate of 5%: exit 1, everything written."""
    with StubServer(faults=FaultPlan(refuse=[pieces[3]])) as srv:
        proc = invoke(*_args(srv.base_url, tmp_path, "--concurrency", "2"))
    assert proc.returncode == 1, proc.stderr
    assert json.loads(next(tmp_path.glob("openai__stub/results_*.json")).read_text())["n_errors"] == 1


@pytest.mark.parametrize("status", [400, 422])
def test_every_request_refused_stops_the_run_at_once(tmp_path: Path, status: int) -> None:
    err = {"error": {"message": "unsupported parameter: temperature", "type": "invalid_request_error", "code": None}}
    with FixedStatusServer(status, err) as srv:
        line = invoke(*_args(srv.base_url, tmp_path, "--concurrency", "4")).one_line_error()
        hits = list(srv.hits)
    assert srv.base_url in line and f"{status}" in line and "unsupported parameter" in line
    assert 1 <= len(hits) <= 4  # the first requests only, none retried


def test_a_refusal_before_any_answer_with_one_request_at_a_time_stops_the_run(
    tmp_path: Path, pieces: list[str]
) -> None:
    """With --concurrency 1 and the refused document first, nothing of the run was answered."""
    with StubServer(faults=FaultPlan(refuse=[pieces[0]])) as srv:
        line = invoke(*_args(srv.base_url, tmp_path, "--concurrency", "1")).one_line_error()
        asked = srv.stats.total_requests
    assert "HTTP 400" in line and asked == 1
