"""``vllm/<model>``: debench starts ``vllm serve``, waits for it, uses it and always stops it.

A stand-in ``vllm`` on PATH (``debench.testing.fake_vllm``: the project's OpenAI-compatible stub on
the port it is given) records its argv and pid; every test checks by pid that no process is left.
What its model arguments make of it before any server starts is test_vllm_identity.py.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from clihelp import with_default_sigint
from conftest import DATA_DIR, real_data_dir

import debench
from debench.cli import main
from debench.core.errors import UserError
from debench.models import managed_server
from debench.testing.fake_vllm import write_fake_vllm
from debench.testing.stub_server import StubServer

LIMIT = ["--limit", "3", "--data-dir", str(DATA_DIR), "--no-progress"]


class FakeVLLM:
    """The stand-in on PATH; ``records()`` are its starts, one per server."""

    def __init__(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
        self.bin = tmp_path / "bin"
        self.exe = write_fake_vllm(self.bin)
        self.record = tmp_path / "vllm-starts.jsonl"
        monkeypatch.setenv("PATH", f"{self.bin}{os.pathsep}{os.environ['PATH']}")
        monkeypatch.setenv("FAKE_VLLM_RECORD", str(self.record))
        monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # the server logs kept after a failure
        monkeypatch.setenv("TMPDIR", str(tmp_path))  # (and those of debench run as a subprocess)

    def records(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.record.read_text().splitlines()] if self.record.exists() else []

    def pids(self) -> list[int]:
        return [p for r in self.records() for p in (r["pid"], r.get("child")) if p]


@pytest.fixture
def fake(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeVLLM:
    real_data_dir("ibm_debate_speeches")
    return FakeVLLM(tmp_path, monkeypatch)


def alive(pid: int) -> bool:
    """The process runs (a zombie has already exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def no_process_left(fake: FakeVLLM) -> bool:
    return bool(fake.pids()) and not any(alive(p) for p in fake.pids())


def cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def eval_args(tmp_path: Path, model: str, *extra: str) -> list[str]:
    return [
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        model,
        *LIMIT,
        "--output-dir",
        str(tmp_path / "out"),
        *extra,
    ]


def answered(tmp_path: Path) -> int:
    """Documents in the run's samples log so far."""
    return sum(len(p.read_text().splitlines()) for p in (tmp_path / "out").rglob("samples_*.jsonl"))


def one_results(tmp_path: Path) -> dict[str, Any]:
    (path,) = (tmp_path / "out").rglob("results_*.json")
    return json.loads(path.read_text())


# -- start, use, stop ---------------------------------------------------------------------------


def test_eval_starts_the_server_with_its_flags_uses_it_and_stops_it(
    fake: FakeVLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_VLLM_CHILD", "1")  # a worker in the server's process group, as vLLM has
    result = cli(*eval_args(tmp_path, "vllm/org/judge-7b", "--model-args", "tensor_parallel_size=2"))
    assert result.exit_code == 0, result.output
    (start,) = fake.records()
    argv = start["argv"]
    assert argv[:3] == ["vllm", "serve", "org/judge-7b"]
    flags = dict(zip(argv[3::2], argv[4::2], strict=True))
    assert (
        flags["--tensor-parallel-size"] == "2"
        and flags["--host"] == "127.0.0.1"
        and flags["--served-model-name"] == "org/judge-7b"
    )
    assert start["pgid"] == start["pid"]  # its own process group: a terminal's Ctrl-C reaches debench, which stops it
    results = one_results(tmp_path)
    assert results["n_samples"] == 3 and results["n_errors"] == 0 and results["model"]["kind"] == "vllm"
    assert results["model"]["identity"] == {
        "name": "vllm/org/judge-7b",
        "weights": {"source": "hub", "repo_id": "org/judge-7b", "revision": None},
        "send_grammar": False,
    }
    assert results["model"]["serving"] == {
        "started_by_debench": True,
        "tensor_parallel_size": 2,
    }  # recorded, not part of the identity
    assert no_process_left(fake)


def test_every_task_of_a_command_shares_one_server(fake: FakeVLLM, tmp_path: Path) -> None:
    result = cli(
        "eval",
        "--task",
        "ibm_speech_likert,ibm_speech_likert_cot",
        "--model",
        "vllm/org/judge-7b",
        *LIMIT,
        "--output-dir",
        str(tmp_path / "out"),
    )
    assert result.exit_code == 0, result.output
    assert (
        len(list((tmp_path / "out").rglob("results_*.json"))) == 2
        and len(fake.records()) == 1
        and no_process_left(fake)
    )


def test_a_cached_rerun_starts_no_server(fake: FakeVLLM, tmp_path: Path) -> None:
    assert cli(*eval_args(tmp_path, "vllm/org/judge-7b")).exit_code == 0
    (tmp_path / "out").rename(tmp_path / "first")
    result = cli(*eval_args(tmp_path, "vllm/org/judge-7b"))
    assert result.exit_code == 0, result.output
    assert len(fake.records()) == 1 and one_results(tmp_path)["usage"]["n_requests"] == 0


def test_debench_waits_for_a_server_slow_to_load(
    fake: FakeVLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_VLLM_DELAY", "1.0")
    assert cli(*eval_args(tmp_path, "vllm/org/judge-7b")).exit_code == 0
    assert one_results(tmp_path)["n_errors"] == 0 and no_process_left(fake)


@pytest.mark.slow
def test_the_startup_timeout_and_a_server_deaf_to_sigterm(
    fake: FakeVLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_VLLM_DELAY", "60")
    monkeypatch.setenv("FAKE_VLLM_IGNORE_TERM", "1")  # only SIGKILL stops it: after the grace period
    monkeypatch.setattr(managed_server, "GRACE_S", 0.5)
    result = cli(*eval_args(tmp_path, "vllm/org/judge-7b", "--model-args", "startup_timeout=1.5"))
    assert result.exit_code == 2  # had it waited out the server's 60 s, the run would have succeeded
    first, *log = result.stderr.strip().splitlines()
    assert (
        "vllm/org/judge-7b: the server (vllm serve) did not answer" in first
        and "within 1.5 s (model argument startup_timeout)" in first
    )
    assert log == ["  | INFO fake vllm: loading org/judge-7b"]
    assert len(fake.records()) == 1 and no_process_left(fake)


def test_a_server_that_dies_at_start_is_one_line_with_its_last_log_lines(
    fake: FakeVLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_VLLM_DIE", "1")
    result = cli(*eval_args(tmp_path, "vllm/org/judge-7b"))
    assert result.exit_code == 2 and "Traceback" not in result.output
    first, *log = result.stderr.strip().splitlines()
    assert first.startswith(
        "debench: error: vllm/org/judge-7b: the server (vllm serve) exited with code 3 before it answered; its log: "
    )
    assert log == [
        "  | INFO fake vllm: loading org/judge-7b",
        "  | ERROR fake vllm: CUDA out of memory while loading the weights",
        "  | RuntimeError: engine core initialization failed",
    ]
    assert Path(first.split("its log: ")[1]).is_file()  # kept for the user
    assert no_process_left(fake)


def test_a_server_that_dies_during_the_run_stops_it_and_nothing_is_left(
    fake: FakeVLLM, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_VLLM_CHILD", "1")
    monkeypatch.setenv("FAKE_VLLM_LATENCY", "0.2")

    def kill_after_the_first_answers() -> None:
        deadline = time.monotonic() + 60
        while not answered(tmp_path) and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(fake.records()[0]["pid"], signal.SIGKILL)

    killer = threading.Thread(target=kill_after_the_first_answers)
    killer.start()
    result = cli(
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "vllm/org/judge-7b",
        "--limit",
        "40",
        "--concurrency",
        "1",
        "--data-dir",
        str(DATA_DIR),
        "--no-progress",
        "--output-dir",
        str(tmp_path / "out"),
    )
    killer.join()
    assert result.exit_code == 2
    assert "the server (vllm serve) exited with code -9 during the run" in result.stderr.splitlines()[0]
    assert 0 < answered(tmp_path) < 40  # what was answered is kept: rerun to resume
    assert no_process_left(fake)  # the worker too, though its server was killed


@pytest.mark.slow
def test_ctrl_c_exits_130_stops_the_server_and_the_rerun_resumes(fake: FakeVLLM, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "FAKE_VLLM_CHILD": "1",
        "FAKE_VLLM_LATENCY": "0.3",
        "DEBENCH_CACHE_DIR": str(tmp_path / "cache"),
    }
    cmd = [
        sys.executable,
        "-m",
        "debench.cli",
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "vllm/org/judge-7b",
        "--limit",
        "12",
        "--concurrency",
        "1",
        "--data-dir",
        str(DATA_DIR),
        "--no-progress",
        "--output-dir",
        str(tmp_path / "out"),
    ]
    proc = subprocess.Popen(
        with_default_sigint(cmd), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 60
    while not answered(tmp_path):
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)  # what a terminal's Ctrl-C sends to debench (the server has its own process group)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, f"stdout: {out[-1500:]}; stderr: {err}"
    assert "interrupted" in err and "rerun the same command to resume" in err
    assert no_process_left(fake)
    assert 0 < answered(tmp_path) < 12
    rerun = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert rerun.returncode == 0, rerun.stderr
    assert answered(tmp_path) == 12 and len(fake.records()) == 2 and no_process_left(fake)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_a_killed_debench_takes_its_server_with_it(fake: FakeVLLM, tmp_path: Path) -> None:
    env = {**os.environ, "FAKE_VLLM_LATENCY": "1", "DEBENCH_CACHE_DIR": str(tmp_path / "cache")}
    cmd = [
        sys.executable,
        "-m",
        "debench.cli",
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "vllm/org/judge-7b",
        "--limit",
        "20",
        "--concurrency",
        "1",
        "--data-dir",
        str(DATA_DIR),
        "--no-progress",
        "--output-dir",
        str(tmp_path / "out"),
    ]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not answered(tmp_path):  # the server is up and the run under way (20 answers of 1 s each)
        assert time.monotonic() < deadline and proc.poll() is None
        time.sleep(0.1)
    proc.kill()  # no atexit, no finally: only the kernel can tell the server
    proc.wait()
    server = fake.records()[0]["pid"]
    deadline = time.monotonic() + 60
    while alive(server) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive(server)


def test_the_python_api_stops_its_server_when_evaluate_returns(fake: FakeVLLM, tmp_path: Path) -> None:
    (run,) = debench.evaluate(
        "ibm_speech_likert", "vllm/org/judge-7b", limit=2, data_dir=DATA_DIR, output_dir=tmp_path, n_bootstrap=0
    )
    assert run.results.n_samples == 2 and len(fake.records()) == 1 and no_process_left(fake)


# -- one server per model and settings; --api-base; a missing command ---------------------------


def test_the_arena_shares_one_server_per_model_and_settings(fake: FakeVLLM, tmp_path: Path) -> None:
    topics = tmp_path / "topics.txt"
    topics.write_text("Should cities ban cars from their centres?\n")
    result = cli(
        "arena",
        "--models",
        "vllm/org/a,vllm/org/a@temperature=0.9",
        "--judge",
        "vllm/org/a,vllm/org/a@max_model_len=2048",
        "--topics",
        str(topics),
        "--rounds",
        "2",
        "--max-tokens",
        "16",
        "--output-dir",
        str(tmp_path / "arena"),
        "--no-progress",
    )
    assert result.exit_code == 0, result.output
    starts = sorted(fake.records(), key=lambda r: len(r["argv"]))
    assert len(starts) == 2  # the debaters and the first judge share a server; max_model_len needs its own
    assert "--max-model-len" not in starts[0]["argv"] and starts[1]["argv"][-6:-4] == ["--max-model-len", "2048"]
    assert no_process_left(fake)


@pytest.mark.parametrize(
    "command", [pytest.param("probe", marks=pytest.mark.slow), "generate-speeches", "rate-speeches"]
)
def test_every_command_that_calls_a_model_starts_and_stops_it(fake: FakeVLLM, tmp_path: Path, command: str) -> None:
    real_data_dir("debatrix_panelbench")
    topics = tmp_path / "topics.txt"
    topics.write_text("We should ban cars from city centres\n")
    args = {
        "probe": [
            "--task",
            "debateart_winner",
            "--probe",
            "swap",
            "--limit",
            "2",
            "--output-dir",
            str(tmp_path / "out"),
        ],
        "generate-speeches": [
            "--topics",
            str(topics),
            "--per-topic",
            "1",
            "--words",
            "50",
            "--output",
            str(tmp_path / "speeches.csv"),
        ],
        "rate-speeches": [
            "--speeches",
            str(DATA_DIR / "ibm_debate_speeches" / "GPT_4_1_speeches.csv"),
            "--limit",
            "1",
            "--human-sources",
            "Human expert",
            "--output-dir",
            str(tmp_path / "rated"),
        ],
    }[command]
    result = cli(command, "--model", "vllm/org/judge-7b", "--data-dir", str(DATA_DIR), "--no-progress", *args)
    assert result.exit_code in (0, 1), (
        result.output
    )  # 1: the stub's Likert answers do not parse as every task's verdicts
    assert len(fake.records()) == 1 and no_process_left(fake)


def test_api_base_means_the_server_already_runs(fake: FakeVLLM, tmp_path: Path) -> None:
    with StubServer(model="org/judge-7b") as srv:
        url = srv.base_url
        result = cli(*eval_args(tmp_path, "vllm/org/judge-7b", "--api-base", url))
        asked = srv.stats.requests
    assert result.exit_code == 0, result.output
    assert fake.records() == [] and len(asked) == 3 and {b["model"] for b in asked} == {"org/judge-7b"}
    ident = one_results(tmp_path)["model"]["identity"]
    assert ident == {"name": "vllm/org/judge-7b", "send_grammar": False, "api_base": [url]}
    result = cli(*eval_args(tmp_path, "vllm/org/judge-7b", "--api-base", url, "--model-args", "tensor_parallel_size=2"))
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "already runs: model argument 'tensor_parallel_size' cannot change it" in result.stderr
    result = cli(*eval_args(tmp_path, "vllm/org/judge-7b", "--api-base", f"{url},{url}"))
    assert result.exit_code == 2 and "takes one URL" in result.stderr


def test_a_missing_vllm_is_one_line_and_vllm_command_names_another(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_data_dir("ibm_debate_speeches")
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    result = cli(*eval_args(tmp_path, "vllm/org/judge-7b"))
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "'vllm' is not on PATH" in result.stderr and "vllm_command=PATH" in result.stderr
    exe = write_fake_vllm(tmp_path / "elsewhere")
    monkeypatch.setenv("FAKE_VLLM_RECORD", str(tmp_path / "starts.jsonl"))
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin")  # sh and sleep, no vllm
    result = cli(*eval_args(tmp_path, "vllm/org/judge-7b", "--model-args", f"vllm_command={exe}", "--no-cache"))
    assert result.exit_code == 0, result.output
    assert json.loads((tmp_path / "starts.jsonl").read_text())["argv"][:3] == ["vllm", "serve", "org/judge-7b"]


# -- the self-check and the leaderboard's own run serve open weights themselves ---------------


def test_a_self_check_serves_the_submitted_hub_weights_itself(fake: FakeVLLM, tmp_path: Path) -> None:
    assert (
        cli(
            *eval_args(tmp_path, "vllm/org/judge-7b@revision=abc123", "--model-args", "tensor_parallel_size=2")
        ).exit_code
        == 0
    )
    (results,) = (tmp_path / "out").rglob("results_*.json")
    check = ["validate", str(results), "--data-dir", str(DATA_DIR), "--spot-check", "3"]
    result = cli(
        *check, "--spot-check-model-args", "tensor_parallel_size=4,n_ctx=4096"
    )  # n_ctx: a key vllm/ does not take, left out
    assert result.exit_code == 0, result.output
    assert "self-check 100% at its own endpoint" in result.stdout
    _, spot = fake.records()
    assert spot["argv"][:3] == ["vllm", "serve", "org/judge-7b"] and "abc123" in spot["argv"] and "4" in spot["argv"]
    result = cli(*check, "--spot-check-model-args", "dtype=float16")  # changes the identity: not the submitted model
    assert result.exit_code == 2 and "differs in server" in result.stderr
    assert no_process_left(fake)


@pytest.mark.slow
def test_the_leaderboard_job_runs_an_allowlisted_vllm_entry_by_serving_its_weights_itself(
    fake: FakeVLLM, tmp_path: Path
) -> None:
    """The refresh job's own run: a vllm/ model listed under ``served`` and on the maintainers'
    allowlist is run on every document by a server the job starts with its own settings (never the
    submitter's api_base); the committed run makes it verified, and a later build runs nothing."""
    from lbhelp import refresh_board

    assert (
        cli(
            *eval_args(tmp_path, "vllm/org/judge-7b@revision=abc123", "--model-args", "tensor_parallel_size=2")
        ).exit_code
        == 0
    )
    (results,) = (tmp_path / "out").rglob("results_*.json")
    lb = tmp_path / "leaderboard"
    sub = lb / "submissions" / "vllm__org__judge-7b"
    sub.mkdir(parents=True)
    for f in (results, *results.parent.glob("samples_*.jsonl")):
        shutil.copy(f, sub / f.name)
    trusted = tmp_path / "trusted.yaml"
    trusted.write_text(
        'schema_version: "1.0"\nserved:\n  - {id: judge7b, description: served by the job, model: vllm/org/judge-7b}\n'
    )
    maint = tmp_path / "maintainers.yaml"
    maint.write_text(
        'schema_version: "2.0"\nbudgets:\n  per_entry: {requests: 5000, tokens: 50000000}\n'
        "  per_refresh: {requests: 5000, tokens: 50000000, wall_minutes: 60}\n"
        "  per_month: {requests: 5000, tokens: 50000000}\n"
        "allowlist:\n  - {model: vllm/org/judge-7b, methods: [direct], settings: {revision: abc123}}\n"
        "overall_tasks: []\n"
    )
    n_servers = len(fake.records())
    args = ("--trusted", str(trusted), "--maintainers", str(maint))
    code, out, err, _ = refresh_board(lb, *args, "--reproduce", "--model-args", "tensor_parallel_size=4")
    assert code == 0, err
    assert "(1 reproduced and ranked" in out, out
    spot = fake.records()[n_servers]
    assert spot["argv"][:3] == ["vllm", "serve", "org/judge-7b"] and "abc123" in spot["argv"] and "4" in spot["argv"]
    assert list((lb / "reproduced" / sub.name).glob("results_*.json"))
    code, out, err, _ = refresh_board(lb, *args)  # a later build without a model: the committed run still ranks it
    assert code == 0 and "(1 reproduced and ranked" in out, err
    assert len(fake.records()) == n_servers + 1
    assert no_process_left(fake)


def test_a_rebuilt_model_never_acts_on_submitter_written_server_flags_or_local_paths(
    fake: FakeVLLM, tmp_path: Path
) -> None:
    assert cli(*eval_args(tmp_path, "vllm/org/judge-7b", "--model-args", "server_args=--enforce-eager")).exit_code == 0
    (results,) = (tmp_path / "out").rglob("results_*.json")
    check = ["validate", str(results), "--data-dir", str(DATA_DIR), "--spot-check", "2"]
    result = cli(*check)
    assert (
        result.exit_code == 2
        and "server_args --enforce-eager" in result.stderr
        and "used only when the operator gives the same ones" in result.stderr
    )
    assert len(fake.records()) == 1  # nothing was started with the submitter's flags
    assert cli(*check, "--spot-check-model-args", "server_args=--enforce-eager").exit_code == 0
    from debench.leaderboard.rebuild import model_from_identity

    ident = {
        "name": "vllm//home/me/ckpt",
        "weights": {"source": "path", "sha256": "0" * 64, "files": 3},
        "send_grammar": False,
    }
    with pytest.raises(UserError, match="weights on the submitter's disk"):
        model_from_identity(ident, None)
