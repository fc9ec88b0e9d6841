"""Spot checks: the submitter's self-check (``debench validate --spot-check N``, through the endpoint its
identity names: it verifies nothing) and the leaderboard's own (the refresh job, through a trusted
endpoint, seeded by a commit after the merge, its record committed and checked at every build)."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir
from lbhelp import (
    COMMIT,
    TRUSTED,
    board_build,
    board_json,
    edit_json,
    entries_of,
    smollm2_record,
    smollm2_results,
)

from debench.leaderboard.spot_check import draw, model_from_identity, seed_from_commit
from debench.samples import SampleRecord
from debench.testing.stub_server import StubServer, fixed_responder, likert_responder

TASK = "ibm_speech_likert"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _submit(tmp_path: Path, port: int) -> Path:
    with StubServer(port=port, responder=likert_responder(seed=7, unparseable_rate=0.1)):
        proc = run_cli("eval", "--task", TASK, "--model", "openai/judge@temperature=0.2", "--api-base", f"http://127.0.0.1:{port}/v1",
                       "--limit", "40", "--data-dir", str(DATA_DIR), "--output-dir", str(tmp_path / "sub"), "--no-progress",
                       env={"DEBENCH_CACHE_DIR": str(tmp_path / "cache")})
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
        proc = run_cli("validate", str(results), "--data-dir", str(DATA_DIR), "--spot-check", "12", "--spot-check-seed", "3", env=env)
        asked = srv.stats.requests
    assert proc.returncode == 0, proc.stderr
    assert "self-check 100% at its own endpoint (not a verification)" in proc.stdout
    assert len(asked) == 12 and {b["temperature"] for b in asked} == {0.2}  # the submission's own settings, no cache
    with StubServer(port=port, responder=fixed_responder("Score: 1")):
        proc = run_cli("validate", str(results), "--data-dir", str(DATA_DIR), "--spot-check", "12", "--spot-check-seed", "3", env=env)
    assert proc.returncode == 2
    line = proc.stderr.strip()
    assert len(line.splitlines()) == 1 and str(results) in line and "field 'spot_check'" in line and "below the 80%" in line


@pytest.mark.slow  # the refused connections are retried with the default backoff (about a minute of waiting)
@pytest.mark.real_data("re-judges 12 of a 40-speech submission (the sample has 8)")
def test_an_unreachable_model_is_a_refusal_not_a_pass(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    port = _free_port()
    results = _submit(tmp_path, port)  # the server is gone afterwards
    proc = run_cli("validate", str(results), "--data-dir", str(DATA_DIR), "--spot-check", "3",
                   env={"DEBENCH_CACHE_DIR": str(tmp_path / "cache")})
    assert proc.returncode == 2 and "could not re-judge" in proc.stderr


def test_the_model_is_rebuilt_from_its_identity_and_the_draw_is_seeded() -> None:
    ident = {"name": "openai/x", "send_grammar": True, "api_base": ["http://127.0.0.1:9/v1"], "generation": {"temperature": 0.3, "top_k": 5}}
    assert model_from_identity(ident, None).identity() == ident
    ens = {"name": "ensemble-majority(baseline/first,openai/x)", "aggregate": "majority", "members": [{"name": "baseline/first", "seed": 0}, ident]}
    assert model_from_identity(ens, None).identity() == ens
    recs = [SampleRecord(doc_id=str(i), status="error" if i % 5 == 0 else "ok") for i in range(50)]
    a, b = draw(recs, 10, seed=1), draw(recs, 10, seed=2)
    assert a == draw(recs, 10, seed=1) and a != b and len(a) == 10
    assert all(int(d) % 5 for d in a)  # only answered documents
    assert json.dumps(sorted(a, key=int)) == json.dumps(a)  # in document order
    assert seed_from_commit(COMMIT) == int(COMMIT[:16], 16)


# ------------------------------------------------------------------- the leaderboard's spot check


@pytest.mark.slow
def test_the_committed_record_verifies_the_embedded_model(smollm2: Path, tmp_path: Path) -> None:
    got = board_build(smollm2, tmp_path / "out")
    assert got.exit_code == 0, got.stderr
    (entry,) = entries_of(board_json(tmp_path / "out"), TASK)["verified"]
    assert entry["rank"] == 1 and entry["tier"] == 1 and entry["standing"] == "verified"
    spot = entry["provenance"]["spot_check"]
    rec = json.loads(smollm2_record(smollm2).read_text())
    assert spot["seed"] == int(rec["seed_commit"][:16], 16) and spot["n_docs"] == 8 and spot["endpoint"] == "smollm2"
    assert spot["agreement"] == rec["agreement"] >= 0.8


@pytest.mark.slow
@pytest.mark.parametrize(
    ("tamper", "field"),
    [
        (lambda r: r.__setitem__("seed", r["seed"] + 1), "seed"),
        (lambda r: r.__setitem__("seed_commit", "f" * 40), "seed"),
        (lambda r: r.__setitem__("documents", r["documents"][::-1]), "documents"),
        (lambda r: r["documents"][0].__setitem__("rejudged", r["documents"][0]["submitted"]), "documents.0.agree"),
        (lambda r: [d.update(rejudged=d["submitted"], agree=True) for d in r["documents"]] and None, "agreement"),
        (lambda r: r["documents"][1].update(submitted='"4"', rejudged='"4"'), "documents.1.submitted"),
        (lambda r: r.__setitem__("samples_sha256", "0" * 64), "samples_sha256"),
        (lambda r: r.__setitem__("n_requested", 4), "n_requested"),
        (lambda r: r.__setitem__("checked_at", "2099-01-01T00:00:00Z"), "checked_at"),
        (lambda r: r["model_identity"].__setitem__("n_ctx", 4096), "model_identity"),
    ],
)
def test_a_tampered_record_is_refused(smollm2: Path, tmp_path: Path, tamper: Any, field: str) -> None:
    edit_json(smollm2_record(smollm2), tamper)
    got = board_build(smollm2, tmp_path / "out")
    assert got.exit_code == 2, got.stdout
    (line,) = got.stderr.strip().splitlines()
    assert str(smollm2_record(smollm2)) in line and f"field '{field}'" in line, line


@pytest.mark.slow
def test_changed_submission_files_void_the_record(smollm2: Path, tmp_path: Path) -> None:
    edit_json(smollm2_results(smollm2), lambda d: d["usage"].__setitem__("n_requests", 632))
    got = board_build(smollm2, tmp_path / "out")
    assert got.exit_code == 2 and "results_sha256" in got.stderr and "changed after the leaderboard's spot check" in got.stderr


@pytest.mark.slow
def test_an_endpoint_no_longer_trusted_leaves_the_entry_self_reported(smollm2: Path, tmp_path: Path) -> None:
    trusted = tmp_path / "trusted.yaml"
    trusted.write_text(TRUSTED.read_text().split("\nserved:")[0] + "\nserved: []\n")
    got = board_build(smollm2, tmp_path / "out", "--trusted", str(trusted))
    assert got.exit_code == 0, got.stderr
    (entry,) = entries_of(board_json(tmp_path / "out"), TASK)["self_reported"]
    assert "spot-checked through smollm2, which no longer verifies it" in entry["standing_reason"] and entry["rank"] is None


@pytest.mark.slow
def test_a_failed_record_removes_the_entry_with_the_reason(smollm2: Path, tmp_path: Path) -> None:
    def fail(r: dict[str, Any]) -> None:
        for d in r["documents"][:3]:
            d.update(rejudged='"2"', agree=False)
        r["agreement"] = sum(d["agree"] for d in r["documents"]) / len(r["documents"])
        r["passed"] = False

    edit_json(smollm2_record(smollm2), fail)
    got = board_build(smollm2, tmp_path / "out")
    assert got.exit_code == 0, got.stderr
    board = board_json(tmp_path / "out")
    assert board["tasks"] == [] and [r["model"] for r in board["removed"]] == ["local/smollm2"]
    assert "failed the leaderboard's spot check" in board["removed"][0]["reason"] and "needs 80%" in board["removed"][0]["reason"]
    assert "Removed by the leaderboard's spot check" in (tmp_path / "out" / "index.html").read_text()


@pytest.mark.slow
def test_a_spot_check_that_cannot_build_its_model_removes_the_entry(smollm2: Path, tmp_path: Path) -> None:
    """A trusted model name with an identity the job cannot rebuild (other weights): removed with the
    reason, no record written, and the next refresh tries again."""
    from debench.runner import run_fingerprint
    from debench.task_lookup import load_task

    smollm2_record(smollm2).unlink()
    task, _ = load_task(TASK)

    def other_weights(d: dict[str, Any]) -> None:
        d["model"]["identity"]["weights"] = d["model"]["weights"] = "SmolLM2-1.7B-Instruct.Q8_0.gguf"
        d["config"]["fingerprint"] = run_fingerprint(task, d["model"]["identity"], d["dataset"]["content_hash"], d["task"]["method"])

    edit_json(smollm2_results(smollm2), other_weights)
    got = board_build(smollm2, tmp_path / "out")
    assert got.exit_code == 0, got.stderr
    (entry,) = entries_of(board_json(tmp_path / "out"), TASK)["self_reported"]
    assert "awaits the leaderboard's spot check through smollm2" in entry["standing_reason"]
    got = board_build(smollm2, tmp_path / "out", "--spot-check-commit", COMMIT)
    assert got.exit_code == 0, got.stderr
    board = board_json(tmp_path / "out")
    assert board["tasks"] == []
    (removed,) = board["removed"]
    assert "the spot check cannot build the model local/smollm2" in removed["reason"]
    assert not list(smollm2.rglob("spotcheck_*.json"))
