"""Every file a user points debench at is read within bounds, and nothing finished is asked twice
(issue 43). Each case of the issue, rebuilt from its text: a one-line refusal naming the file (and
the line and the field), exit code 2, no traceback, nothing run; the cases that could hang or take
gigabytes run in a new process under a 3 GB address-space limit (``benchmarks/hostile.py`` times
them and measures their memory)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from clihelp import run_cli
from conftest import DATA_DIR

from debench.core.record_log import RecordLog
from debench.data.samples import SampleRecord
from debench.metrics.base import METRICS, Metric, ratio
from debench.metrics.params import MetricArgs
from debench.testing.hostile_files import (
    CASES,
    FIFO_CASES,
    SAMPLE_RUN,
    eval_task,
    predictions_of,
    task_file,
    topics_case,
    with_metric,
)
from debench.testing.limits import GB, limited
from debench.testing.stub_server import StubServer


def refused(proc: subprocess.CompletedProcess[str]) -> str:
    """The one error line of a refused command."""
    assert proc.returncode == 2, (proc.returncode, proc.stderr[-2000:])
    assert "Traceback" not in proc.stderr, proc.stderr[-2000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("debench: error: ")]
    assert len(errors) == 1, proc.stderr[-2000:]
    return errors[0]


@pytest.mark.parametrize("case", list(CASES))
def test_a_hostile_file_is_one_line_before_anything_runs(tmp_path: Path, case: str) -> None:
    argv, says = CASES[case](tmp_path)
    line = refused(run_cli(*argv))
    assert says in line, line
    assert not list(tmp_path.glob("o/**/samples_*.jsonl"))  # nothing was asked


def test_topic_side_types_and_empty_sides_are_named(tmp_path: Path) -> None:
    argv, _ = topics_case("topics:\n  - {question: q, side1: [1, 2], side2: {x: 1}}\n")(tmp_path)
    assert "field 'topics.0.side1': expected non-empty text, got a list" in refused(run_cli(*argv))
    argv, _ = topics_case("topics:\n  - {question: q, side2: {x: 1}}\n")(tmp_path)
    assert "field 'topics.0.side2': expected non-empty text, got a mapping" in refused(run_cli(*argv))
    argv, _ = topics_case("ok question\nq | | no\n", ".txt")(tmp_path)
    assert "line 2: a question or a side is empty: q | | no" in refused(run_cli(*argv))


def test_a_plugin_metric_declares_its_arguments(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A metric that is not debench's (here registered in this process) is checked against its own
    ``params`` when the task file is loaded."""

    class WithinArgs(MetricArgs):
        k: float = 1.0

    metric = Metric(name="within_k_test", prepare=lambda docs, **args: args, bind=ratio, params=WithinArgs)
    monkeypatch.setitem(METRICS._items, metric.name, metric)
    task = task_file(tmp_path, "plug", with_metric("  - name: within_k_test\n    args: {k: two}"))
    assert "field 'metrics.7.args.k': within_k_test: Input should be a valid number" in refused(
        run_cli(*eval_task(task, tmp_path / "o"))
    )
    task.write_text(with_metric("  - name: within_k_test\n    args: {kk: 2}"))
    assert "unknown argument; did you mean 'k'?" in refused(run_cli(*eval_task(task, tmp_path / "o")))


# -- results files and the run report ---------------------------------------------------------------


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished eval on debench's sample data: its results file."""
    out = tmp_path_factory.mktemp("run")
    proc = run_cli("eval", "--model", "baseline/random", *SAMPLE_RUN, "--output-dir", str(out))
    assert proc.returncode == 0, proc.stderr
    return next(out.rglob("results_*.json"))


def _edited(results: Path, tmp_path: Path, edit: Callable[[dict], None]) -> Path:
    for f in results.parent.iterdir():
        shutil.copy(f, tmp_path / f.name)
    data = json.loads(results.read_text())
    edit(data)
    (tmp_path / results.name).write_text(json.dumps(data))
    return tmp_path / results.name


@pytest.mark.parametrize(
    ("edit", "says"),
    [
        (lambda d: d.pop("metrics"), "field 'metrics': not a debench results file: Field required"),
        (
            lambda d: d["metrics"]["kendall_tau_c"].update(value="high"),
            "field 'metrics.kendall_tau_c.value': not a debench results file: Input should be a valid number",
        ),
        (
            lambda d: d.update(n_samples="many"),
            "field 'n_samples': not a debench results file: Input should be a valid integer",
        ),
        (
            lambda d: d["metrics"]["kendall_tau_c"].update(ci95=[0, 1, 2]),
            "field 'metrics.kendall_tau_c.ci95': not a debench results file: List should have at most 2 items",
        ),
        (
            lambda d: d.update(samples_file="../../../../../../etc/passwd"),
            "field 'samples_file': '../../../../../../etc/passwd' is not a file in the results file's folder",
        ),
        (
            lambda d: d.update(samples_file="/dev/zero"),
            "field 'samples_file': '/dev/zero' is not a file in the results file's folder",
        ),
    ],
)
def test_a_hand_edited_results_file_is_refused_naming_the_field(
    finished_run: Path, tmp_path: Path, edit: Callable[[dict], None], says: str
) -> None:
    results = _edited(finished_run, tmp_path, edit)
    assert says in refused(run_cli("view", str(results), "--output", str(tmp_path / "page.html")))
    assert not (tmp_path / "page.html").exists()


