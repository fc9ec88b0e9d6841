"""``python -m benchmarks.scoring [--data-dir DIR] [--synthetic N ...]``: how long scoring takes.

Scoring = ``debench.scoring.scores.score``: every metric of the task with its bootstrap CI (the task's
default, 1,000 resamples), the rates and the reports, from parsed predictions already in memory
(a seeded random judge). It is what ``eval``, ``score`` and ``validate`` do after the last answer.
Timed in this process, best and median of ``--repeat`` runs after one warm-up (imports and the
first data load are not part of it). Target (issue 15): ``ibm_speech_likert`` on the 631 real
speeches in <= 0.5 s.

``--synthetic N`` also scores N synthetic IBM-format speeches (``benchmarks.synthetic``) and
reports the scoring's peak traced memory (tracemalloc: numpy and scipy arrays included), to
see how it grows with the documents.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from benchmarks.report import Check, format_check
from debench.data.base import Doc
from debench.data.loading import load_local
from debench.data.samples import SampleRecord
from debench.run.task_lookup import load_task
from debench.scoring.scores import score
from debench.task.config import TaskConfig

HERE = Path(__file__).resolve().parent
TARGET_S = 0.5
TARGET_TASK = "ibm_speech_likert"
TASKS = ("ibm_speech_likert", "debateart_winner", "bp_top_team")
"""The tasks whose real data is offline (DebateBench's gold is not)."""


def random_judge(task: TaskConfig, docs: list[Doc], seed: int = 0) -> dict[str, SampleRecord]:
    """One parsed answer per document, drawn from the task's choices."""
    rng = random.Random(seed)
    choices = list(task.parser.choices or [])
    return {d.doc_id: SampleRecord(doc_id=d.doc_id, status="ok", prediction=rng.choice(choices)) for d in docs}


def time_scoring(task: TaskConfig, docs: list[Doc], repeat: int) -> dict[str, Any]:
    records = random_judge(task, docs)
    score(task, docs, records)  # warm-up
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        score(task, docs, records)
        runs.append(time.perf_counter() - start)
    return {"n_docs": len(docs), "best_s": min(runs), "median_s": statistics.median(runs), "runs_s": runs}


def scoring_memory(n_docs: int, work: Path) -> dict[str, Any]:
    """Time and peak traced memory of scoring ``n_docs`` synthetic IBM-format speeches."""
    from benchmarks.synthetic import write_synthetic_ibm

    task, _ = load_task(TARGET_TASK)
    directory = work / f"synthetic_{n_docs}"
    write_synthetic_ibm(directory, n_docs)
    docs = load_local(
        task.model_copy(update={"dataset": task.dataset.model_copy(update={"local_dir": directory.name})}), work
    ).docs
    records = random_judge(task, docs)
    tracemalloc.start()
    start = time.perf_counter()
    score(task, docs, records)
    seconds = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"n_docs": n_docs, "seconds": seconds, "peak_traced_mb": peak / 2**20}


def measure_scoring(data_dir: str | Path, *, repeat: int = 5, synthetic: tuple[int, ...] = ()) -> dict[str, Any]:
    """Scoring time per task on the real data (and memory on synthetic data); ``held`` says
    whether ``ibm_speech_likert`` scored within the target (best of ``repeat``)."""
    out: dict[str, Any] = {"target_s": TARGET_S, "target_task": TARGET_TASK, "tasks": {}, "synthetic": []}
    for name in TASKS:
        task, _ = load_task(name)
        try:
            docs = load_local(task, Path(data_dir)).docs
        except Exception as exc:  # noqa: BLE001 - a missing data set is reported, not fatal
            out["tasks"][name] = {"error": str(exc).splitlines()[0]}
            continue
        out["tasks"][name] = time_scoring(task, docs, repeat)
    if synthetic:
        with tempfile.TemporaryDirectory() as tmp:
            out["synthetic"] = [scoring_memory(n, Path(tmp)) for n in synthetic]
    target = out["tasks"].get(TARGET_TASK, {})
    out["held"] = "best_s" in target and target["best_s"] <= TARGET_S
    return out


def check(figures: dict[str, Any]) -> Check:
    target = figures["tasks"].get(TARGET_TASK, {})
    figure = (
        f"{target['best_s']:.3f} s (median {target['median_s']:.3f} s)"
        if "best_s" in target
        else target.get("error", "not measured")
    )
    return Check(
        name=f"scoring {TARGET_TASK} ({target.get('n_docs', 631)} speeches, every metric with its "
        f"1,000-draw CI) <= {TARGET_S} s",
        held=bool(figures["held"]),
        figure=figure,
        note="best of the runs; the machine may be shared",
        kind="speed",
    )


def format_figures(figures: dict[str, Any]) -> str:
    lines = ["scoring time (default metrics and 1,000-draw bootstrap CIs; best / median of the runs):"]
    for name, f in figures["tasks"].items():
        if "error" in f:
            lines.append(f"  {name:<20} not measured: {f['error']}")
        else:
            lines.append(f"  {name:<20} {f['n_docs']:>6} docs  {f['best_s']:.3f} s / {f['median_s']:.3f} s")
    for s in figures["synthetic"]:
        lines.append(
            f"  synthetic IBM        {s['n_docs']:>6} docs  {s['seconds']:.3f} s, peak traced "
            f"memory {s['peak_traced_mb']:.1f} MB"
        )
    lines.append(format_check(check(figures)))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.scoring", description=__doc__.splitlines()[0])
    p.add_argument(
        "--data-dir", default=os.environ.get("DEBENCH_DATA_DIR") or str(HERE.parent.parent / "shared" / "datasets")
    )
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument(
        "--synthetic", type=int, nargs="*", default=[], metavar="N", help="also score N synthetic speeches (memory)"
    )
    args = p.parse_args(argv)
    print(format_figures(measure_scoring(args.data_dir, repeat=args.repeat, synthetic=tuple(args.synthetic))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
