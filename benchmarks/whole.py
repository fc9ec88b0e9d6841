"""What a user waits for: a whole command, split at the stub's clock into its phases.

The stub records when the first request arrived and when the last answer left
(``time.monotonic()``, one clock for every process on the machine); the child's start and end are
read on the same clock. So a command's wall time is: start-up (interpreter, imports, task, data,
up to the first request) + the request window + the work after the last answer (scoring with
its bootstrap CIs, writing results and plots, interpreter exit).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

from pydantic import BaseModel

from benchmarks.parts import read_parts
from benchmarks.proc import ProcResult, debench_cmd, debench_env, run_measured
from debench.testing.stub_server import StubProcess


class PartTime(BaseModel):
    """One part of a command (``benchmarks.parts``)."""

    cpu_s: float
    wall_s: float


class CommandTiming(BaseModel):
    """One whole command, measured from outside."""

    wall_s: float
    to_first_request_s: float | None = None
    """Command start -> the first request at the stub."""
    window_s: float | None = None
    """First request received -> last answer sent (the stub's busy window)."""
    after_last_answer_s: float | None = None
    """Last answer sent -> the command's exit."""
    peak_rss_mb: float
    n_requests: int = 0
    cpu_s: float = 0.0
    """The process's CPU time, user + system."""
    parts: dict[str, PartTime] = {}
    """Each part's CPU and wall time when the command ran through ``benchmarks.parts``; ``exit``
    is the CPU the process spent after the last part (the interpreter's exit)."""

    @classmethod
    def of(cls, proc: ProcResult, srv: StubProcess | None) -> CommandTiming:
        parts = {name: PartTime(**times) for name, times in read_parts(proc.stdout).items()}
        if parts:
            parts["exit"] = PartTime(cpu_s=max(0.0, proc.cpu_s - sum(p.cpu_s for p in parts.values())), wall_s=0.0)
        timing = cls(wall_s=proc.wall_s, peak_rss_mb=proc.peak_rss_mb, cpu_s=proc.cpu_s, parts=parts)
        if srv is None:
            return timing
        stats = srv.stats
        timing.n_requests = stats.total_requests
        if stats.first_request_at is not None and stats.last_response_at is not None:
            timing.to_first_request_s = stats.first_request_at - proc.started_at
            timing.window_s = stats.last_response_at - stats.first_request_at
            timing.after_last_answer_s = proc.started_at + proc.wall_s - stats.last_response_at
        return timing

    def phases(self) -> str:
        def f(x: float | None) -> str:
            return "—" if x is None else f"{x:.2f}"

        return (
            f"{self.wall_s:.2f} s = {f(self.to_first_request_s)} to the first request + {f(self.window_s)} window + "
            f"{f(self.after_last_answer_s)} after"
        )

    def shares(self) -> str:
        """Each part's CPU seconds and its share of the process's CPU, then the wall seconds of
        the parts that took more than 10 ms of it."""
        total = self.cpu_s or 1.0
        cpu = ", ".join(f"{name} {p.cpu_s:.2f} ({p.cpu_s / total:.0%})" for name, p in self.parts.items())
        wall = ", ".join(f"{name} {p.wall_s:.2f}" for name, p in self.parts.items() if p.wall_s >= 0.01)
        return f"CPU {self.cpu_s:.2f} s: {cpu}; wall {self.wall_s:.2f} s: {wall}"


def timed(cmd: list[str], srv: StubProcess | None, *, env: dict[str, str], what: str) -> CommandTiming:
    """Run ``cmd`` with fresh stub statistics; its timing (the command must succeed)."""
    if srv is not None:
        srv.reset_stats()
    proc = run_measured(cmd, env=env).check(what)
    return CommandTiming.of(proc, srv)


def startup_seconds(args: list[str], work: Path, runs: int = 5) -> float:
    """The median wall time of ``debench ARGS`` (no model, no data: imports and the command)."""
    env = debench_env(work / "cache_startup")
    times = [run_measured(debench_cmd(*args), env=env).check(f"debench {' '.join(args)}").wall_s for _ in range(runs)]
    return statistics.median(times)


def python_startup_seconds(runs: int = 5) -> float:
    """The bare interpreter's start-up here (what no command can go under)."""
    return statistics.median(run_measured([sys.executable, "-c", "pass"]).wall_s for _ in range(runs))
