"""Peak RSS of whole ``debench eval`` runs at two sizes and where the memory goes; the cached rerun.

Whole runs are measured in a child process (``wait4``'s ``ru_maxrss``), with the default settings
(1,000 bootstrap draws). The breakdown comes from ``benchmarks.probe``, which runs the same
evaluation in a child with its stages (data loading, the runner, scoring) timed and their resident
set recorded (a diagnostic).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel

from benchmarks.proc import debench_env, run_measured
from benchmarks.whole import CommandTiming
from benchmarks.workload import BENCH_TASK, make_data, measured_eval
from debench.testing.stub_server import StubProcess

ROOT = Path(__file__).resolve().parent.parent


class MemoryFigures(BaseModel):
    n_docs: int
    peak_rss_mb: float
    """The whole ``debench eval`` command."""
    stages: dict[str, float]
    """From ``probe``: seconds and resident MB per stage."""


def probe(
    srv: StubProcess | None,
    *,
    task: str,
    data_dir: Path,
    out: Path,
    cache: Path,
    concurrency: int = 64,
    bootstrap: int | None = None,
    extra: Sequence[str] = (),
) -> dict[str, float]:
    """Run ``benchmarks.probe`` (against ``srv``, or with the model ``extra`` names) and read its figures."""
    cmd = [sys.executable, "-m", "benchmarks.probe", "--task", task, "--data-dir", str(data_dir), "--out", str(out),
           "--concurrency", str(concurrency), *extra]  # fmt: skip
    if bootstrap is not None:
        cmd += ["--bootstrap", str(bootstrap)]
    if srv is not None:
        cmd += ["--api-base", srv.base_url]
    res = run_measured(cmd, env=debench_env(cache), cwd=ROOT).check("benchmarks.probe")
    return {k: float(v) for k, v in json.loads(res.stdout.strip().splitlines()[-1]).items()}


def measure_memory(srv: StubProcess, work: Path, n_docs: int, *, concurrency: int = 64) -> MemoryFigures:
    srv.configure(latency=0.0)
    data_dir = make_data(work, n_docs)
    run = measured_eval(
        srv,
        work,
        f"mem{n_docs}",
        task=BENCH_TASK,
        data_dir=data_dir,
        concurrency=concurrency,
        limit=None,
        bootstrap=None,
    )
    if run.n_requests != n_docs:
        raise RuntimeError(f"{run.n_requests} requests for {n_docs} documents")
    stages = probe(
        srv,
        task=str(BENCH_TASK),
        data_dir=data_dir,
        out=work / f"probe{n_docs}",
        cache=work / f"probe_cache{n_docs}",
        concurrency=concurrency,
    )
    return MemoryFigures(n_docs=n_docs, peak_rss_mb=run.proc.peak_rss_mb, stages=stages)


def cached_rerun(srv: StubProcess, work: Path, data_dir: Path, task: str = "ibm_speech_likert") -> CommandTiming:
    """Fill a cache with one run, then time the same command into a new output folder: every
    answer from the cache, no request; the whole command with its default settings."""
    srv.configure(latency=0.0)
    cache = work / "rerun_cache"
    measured_eval(srv, work, "rerun_first", cache=cache, task=task, data_dir=data_dir, concurrency=64, limit=None)
    run = measured_eval(
        srv, work, "rerun_second", cache=cache, task=task, data_dir=data_dir, concurrency=64, limit=None, parts=True
    )
    return CommandTiming.of(run.proc, srv)
