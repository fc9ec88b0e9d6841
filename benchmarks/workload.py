"""The benchmark workload: the synthetic task, its data directory, and one measured ``debench eval``.

Samples/s is measured at the stub server, the same way for debench and lm-eval: documents divided
by the busy window from the first request received to the last answer sent (a diagnostic: the
headline is the whole command, ``benchmarks.whole``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from benchmarks.proc import ProcResult, debench_cmd, debench_env, run_measured
from benchmarks.synthetic import write_synthetic_ibm
from debench.testing.stub_server import StubProcess

BENCH_TASK = Path(__file__).parent / "tasks" / "bench_speech_likert.yaml"
SUBDIR = "bench_speeches"  # the task's dataset.local_dir


def make_data(root: Path, n_docs: int) -> Path:
    """A data dir holding ``bench_speeches/data.csv`` with ``n_docs`` synthetic speeches (cached)."""
    data_dir = root / f"data_{n_docs}"
    if not (data_dir / SUBDIR / "data.csv").exists():
        write_synthetic_ibm(data_dir / SUBDIR, n_docs, seed=n_docs)
    return data_dir


@dataclass
class EvalRun:
    proc: ProcResult
    n_requests: int
    window_s: float | None
    output_dir: Path

    @property
    def samples_path(self) -> Path:
        return next(self.output_dir.glob("*/samples_*.jsonl"))

    @property
    def results_path(self) -> Path:
        return next(self.output_dir.glob("*/results_*.json"))


def eval_args(
    srv: StubProcess,
    *,
    task: str | Path,
    data_dir: Path | None,
    out: Path,
    concurrency: int,
    limit: int | None,
    model_args: str | None = None,
    bootstrap: int | None = None,
    extra: tuple[str, ...] = (),
    parts: bool = False,
) -> list[str]:
    """``debench eval`` against the stub; ``bootstrap`` None keeps the default (the task's 1,000 draws);
    ``parts``: through ``benchmarks.parts``, each part of the command timed."""
    args = [
        "eval",
        "--task",
        str(task),
        "--model",
        "openai/stub",
        "--api-base",
        srv.base_url,
        "--concurrency",
        str(concurrency),
        "--output-dir",
        str(out),
        "--no-progress",
        *extra,
    ]
    if bootstrap is not None:
        args += ["--bootstrap", str(bootstrap)]
    if data_dir is not None:
        args += ["--data-source", "local", "--data-dir", str(data_dir)]
    if limit is not None:
        args += ["--limit", str(limit)]
    if model_args:
        args += ["--model-args", model_args]
    return debench_cmd(*args, parts=parts)


def measured_eval(srv: StubProcess, work: Path, tag: str, *, cache: Path | None = None, **kwargs: object) -> EvalRun:
    """One ``debench eval`` against ``srv`` with fresh statistics; its own cache unless given one."""
    out = work / f"out_{tag}"
    srv.reset_stats()
    cmd = eval_args(srv, out=out, **kwargs)
    proc = run_measured(cmd, env=debench_env(cache or work / f"cache_{tag}")).check(f"debench eval ({tag})")
    stats = srv.stats
    return EvalRun(proc, stats.total_requests, stats.window_s, out)
