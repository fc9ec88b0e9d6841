"""Fault benchmarks: a flaky provider (30% of requests fail) and kill -9 in the middle of runs.

Answers are deterministic per prompt (the stub's Likert responder), so a clean run is the
reference: the faulty run's metrics must equal the clean run's on the documents that succeeded,
and an interrupted-and-resumed run's metrics must equal an uninterrupted run's.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from benchmarks.proc import debench_env
from benchmarks.workload import BENCH_TASK, eval_args, make_data, measured_eval
from debench.data.loading import load_task_data
from debench.data.samples import read_records
from debench.run.task_lookup import load_task
from debench.scoring.scores import score
from debench.testing.stub_server import FaultPlan, StubProcess

MAX_RETRIES = 3
FAULT_ARGS = f"max_retries={MAX_RETRIES},base_delay=0.05,max_delay=0.5,timeout=1"
FAULT_PLAN = FaultPlan(
    rate_limit=0.10, server_error=0.10, drop=0.05, slow=0.05, seed=11, retry_after="0.2", slow_seconds=2.0
)
BOOTSTRAP = 200


class FaultFigures(BaseModel):
    n_docs: int
    completed: bool
    n_ok: int
    n_parse_failures: int
    n_errors: int
    n_errors_reported: int
    every_doc_once: bool
    max_attempts_seen: int
    attempt_cap: int
    outcomes: dict[str, int]
    fault_share: float
    metrics_equal: bool
    metric_diffs: dict[str, Any]


class KillFigures(BaseModel):
    n_docs: int
    kills: int
    lines_at_kills: list[int]
    every_doc_once: bool
    metrics_equal: bool
    final_exit: int
    resumed_requests: int
    wall_s: float


def _metrics(results_path: Path) -> dict[str, Any]:
    data = json.loads(results_path.read_text())
    return {k: (v["value"], v["ci95"], v["n"]) for k, v in data["metrics"].items()}


def _diff(a: dict[str, Any], b: dict[str, Any]) -> dict[str, Any]:
    return {k: {"got": a.get(k), "want": b.get(k)} for k in sorted(set(a) | set(b)) if a.get(k) != b.get(k)}


def fault_run(srv: StubProcess, work: Path, n_docs: int) -> FaultFigures:
    data_dir = make_data(work, n_docs)
    common: dict[str, Any] = {
        "task": BENCH_TASK,
        "data_dir": data_dir,
        "concurrency": 32,
        "limit": n_docs,
        "bootstrap": BOOTSTRAP,
    }
    srv.configure(latency=0.01, faults=FaultPlan())
    clean = measured_eval(srv, work, "clean", **common)
    srv.configure(faults=FAULT_PLAN)
    faulty = measured_eval(srv, work, "faulty", model_args=FAULT_ARGS, **common)
    stats = srv.stats
    srv.configure(faults=FaultPlan())

    records = read_records(faulty.samples_path)
    ids = [r.doc_id for r in records]
    reported = json.loads(faulty.results_path.read_text())
    # The reference: the clean run's answers, scored on the documents the faulty run completed.
    task, _ = load_task(str(BENCH_TASK))
    docs = load_task_data(task, "local", data_dir).docs[:n_docs]
    succeeded = {r.doc_id for r in records if r.status != "error"}
    clean_records = {r.doc_id: r for r in read_records(clean.samples_path) if r.doc_id in succeeded}
    reference = score(task, [d for d in docs if d.doc_id in succeeded], clean_records, n_bootstrap=BOOTSTRAP)
    want = {k: (m.value, m.ci95, m.n) for k, m in reference.metrics.items()}
    got = {k: (v["value"], v["ci95"], v["n"]) for k, v in reported["metrics"].items()}
    faults = sum(v for k, v in stats.outcomes.items() if k != "ok")
    return FaultFigures(
        n_docs=n_docs,
        completed=faulty.proc.returncode == 0,
        n_ok=sum(r.status == "ok" for r in records),
        n_parse_failures=sum(r.status == "parse_failure" for r in records),
        n_errors=sum(r.status == "error" for r in records),
        n_errors_reported=int(reported["n_errors"]),
        every_doc_once=len(ids) == len(set(ids)) == n_docs
        and all(r.status in ("ok", "parse_failure", "error") for r in records),
        max_attempts_seen=max(stats.attempts_per_prompt.values(), default=0),
        attempt_cap=MAX_RETRIES + 1,
        outcomes=stats.outcomes,
        fault_share=faults / max(1, stats.total_requests),
        metrics_equal=got == want,
        metric_diffs=_diff(got, want),
    )


def _lines(path: Path | None) -> int:
    if path is None or not path.exists():
        return 0
    with open(path, "rb") as fh:
        return fh.read().count(b"\n")


def kill_run(srv: StubProcess, work: Path, n_docs: int, *, kills: int = 5, seed: int = 7) -> KillFigures:
    """kill -9 the eval at ``kills`` random moments, rerunning the same command after each."""
    data_dir = make_data(work, n_docs)
    srv.configure(latency=0.05, faults=FaultPlan())
    common: dict[str, Any] = {
        "task": BENCH_TASK,
        "data_dir": data_dir,
        "concurrency": 8,
        "limit": n_docs,
        "bootstrap": BOOTSTRAP,
    }
    reference = measured_eval(srv, work, "uninterrupted", **common)
    out = work / "out_killed"
    cmd = eval_args(srv, out=out, **common)
    env = debench_env(work / "cache_killed")
    rng = random.Random(seed)
    srv.reset_stats()
    t0 = time.perf_counter()
    lines_at: list[int] = []
    killed = 0
    for _ in range(kills):
        log = next(out.glob("*/samples_*.jsonl"), None)
        start_lines = _lines(log)
        # a random moment while documents are being judged: after 5-20% more of them are logged
        target = start_lines + rng.randint(n_docs // 20, n_docs // 5)
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while proc.poll() is None:
            log = log or next(out.glob("*/samples_*.jsonl"), None)
            if _lines(log) >= target:
                time.sleep(rng.uniform(0.0, 0.05))
                os.kill(proc.pid, signal.SIGKILL)
                killed += 1
                break
            time.sleep(0.005)
        proc.wait()
        lines_at.append(_lines(log))
    final = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    log = next(out.glob("*/samples_*.jsonl"))
    ids = [r.doc_id for r in read_records(log)]
    results = next(out.glob("*/results_*.json"))
    return KillFigures(
        n_docs=n_docs,
        kills=killed,
        lines_at_kills=lines_at,
        every_doc_once=len(ids) == len(set(ids)) == n_docs,
        metrics_equal=_metrics(results) == _metrics(reference.results_path),
        final_exit=final.returncode,
        resumed_requests=srv.stats.total_requests,
        wall_s=wall,
    )