def test_the_report_says_when_its_log_is_incomplete(finished_run: Path, tmp_path: Path) -> None:
    results = _edited(finished_run, tmp_path, lambda d: None)
    samples = next(tmp_path.glob("samples_*.jsonl"))
    lines = samples.read_bytes().splitlines(keepends=True)
    samples.write_bytes(b"".join(lines[:-1]) + lines[-1][:40])  # its last line cut short
    proc = run_cli("view", str(results), "--output", str(tmp_path / "page.html"))
    assert proc.returncode == 0, proc.stderr
    note = (
        "the samples log is incomplete: its last line is cut short (not shown); "
        f"{len(lines) - 1} of the {len(lines)} samples are shown"
    )
    assert note in proc.stderr and note in (tmp_path / "page.html").read_text()
    samples.write_bytes(b"".join(lines))
    whole = run_cli("view", str(results), "--output", str(tmp_path / "page.html"))
    assert whole.returncode == 0 and "incomplete" not in whole.stderr + (tmp_path / "page.html").read_text()


# -- writes --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("special", ["fifo", "socket", "folder"])
def test_score_output_replaces_only_a_regular_file(finished_run: Path, tmp_path: Path, special: str) -> None:
    preds = predictions_of(next(finished_run.parent.glob("samples_*.jsonl")), tmp_path / "preds.jsonl")
    out = tmp_path / "out"
    if special == "fifo":
        os.mkfifo(out)
    elif special == "folder":
        out.mkdir()
    else:
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(str(out))
        sock.close()
    mode = os.stat(out).st_mode
    score = ["score", "--task", "ibm_speech_likert", "--data-source", "sample", "--predictions", str(preds)]
    line = refused(run_cli(*score, "--output", str(out)))
    says = "is a directory" if special == "folder" else "debench replaces only a regular file"  # click checks a folder
    assert str(out) in line and says in line
    assert os.stat(out).st_mode == mode and sorted(p.name for p in tmp_path.iterdir()) == ["out", "preds.jsonl"]


def run_limited(
    *args: str, size: int = 0, cwd: Path | None = None, gone: bool = False, stdout: object = subprocess.PIPE
) -> subprocess.CompletedProcess[str]:
    """``python -m debench.cli ARGS`` in a new process under 3 GB of address space (and ``size``
    bytes per file written; in ``cwd``, deleted first when ``gone``)."""
    cmd = limited([sys.executable, "-m", "debench.cli", *args], address_space=3 * GB, file_size=size, delete_cwd=gone)
    return subprocess.run(cmd, text=True, timeout=120, cwd=cwd, check=False, stdout=stdout, stderr=subprocess.PIPE)


@pytest.mark.parametrize("case", list(FIFO_CASES))
def test_a_fifo_never_blocks(tmp_path: Path, case: str) -> None:
    """A FIFO where a file is expected blocked with no output: refused without opening it, in a new
    process (under 3 GB) that would otherwise wait for a writer for ever."""
    argv, says = FIFO_CASES[case](tmp_path)
    assert says in refused(run_limited(*argv))


def test_a_write_error_is_one_line_and_a_rerun_completes(tmp_path: Path) -> None:
    """A file size limit hit while the run's log is written (what a full disk does): one line naming
    the log, the records written kept, the torn line cut; the same command then completes."""
    argv = ["eval", "--model", "baseline/length", *SAMPLE_RUN, "--output-dir", str(tmp_path / "o")]
    line = refused(run_limited(*argv, size=12_000))
    assert "samples_ibm_speech_likert_" in line and "cannot write the run's log (File too large)" in line
    log = next(tmp_path.glob("o/*/samples_*.jsonl"))
    kept = log.read_bytes()
    assert kept.endswith(b"\n") and 0 < kept.count(b"\n") < 8
    proc = run_cli(*argv)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(x)["status"] for x in log.read_text().splitlines()] == ["ok"] * 8
    assert set(kept.splitlines()) < set(log.read_bytes().splitlines())  # the records written before are kept


def test_stdout_errors_end_without_a_traceback(tmp_path: Path) -> None:
    with open("/dev/full", "w") as full:
        proc = run_limited("tasks", stdout=full)
    assert refused(proc) == "debench: error: cannot write the standard output (No space left on device)"
    read, write = os.pipe()
    os.close(read)  # a reader that went away (`debench tasks | head -0`)
    proc = run_limited("tasks", stdout=write)
    os.close(write)
    assert proc.returncode == 1 and proc.stderr == ""


