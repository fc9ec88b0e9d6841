"""What the benchmarks measured (pydantic, written as JSON) and the table they print."""

from __future__ import annotations

import platform
import time
from pathlib import Path

from pydantic import BaseModel, Field


class ThroughputRow(BaseModel):
    """One setting of the throughput benchmark, measured the same way for debench and lm-eval."""

    concurrency: int
    latency_s: float
    n_docs: int
    debench_sps: float | None = None
    """Documents / busy window at the stub (first request received -> last answer sent)."""
    debench_wall_s: float | None = None
    """The whole ``debench eval`` command (interpreter start, imports, data, scoring included)."""
    debench_peak_rss_mb: float | None = None
    lmeval_sps: float | None = None
    lmeval_wall_s: float | None = None
    lmeval_peak_rss_mb: float | None = None
    lmeval_error: str | None = None

    @property
    def ideal_sps(self) -> float | None:
        return self.concurrency / self.latency_s if self.latency_s > 0 else None

    @property
    def efficiency(self) -> float | None:
        ideal = self.ideal_sps
        return self.debench_sps / ideal if ideal and self.debench_sps else None

    @property
    def ratio(self) -> float | None:
        return self.debench_sps / self.lmeval_sps if self.debench_sps and self.lmeval_sps else None


class Check(BaseModel):
    """One target: held or not, with the figure that decides it."""

    name: str
    held: bool
    figure: str
    note: str = ""
    kind: str = "correctness"
    """``correctness`` (asserted by the smoke test) or ``speed`` (a target, printed, never asserted
    by tests: the machine may be shared)."""


class Machine(BaseModel):
    cpu: str
    cores: int
    python: str
    date: str

    @classmethod
    def here(cls) -> Machine:
        import os

        cpu = "unknown"
        try:
            for line in Path("/proc/cpuinfo").read_text().splitlines():
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
        except OSError:
            pass
        return cls(cpu=cpu, cores=os.cpu_count() or 1, python=platform.python_version(), date=time.strftime("%Y-%m-%d"))


class BenchReport(BaseModel):
    mode: str
    machine: Machine
    stub_ceiling_sps: dict[str, float] = Field(default_factory=dict)
    throughput: list[ThroughputRow] = Field(default_factory=list)
    figures: dict[str, float | int | str | None] = Field(default_factory=dict)
    checks: list[Check] = Field(default_factory=list)
    duration_s: float = 0.0

    def check(self, name: str, held: bool, figure: str, note: str = "", *, kind: str = "correctness") -> Check:
        c = Check(name=name, held=held, figure=figure, note=note, kind=kind)
        self.checks.append(c)
        print(format_check(c), flush=True)
        return c

    @property
    def all_held(self) -> bool:
        return all(c.held for c in self.checks)


def _f(x: float | None, spec: str = ".1f") -> str:
    return "—" if x is None else format(x, spec)


def format_check(c: Check) -> str:
    state = "held    " if c.held else "NOT HELD"
    return f"[{state}] {c.name}: {c.figure}" + (f"  ({c.note})" if c.note else "")


def format_table(report: BenchReport) -> str:
    """The throughput table, then the stub's ceiling, other figures and one line per check."""
    lines = [
        "samples/s = documents / the stub's busy window (first request received -> last answer sent), the same for both;",
        "wall s = the whole command (interpreter start, imports, data, scoring); efficiency = samples/s / (C / latency).",
        f"machine: {report.machine.cpu}, {report.machine.cores} cores, Python {report.machine.python}, {report.machine.date}",
        "",
        "|   C | latency |  docs | debench/s | ideal/s | efficiency | lm-eval/s | debench / lm-eval | wall s debench / lm-eval | peak RSS MB debench / lm-eval |",
        "| --: | ------: | ----: | --------: | ------: | ---------: | --------: | ----------------: | -----------------------: | ----------------------------: |",
    ]
    for r in report.throughput:
        eff = "—" if r.efficiency is None else f"{r.efficiency:.1%}"
        ratio = "—" if r.ratio is None else f"{r.ratio:.2f}x"
        lines.append(
            f"| {r.concurrency:>3} | {int(r.latency_s * 1000):>4} ms | {r.n_docs:>5} | {_f(r.debench_sps):>9} | {_f(r.ideal_sps):>7} "
            f"| {eff:>10} | {_f(r.lmeval_sps):>9} | {ratio:>17} | {_f(r.debench_wall_s) + ' / ' + _f(r.lmeval_wall_s):>24} "
            f"| {_f(r.debench_peak_rss_mb, '.0f') + ' / ' + _f(r.lmeval_peak_rss_mb, '.0f'):>29} |"
        )
    if report.stub_ceiling_sps:
        lines += ["", "stub server ceiling (requests/s): " + ", ".join(f"{k}: {v:.0f}" for k, v in report.stub_ceiling_sps.items())]
    if report.figures:
        lines += [""] + [f"{k}: {v}" for k, v in report.figures.items()]
    lines += [""] + [format_check(c) for c in report.checks]
    lines.append(f"\n{sum(c.held for c in report.checks)}/{len(report.checks)} checks held; {report.duration_s:.0f} s")
    return "\n".join(lines)
