"""A failure a user can cause is loud and short (issue: loud failures): bad settings, a template naming an
undefined variable, an unknown provider, the Hub offline, an output folder or a cache that cannot be used,
missing gold labels: one line and exit 2 (before any request where it can be); errors above the threshold
exit 1 after writing; only transient failures are retried.

The commands run as a user runs them, against the stub OpenAI-compatible server on 127.0.0.1.
"""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir

from debench.testing.stub_server import FaultPlan, StubServer


@pytest.mark.parametrize(
    ("model_args", "expected"),
    [
        ("tiemout=5", "unknown model argument 'tiemout'; did you mean 'timeout'?"),
        ("timeout=abc", "timeout=abc: expected a number"),
        ("max_tokens=0", "max_tokens=0"),
        ("temperature", "expected key=value"),
        ("n_parallel=2", "does not apply to openai/stub"),
    ],
)
def test_bad_model_args_are_one_line_before_any_request(tmp_path: Path, model_args: str, expected: str) -> None:
    with StubServer() as srv:
        proc = run_cli(
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "openai/stub",
            "--api-base",
            srv.base_url,
            "--model-args",
            model_args,
            "--limit",
            "2",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(tmp_path),
        )
        n = srv.stats.total_requests
    assert proc.returncode == 2 and n == 0
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], proc.stderr


def test_baseline_refuses_generation_settings(tmp_path: Path) -> None:
    proc = run_cli(
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "baseline/random@temperature=0.7",
        "--data-dir",
        str(DATA_DIR),
        "--output-dir",
        str(tmp_path),
    )
    assert (
        proc.returncode == 2
        and "takes no generation settings" in proc.stderr
        and len(proc.stderr.strip().splitlines()) == 1
    )


def test_a_template_naming_an_undefined_variable_is_one_line(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    repo_task = Path(__file__).resolve().parent.parent / "tasks" / "ibm_speech_likert.yaml"
    text = repo_task.read_text(encoding="utf-8").replace("{{ topic }}", "{{ motion_text }}", 1)
    assert "motion_text" in text
    task = tmp_path / "mine.yaml"
    task.write_text(text, encoding="utf-8")
    with StubServer() as srv:
        proc = run_cli(
            "eval",
            "--task",
            str(task),
            "--model",
            "openai/stub",
            "--api-base",
            srv.base_url,
            "--limit",
            "2",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(tmp_path / "o"),
        )
        n = srv.stats.total_requests
    assert proc.returncode == 2 and n == 0, proc.stderr
    line = proc.stderr.strip()
    assert len(line.splitlines()) == 1 and str(task) in line and "motion_text" in line and "prompt.user" in line


def test_unknown_provider_is_one_line_before_any_request(tmp_path: Path) -> None:
    proc = run_cli(
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "foobar/x",
        "--limit",
        "2",
        "--data-dir",
        str(DATA_DIR),
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        env={"DEBENCH_CACHE_DIR": str(tmp_path / "c")},
    )
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1 and "unknown model or provider 'foobar/x'" in proc.stderr


def test_errors_above_the_threshold_exit_1_after_writing_and_list_the_messages(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    base = [
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "openai/stub",
        "--limit",
        "6",
        "--data-dir",
        str(DATA_DIR),
        "--no-progress",
        "--model-args",
        "max_retries=1,base_delay=0.01",
    ]
    with StubServer(faults=FaultPlan(script=["500"] * 4 + ["ok"] * 100)) as srv:  # docs 1-2 fail twice: errors
        proc = run_cli(
            *base,
            "--api-base",
            srv.base_url,
            "--output-dir",
            str(tmp_path / "a"),
            "--concurrency",
            "1",
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "c1")},
        )
    assert proc.returncode == 1, proc.stderr
    assert next((tmp_path / "a").rglob("results_*.json")).exists()
    assert (
        "2 of 6 ended in errors" in proc.stderr
        and "    2 x gave up after 2 attempts: InternalServerError" in proc.stderr
    )
    with StubServer(faults=FaultPlan(script=["500"] * 4 + ["ok"] * 100)) as srv:
        proc = run_cli(
            *base,
            "--api-base",
            srv.base_url,
            "--output-dir",
            str(tmp_path / "b"),
            "--concurrency",
            "1",
            "--max-error-rate",
            "0.5",
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "c2")},
        )
    assert proc.returncode == 0 and "2 of 6 ended in errors" in proc.stderr


def test_only_transient_failures_are_retried(tmp_path: Path) -> None:
    """A 401 stops the run at its first answer (one line, exit 2, no retry); a 500 is retried."""
    with StubServer(faults=FaultPlan(fail_first_n_per_prompt=1, fail_kind="500")) as srv:
        run_cli(
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "openai/stub",
            "--api-base",
            srv.base_url,
            "--limit",
            "2",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(tmp_path / "a"),
            "--model-args",
            "base_delay=0.01",
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "c")},
        )
        assert set(srv.stats.attempts_per_prompt.values()) == {2}
    with StubServer(faults=FaultPlan(script=["401"] * 2)) as srv:
        proc = run_cli(
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "openai/stub",
            "--api-base",
            srv.base_url,
            "--limit",
            "2",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(tmp_path / "b"),
            "--concurrency",
            "1",
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "c2")},
        )
        assert srv.stats.total_requests == 1
    assert (
        proc.returncode == 2
        and proc.stderr.strip().splitlines()[-1].startswith("debench: error: ")
        and "HTTP 401" in proc.stderr
    )


