"""Run a command as a child process and measure it: wall clock, exit code, peak RSS (of that child
only, from ``wait4``), output kept in files so that no pipe can block it."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass
class ProcResult:
    returncode: int
    wall_s: float
    peak_rss_mb: float
    stdout: str
    stderr: str
    started_at: float = 0.0
    """``time.monotonic()`` just before the child was started (the clock the stub's times use)."""
    cpu_s: float = 0.0
    """The child's CPU time, user + system (``wait4``)."""

    def check(self, what: str) -> ProcResult:
        if self.returncode != 0:
            raise RuntimeError(f"{what} failed (exit {self.returncode}):\n{self.stderr[-3000:]}")
        return self


def run_measured(
    cmd: Sequence[str], *, env: Mapping[str, str] | None = None, cwd: Path | None = None, timeout: float = 1800
) -> ProcResult:
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.monotonic()
        t0 = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err, env=dict(env) if env is not None else None, cwd=cwd)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                pid, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.01)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        cpu = usage.ru_utime + usage.ru_stime
        return ProcResult(proc.returncode, wall, usage.ru_maxrss / 1024, out.read(), err.read(), started, cpu)


def debench_env(cache_dir: Path, **extra: str) -> dict[str, str]:
    """The environment of a ``debench`` child: offline, its own response cache."""
    env = dict(os.environ)
    env.update(
        {
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "HF_HUB_OFFLINE": "1",
            "DEBENCH_CACHE_DIR": str(cache_dir),
            "PYTHONUNBUFFERED": "1",
        }
    )
    env.update(extra)
    return env


def debench_cmd(*args: str, parts: bool = False) -> list[str]:
    """``debench ...`` through this interpreter (the installed package); with ``parts``, the same
    command through ``benchmarks.parts`` (the CLI in that process, each part of it timed)."""
    return [sys.executable, "-m", "benchmarks.parts" if parts else "debench.cli", *args]
