"""Child process of the memory and cache benchmarks: one evaluation with each stage timed and its
resident set recorded.

Prints one JSON line: for each stage (``data``: loading the data set, ``runner``: judging every
document, ``scoring``: metrics) the seconds it took and the MB resident after it, plus the MB
resident after imports, the peak, and the runner's own growth (what the harness holds while it
judges).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import time
from pathlib import Path
from typing import Any

import debench.data.loading as loading
import debench.run.pipeline as pipeline
import debench.scoring.scores as scoring
from debench.models.factory import make_model, parse_model_args
from debench.run.pipeline import EvalOptions, evaluate_task
from debench.run.task_lookup import load_task

STAGES = [(loading, "load_task_data", "data"), (pipeline, "run_samples", "runner"), (scoring, "score", "scoring")]
"""(module, function, stage): each is looked up in its module when called, so wrapping it there times it."""


def _rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * resource.getpagesize() / 2**20


def _instrument(marks: dict[str, float]) -> None:
    """Wrap the stages of ``evaluate_task`` (looked up in their modules at call time)."""
    for module, fn_name, stage in STAGES:
        original = getattr(module, fn_name)

        def record(stage: str, started: float, rss_before: float) -> None:
            marks[f"{stage}_s"] = time.perf_counter() - started
            marks[f"{stage}_rss_mb"] = _rss_mb()
            marks[f"{stage}_growth_mb"] = marks[f"{stage}_rss_mb"] - rss_before

        if asyncio.iscoroutinefunction(original):

            async def awrapped(*a: Any, _f: Any = original, _s: str = stage, **k: Any) -> Any:
                t, r = time.perf_counter(), _rss_mb()
                out = await _f(*a, **k)
                record(_s, t, r)
                return out

            setattr(module, fn_name, awrapped)
        else:

            def wrapped(*a: Any, _f: Any = original, _s: str = stage, **k: Any) -> Any:
                t, r = time.perf_counter(), _rss_mb()
                out = _f(*a, **k)
                record(_s, t, r)
                return out

            setattr(module, fn_name, wrapped)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--task", required=True)
    p.add_argument("--data-dir", required=True)
    p.add_argument("--model", default="openai/stub")
    p.add_argument("--model-args", default=None)
    p.add_argument("--api-base", default=None)
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--out", required=True)
    p.add_argument("--concurrency", type=int, default=64)
    p.add_argument("--bootstrap", type=int, default=None, help="default: the task's")
    args = p.parse_args()
    marks: dict[str, float] = {"imports_rss_mb": _rss_mb()}
    _instrument(marks)
    task, path = load_task(args.task)
    model = make_model(
        args.model, api_bases=[args.api_base] if args.api_base else None, model_args=parse_model_args(args.model_args)
    )
    opts = EvalOptions(
        output_dir=Path(args.out),
        concurrency=args.concurrency,
        data_source="local",
        data_dir=args.data_dir,
        progress=False,
        n_bootstrap=args.bootstrap,
        limit=args.limit,
    )

    async def run() -> Any:
        try:
            return await evaluate_task(task, path, model, opts)
        finally:
            await model.aclose()

    out = asyncio.run(run())
    marks["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    marks["n_samples"] = out.results.n_samples
    marks["n_cached"] = out.results.usage.n_cached
    marks["n_requests"] = out.results.usage.n_requests
    print(json.dumps({k: round(v, 3) for k, v in marks.items()}))


if __name__ == "__main__":
    main()
