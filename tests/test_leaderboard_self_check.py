"""The submitter's self-check (``debench validate --spot-check N``, through the endpoint its identity
names: it verifies nothing), and the model rebuilt from a recorded identity that it shares with the
leaderboard's own run of every document (tests/test_leaderboard_reproduce.py)."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir

from debench.data.samples import SampleRecord
from debench.leaderboard.rebuild import model_from_identity
from debench.leaderboard.self_check import draw
from debench.testing.stub_server import StubServer, fixed_responder, likert_responder

TASK = "ibm_speech_likert"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _submit(tmp_path: Path, port: int) -> Path:
    with StubServer(port=port, responder=likert_responder(seed=7, unparseable_rate=0.1)):
        proc = run_cli(
            "eval",
            "--task",
            TASK,
            "--model",
            "openai/judge@temperature=0.2",
            "--api-base",
            f"http://127.0.0.1:{port}/v1",
            "--limit",
            "40",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(tmp_path / "sub"),
            "--no-progress",
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "cache")},
        )
    assert proc.returncode == 0, proc.stderr
    return next((tmp_path / "sub").rglob("results_*.json"))


@pytest.mark.slow
@pytest.mark.real_data("re-judges 12 of a 40-speech submission (the sample has 8)")
def test_a_self_check_with_the_same_model_passes_and_one_that_answers_otherwise_is_refused(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    port = _free_port()
    results = _submit(tmp_path, port)
    env = {"DEBENCH_CACHE_DIR": str(tmp_path / "cache")}  # the cache holds every answer: the check must not use it
    with StubServer(port=port, responder=likert_responder(seed=7, unparseable_rate=0.1)) as srv:
        proc = run_cli(
            "validate",
            str(results),
            "--data-dir",
            str(DATA_DIR),
            "--spot-check",
            "12",
            "--spot-check-seed",
            "3",
            env=env,
        )
        asked = srv.stats.requests
    assert proc.returncode == 0, proc.stderr
    assert "self-check 100% at its own endpoint (not a verification)" in proc.stdout
    assert len(asked) == 12 and {b["temperature"] for b in asked} == {0.2}  # the submission's own settings, no cache
    with StubServer(port=port, responder=fixed_responder("Score: 1")):
        proc = run_cli(
            "validate",
            str(results),
            "--data-dir",
            str(DATA_DIR),
            "--spot-check",
            "12",
            "--spot-check-seed",
            "3",
            env=env,
        )
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert (
        len(line.splitlines()) == 1
        and str(results) in line
        and "field 'spot_check'" in line
        and "below the 80%" in line
    )


@pytest.mark.slow  # the refused connections are retried with the default backoff (about a minute of waiting)
@pytest.mark.real_data("re-judges 12 of a 40-speech submission (the sample has 8)")
def test_an_unreachable_model_is_a_refusal_not_a_pass(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    port = _free_port()
    results = _submit(tmp_path, port)  # the server is gone afterwards
    proc = run_cli(
        "validate",
        str(results),
        "--data-dir",
        str(DATA_DIR),
        "--spot-check",
        "3",
        env={"DEBENCH_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert proc.returncode == 2 and "could not re-judge" in proc.stderr


def test_the_model_is_rebuilt_from_its_identity_and_the_draw_is_seeded() -> None:
    ident = {
        "name": "openai/x",
        "send_grammar": True,
        "api_base": ["http://127.0.0.1:9/v1"],
        "generation": {"temperature": 0.3, "top_k": 5},
    }
    assert model_from_identity(ident, None).identity() == ident
    ens = {
        "name": "ensemble-majority(baseline/first,openai/x)",
        "aggregate": "majority",
        "members": [{"name": "baseline/first", "seed": 0}, ident],
    }
    assert model_from_identity(ens, None).identity() == ens
    recs = [SampleRecord(doc_id=str(i), status="error" if i % 5 == 0 else "ok") for i in range(50)]
    a, b = draw(recs, 10, seed=1), draw(recs, 10, seed=2)
    assert a == draw(recs, 10, seed=1) and a != b and len(a) == 10
    assert all(int(d) % 5 for d in a)  # only answered documents
    assert json.dumps(sorted(a, key=int)) == json.dumps(a)  # in document order