def test_a_deleted_working_folder_is_one_line(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    gone.mkdir()
    line = refused(run_limited(*eval_task("ibm_speech_likert", tmp_path / "o"), cwd=gone, gone=True))
    assert (
        line == "debench: error: the working folder no longer exists (it was deleted or moved): "
        "change to another folder and rerun"
    )


# -- logs: a damaged line costs its own document, and two runs leave no hidden file ---------------------------


@pytest.mark.real_data("30 documents of the IBM speeches, as the issue's log")
def test_a_damaged_line_costs_only_its_own_document(tmp_path: Path) -> None:
    """A complete 30-record log with one garbage line at line 11: the rerun (without the cache)
    asks that document alone, says which line it skipped, and the log ends whole."""
    argv = [
        "eval",
        "--model",
        "openai/stub",
        "--task",
        "ibm_speech_likert",
        "--limit",
        "30",
        "--no-progress",
        "--bootstrap",
        "20",
        "--data-dir",
        str(DATA_DIR),
        "--output-dir",
        str(tmp_path / "o"),
    ]
    with StubServer() as srv:
        first = run_cli(*argv, "--api-base", srv.base_url, "--no-cache")
        assert first.returncode == 0, first.stderr
        log = next(tmp_path.glob("o/*/samples_*.jsonl"))
        lines = log.read_text().splitlines(keepends=True)
        damaged = json.loads(lines[10])["doc_id"]
        log.write_text("".join(lines[:10]) + "garbage, not a record\n" + "".join(lines[11:]))
        srv.reset_stats()
        again = run_cli(*argv, "--api-base", srv.base_url, "--no-cache")
        asked = srv.stats.total_requests
    assert again.returncode == 0, again.stderr
    assert asked == 1
    assert "1 damaged line(s) skipped (line 11: not a SampleRecord)" in again.stderr
    records = [json.loads(x) for x in log.read_text().splitlines()]
    assert len(records) == 30 and {r["doc_id"] for r in records} == {json.loads(x)["doc_id"] for x in lines}
    assert [r["doc_id"] for r in records].count(damaged) == 1
    assert not [p.name for p in tmp_path.rglob(".*")]


CLAIMER = """
import sys
from pathlib import Path
from debench.core.record_log import RecordLog
from debench.data.samples import SampleRecord
log = RecordLog(Path(sys.argv[1]), SampleRecord, "doc_id")
assert log.claim("b") == "mine"
print("claimed", flush=True)
sys.stdin.readline()
log.append(SampleRecord(doc_id="b", status="ok"))
log.release_claims()
log.close()
print("released", flush=True)
sys.stdin.readline()
"""
"""A second process on the same log: claims a job, and releases it when told (then waits to exit)."""


def test_two_runs_on_one_log_leave_no_hidden_file(tmp_path: Path) -> None:
    """Each run takes its own claims out when it ends, and the last one removes the file: the other
    run releasing first while this one lives, then this one while the other still lives, used to
    leave ``.NAME.claims`` behind (each saw the other's live claim)."""
    path = tmp_path / "samples_x.jsonl"
    other = subprocess.Popen(
        [sys.executable, "-c", CLAIMER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert other.stdin is not None and other.stdout is not None
    try:
        assert other.stdout.readline().strip() == "claimed"
        mine = RecordLog(path, SampleRecord, "doc_id")
        assert mine.claim("a") == "mine" and mine.claim("b") == "busy"
        other.stdin.write("go\n")
        other.stdin.flush()
        assert other.stdout.readline().strip() == "released"  # the other run ended its work, and lives on
        mine.append(SampleRecord(doc_id="a", status="ok"))
        mine.release_claims()
        mine.close()
        assert sorted(p.name for p in tmp_path.iterdir()) == ["samples_x.jsonl"]
    finally:
        other.communicate("exit\n", timeout=60)
    assert [json.loads(x)["doc_id"] for x in path.read_text().splitlines()] == ["b", "a"]


def test_claims_of_a_live_run_stay_until_it_ends(tmp_path: Path) -> None:
    path = tmp_path / "samples_x.jsonl"
    other = subprocess.Popen(
        [sys.executable, "-c", CLAIMER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert other.stdin is not None and other.stdout is not None
    claims = tmp_path / ".samples_x.jsonl.claims"
    try:
        assert other.stdout.readline().strip() == "claimed"
        mine = RecordLog(path, SampleRecord, "doc_id")
        assert mine.claim("a") == "mine"
        mine.release_claims()
        mine.close()
        assert [json.loads(x)["k"] for x in claims.read_text().splitlines()] == ["b"]  # the other's claim stays
        assert stat.S_ISREG(claims.stat().st_mode)
        other.stdin.write("go\n")
        other.stdin.flush()
        assert other.stdout.readline().strip() == "released"
        assert not claims.exists()
    finally:
        other.communicate("exit\n", timeout=60)
