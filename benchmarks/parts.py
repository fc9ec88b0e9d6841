"""Child process: one whole ``debench eval`` command (the CLI, in this process) with the CPU time and
wall time of each of its parts, so that a slower command shows where it got slower.

``python -m benchmarks.parts eval --task ...`` runs the command as ``debench`` would and prints,
as its last line, one JSON object: per part, the CPU seconds (``time.process_time``) and the wall
seconds it took. The parts follow each other; their CPU seconds add up to the process's CPU time up
to ``after`` (the parent adds what the interpreter spends on its exit, from ``wait4``):

* ``start-up``: the interpreter, imports, the command line, task, data and judge, up to the runner;
* ``runner``: every document judged (the request window; from the cache in a cached rerun);
* ``scoring imports``: what scoring needs and the command has not imported yet (numpy, scipy, the
  metrics: imported after the last answer);
* ``metrics``: the metrics with their bootstrap CIs and the reports (``scoring.scores.score``);
* ``plots``: the charts written beside the results (speech-rating tasks);
* ``results file``: the results assembled and written;
* ``after``: the rest of the command (its summary table, closing the judge).

The parts are found by wrapping the functions that do them where the pipeline looks them up when it
calls them (as ``benchmarks.probe`` does): nothing is imported earlier than the command imports it.
"""

from __future__ import annotations

import atexit
import json
import sys
import time
from collections.abc import Callable
from functools import wraps
from typing import Any

PARTS = ("start-up", "runner", "scoring imports", "metrics", "plots", "results file", "after")


class Clock:
    """The CPU and wall time of the parts, each from the end of the one before it."""

    def __init__(self) -> None:
        self.cpu: dict[str, float] = dict.fromkeys(PARTS, 0.0)
        self.wall: dict[str, float] = dict.fromkeys(PARTS, 0.0)
        self._cpu = 0.0  # the process's CPU time when the current part began
        self._wall = time.perf_counter()
        self._started = self._wall

    def close(self, part: str) -> None:
        """The part that just ended."""
        cpu, wall = time.process_time(), time.perf_counter()
        self.cpu[part] += cpu - self._cpu
        self.wall[part] += wall - self._wall
        self._cpu, self._wall = cpu, wall

    def figures(self) -> dict[str, dict[str, float]]:
        return {p: {"cpu_s": round(self.cpu[p], 4), "wall_s": round(self.wall[p], 4)} for p in PARTS}


def read_parts(stdout: str) -> dict[str, dict[str, float]]:
    """The parts a ``benchmarks.parts`` child printed (its last line), or {} for another command."""
    lines = stdout.strip().splitlines()
    try:
        parts = json.loads(lines[-1]) if lines else {}
    except ValueError:
        return {}
    return parts if isinstance(parts, dict) and set(parts) == set(PARTS) else {}


def _timed(clock: Clock, before: str, part: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` closing ``before`` when it starts and ``part`` when it returns."""

    @wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        clock.close(before)
        out = fn(*args, **kwargs)
        clock.close(part)
        return out

    return wrapped


def instrument(clock: Clock) -> None:
    """Wrap the parts' functions in the modules the pipeline looks them up in. The modules imported
    only after the last answer are wrapped then (the pipeline imports them by name when it calls
    them), so that this costs the start-up nothing."""
    import debench.run.pipeline as pipeline

    run_samples = pipeline.run_samples

    @wraps(run_samples)
    async def runner(*args: Any, **kwargs: Any) -> Any:
        clock.close("start-up")
        out = await run_samples(*args, **kwargs)
        clock.close("runner")
        return out

    build_results = pipeline.build_results

    @wraps(build_results)
    def results(*args: Any, **kwargs: Any) -> Any:
        clock.close("results file")
        import debench.core.charts as charts
        import debench.scoring.results as written
        import debench.scoring.scores as scores

        clock.close("scoring imports")
        if not hasattr(scores.score, "__wrapped__"):
            scores.score = _timed(clock, "results file", "metrics", scores.score)
            charts.speech_rating_plots = _timed(clock, "results file", "plots", charts.speech_rating_plots)
            written.write_results = _timed(clock, "results file", "results file", written.write_results)
        return build_results(*args, **kwargs)

    pipeline.run_samples = runner  # type: ignore[assignment]
    pipeline.build_results = results  # type: ignore[assignment]


def main(argv: list[str]) -> None:
    clock = Clock()
    instrument(clock)
    from debench.cli import main as cli

    def report() -> None:
        clock.close("after")
        print(json.dumps(clock.figures()), flush=True)

    atexit.register(report)
    cli(argv, prog_name="debench")


if __name__ == "__main__":
    main(sys.argv[1:])