def _one_line_exit_2(proc) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-1500:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("debench: error: "), proc.stderr
    return lines[0]


def test_hub_offline_is_one_line(tmp_path: Path) -> None:
    line = _one_line_exit_2(
        run_cli(
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "baseline/random",
            "--data-source",
            "hub",
            "--output-dir",
            str(tmp_path),
            env={"HF_HUB_OFFLINE": "1"},
        )
    )
    assert "Hugging Face Hub" in line and "DEBENCH_DATA_DIR" in line


@pytest.fixture
def unwritable_folder(tmp_path: Path) -> Iterator[Path]:
    """An existing folder this process cannot write into: one made read-only, or for root (whom
    permissions do not stop, and CI runs as root) Linux's ``/sys/kernel``, where nobody can create
    a file."""
    if os.geteuid() != 0:
        out = tmp_path / "ro"
        out.mkdir()
        out.chmod(stat.S_IRUSR | stat.S_IXUSR)
        yield out
        out.chmod(stat.S_IRWXU)
        return
    out = Path("/sys/kernel")
    with pytest.raises(OSError):  # the premise: not even root writes here
        (out / "debench-probe").mkdir()
    yield out


def test_read_only_output_dir_is_one_line(unwritable_folder: Path) -> None:
    line = _one_line_exit_2(
        run_cli(
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "baseline/random",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(unwritable_folder),
        )
    )
    assert str(unwritable_folder) in line


def test_output_dir_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    """What a read-only folder does for a non-root user, a file in the way does for everyone."""
    blocker = tmp_path / "results"
    blocker.write_text("not a folder")
    line = _one_line_exit_2(
        run_cli(
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "baseline/random",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(blocker / "sub"),
            "--limit",
            "2",
        )
    )
    assert str(blocker) in line
    assert blocker.read_text() == "not a folder"


def test_corrupt_cache_is_one_line_naming_it_and_how_to_move_it(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cache.mkdir()
    db = cache / "responses.sqlite"
    db.write_bytes(b"this is not an sqlite file at all " * 200)
    before = db.read_bytes()
    with StubServer() as srv:
        line = _one_line_exit_2(
            run_cli(
                "eval",
                "--task",
                "ibm_speech_likert",
                "--model",
                "openai/stub",
                "--api-base",
                srv.base_url,
                "--limit",
                "2",
                "--data-dir",
                str(DATA_DIR),
                "--output-dir",
                str(tmp_path / "o"),
                env={"DEBENCH_CACHE_DIR": str(cache)},
            )
        )
    assert str(db) in line and f"mv '{db}' '{db}.corrupt'" in line
    assert db.read_bytes() == before  # nothing the user had is deleted


def test_cache_path_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "cachefile"
    blocker.write_text("x")
    with StubServer() as srv:
        line = _one_line_exit_2(
            run_cli(
                "eval",
                "--task",
                "ibm_speech_likert",
                "--model",
                "openai/stub",
                "--api-base",
                srv.base_url,
                "--limit",
                "2",
                "--data-dir",
                str(DATA_DIR),
                "--output-dir",
                str(tmp_path / "o"),
                env={"DEBENCH_CACHE_DIR": str(blocker)},
            )
        )
    assert str(blocker) in line and "DEBENCH_CACHE_DIR" in line


@pytest.mark.real_data("the real DebateBench copy has no labels (the sample has them)")
def test_debatebench_without_gold_says_what_to_do(tmp_path: Path) -> None:
    real_data_dir("debatebench")
    line = _one_line_exit_2(
        run_cli(
            "eval",
            "--task",
            "debatebench_verdict",
            "--model",
            "baseline/random",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(tmp_path),
        )
    )
    assert "scores.xlsx" in line and "--data-source sample" in line and "utkarsh2105/DebateBench" in line


def test_a_healthy_cache_still_works_after_these_checks(tmp_path: Path) -> None:
    """The guard around the cache does not get in the way of a good one (a cached rerun makes no request)."""
    cache = tmp_path / "cache"
    env = {"DEBENCH_CACHE_DIR": str(cache)}
    args = [
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "openai/stub",
        "--limit",
        "3",
        "--data-dir",
        str(DATA_DIR),
        "--no-progress",
    ]
    with StubServer() as srv:
        assert run_cli(*args, "--api-base", srv.base_url, "--output-dir", str(tmp_path / "a"), env=env).returncode == 0
        srv.reset_stats()
        assert run_cli(*args, "--api-base", srv.base_url, "--output-dir", str(tmp_path / "b"), env=env).returncode == 0
        assert srv.stats.total_requests == 0
    with sqlite3.connect(cache / "responses.sqlite") as db:
        assert db.execute("select count(*) from responses").fetchone()[0] == 3
