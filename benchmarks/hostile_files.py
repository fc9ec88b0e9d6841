"""The hostile files of issue 43 as a user meets them (``python -m benchmarks.hostile`` runs them after
issue 34's cases): each a real ``debench`` process under a 3 GB address-space limit, with its exit
code, its last line, its wall time and its peak memory (the child's maximum resident set, from
``os.wait4``). A case holds when it is a one-line refusal (exit code 2, no traceback, the expected
words) within ``budget`` seconds. Then what the issue asks of logs and writes: a damaged line in a
samples log costs a rerun one request, a file size limit hit while the log is written is one line
and the rerun completes, ``score --output`` leaves a FIFO a FIFO, ``debench tasks > /dev/full``
ends without a traceback.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

from benchmarks.proc import ProcResult, debench_cmd, run_measured
from debench.testing.hostile_files import CASES, EXPENSIVE, FIFO_CASES, SAMPLE_RUN, Case, predictions_of
from debench.testing.limits import GB, limited
from debench.testing.stub_server import StubServer


def _run(argv: list[str], env: dict[str, str], cwd: Path, budget: float, **limits: int) -> ProcResult:
    return run_measured(
        limited(debench_cmd(*argv), address_space=3 * GB, **limits), env=env, cwd=cwd, timeout=budget + 5
    )


def _row(name: str, res: ProcResult, held: bool) -> str:
    lines = res.stderr.strip().splitlines()
    return (
        f"{'held' if held else 'NOT HELD':8} {name:44}  exit {res.returncode}  {res.wall_s:5.1f} s  "
        f"{res.peak_rss_mb:6.0f} MB  {(lines[-1] if lines else '')[:110]}"
    )


def _refusal(name: str, case: Case, env: dict[str, str], cwd: Path, budget: float) -> tuple[str, bool]:
    argv, says = case
    res = _run(argv, env, cwd, budget)
    held = res.returncode == 2 and "Traceback" not in res.stderr and says in res.stderr and res.wall_s <= budget
    return _row(name, res, held), held


def _results_reading_dev_zero(work: Path, env: dict[str, str], budget: float) -> Case:
    """A finished run's results file whose ``samples_file`` is /dev/zero, shown by ``debench view``."""
    out = work / "run"
    subprocess.run(
        debench_cmd("eval", "--model", "baseline/random", *SAMPLE_RUN, "--output-dir", str(out)),
        env=env,
        cwd=work,
        capture_output=True,
        check=True,
        timeout=300,
    )
    results = next(out.rglob("results_*.json"))
    data = json.loads(results.read_text())
    data["samples_file"] = "/dev/zero"
    results.write_text(json.dumps(data))
    return [
        "view",
        str(results),
        "--output",
        str(work / "page.html"),
    ], "field 'samples_file': '/dev/zero' is not a file"


def _damaged_line(work: Path, env: dict[str, str], budget: float) -> tuple[str, bool]:
    """A complete samples log with one garbage line in the middle (line 11 of 30 on the real data,
    line 4 of 8 on the sample): the rerun without the cache asks that one document again."""
    real = bool(env.get("DEBENCH_DATA_DIR"))
    data = ["--limit", "30", "--data-source", "local"] if real else ["--data-source", "sample"]
    line = 11 if real else 4
    with StubServer() as srv:
        stub = ["--model", "openai/stub", "--api-base", srv.base_url, "--no-cache"]
        options = ["--no-progress", "--bootstrap", "20", "--output-dir", str(work / "damaged")]
        argv = ["eval", *stub, "--task", "ibm_speech_likert", *data, *options]
        _run(argv, env, work, budget).check("the first run")
        log = next((work / "damaged").rglob("samples_*.jsonl"))
        lines = log.read_text().splitlines(keepends=True)
        log.write_text("".join(lines[: line - 1]) + "garbage, not a record\n" + "".join(lines[line:]))
        srv.reset_stats()
        res = _run(argv, env, work, budget)
        asked = srv.stats.total_requests
    held = res.returncode == 0 and asked == 1 and f"line {line}: not a SampleRecord" in res.stderr
    row = _row(f"a damaged line {line} of {len(lines)}: asks {asked} (want 1)", res, held)
    return row, held


def _write_error_then_rerun(work: Path, env: dict[str, str], budget: float) -> tuple[str, bool]:
    """A 12 KB file size limit while the run's log is written: one line; then the rerun completes."""
    argv = ["eval", "--model", "baseline/length", *SAMPLE_RUN, "--output-dir", str(work / "fsize")]
    cut = _run(argv, env, work, budget, file_size=12_000)
    again = _run(argv, env, work, budget)
    held = cut.returncode == 2 and "cannot write the run's log (File too large)" in cut.stderr and again.returncode == 0
    held = held and "Traceback" not in cut.stderr
    return _row("a file size limit on the log, then a rerun", cut, held), held


def _output_fifo(work: Path, env: dict[str, str], budget: float) -> tuple[str, bool]:
    preds = predictions_of(next((work / "fsize").rglob("samples_*.jsonl")), work / "preds.jsonl")
    os.mkfifo(work / "out.fifo")
    score = ["score", "--task", "ibm_speech_likert", "--data-source", "sample", "--predictions", str(preds)]
    res = _run([*score, "--output", str(work / "out.fifo")], env, work, budget)
    held = res.returncode == 2 and stat.S_ISFIFO(os.stat(work / "out.fifo").st_mode)
    return _row("score --output a FIFO: stays a FIFO", res, held), held


def _tasks_to_dev_full(work: Path, env: dict[str, str], budget: float) -> tuple[str, bool]:
    with open("/dev/full", "w") as full:
        proc = subprocess.run(
            limited(debench_cmd("tasks"), address_space=3 * GB),
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=work,
            timeout=budget + 5,
        )
    held = proc.returncode != 0 and "Traceback" not in proc.stderr
    last = (proc.stderr.strip().splitlines() or [""])[-1]
    return (
        f"{'held' if held else 'NOT HELD':8} {'debench tasks > /dev/full':44}  exit {proc.returncode}  {last[:110]}",
        held,
    )


def measure_files(work: Path, env: dict[str, str], budget: float = 20.0) -> tuple[list[str], int, int]:
    """One line per case, how many held, how many there were."""
    cases = {name: CASES[name] for name in EXPENSIVE} | FIFO_CASES
    rows: list[tuple[str, bool]] = []
    for i, (name, build) in enumerate(cases.items()):
        folder = work / f"files{i}"
        folder.mkdir()
        rows.append(_refusal(name, build(folder), env, work, budget))
    rows.append(
        _refusal(
            "a results file's samples_file /dev/zero", _results_reading_dev_zero(work, env, budget), env, work, budget
        )
    )
    for check in (_damaged_line, _write_error_then_rerun, _output_fifo, _tasks_to_dev_full):
        rows.append(check(work, env, budget))
    return [r for r, _ in rows], sum(h for _, h in rows), len(rows)
