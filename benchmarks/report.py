"""What the benchmarks measured (pydantic, written as JSON) and the table they print."""

from __future__ import annotations

import platform
import time
from pathlib import Path

from pydantic import BaseModel, Field

from benchmarks.whole import CommandTiming


class ThroughputRow(BaseModel):
    """One setting, measured the same way for debench and lm-eval: each the whole command with its
    default settings, and its request window at the stub."""

    concurrency: int
    latency_s: float
    n_docs: int
    debench: CommandTiming | None = None
    debench_sps: float | None = None
    """Documents / busy window at the stub (first request received -> last answer sent)."""
    lmeval: CommandTiming | None = None
    lmeval_sps: float | None = None
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


def _phases(c: CommandTiming | None) -> str:
    if c is None:
        return "—"
    return (
        f"{c.wall_s:.2f} = {_f(c.to_first_request_s, '.2f')} + {_f(c.window_s, '.2f')} + "
        f"{_f(c.after_last_answer_s, '.2f')}"
    )


def format_table(report: BenchReport) -> str:
    """The whole-command table (debench beside lm-eval), the stub's ceiling, other figures and one
    line per check."""
    lines = [
        "whole command s = start-up to the first request + request window + after the last answer (the stub's clock);",
        "debench with its defaults (1,000 bootstrap draws per metric); efficiency = "
        "documents / window / (C / latency).",
        f"machine: {report.machine.cpu}, {report.machine.cores} cores, Python "
        f"{report.machine.python}, {report.machine.date}",
        "",
        "|   C | latency |  docs |      debench whole command s |      lm-eval whole command s | debench window/s | "
        "efficiency | lm-eval window/s | peak RSS MB debench / lm-eval |",
        "| --: | ------: | ----: | ---------------------------: | ---------------------------: | ---------------: | "
        "---------: | ---------------: | ----------------------------: |",
    ]
    for r in report.throughput:
        eff = "—" if r.efficiency is None else f"{r.efficiency:.1%}"
        rss = (
            f"{_f(r.debench.peak_rss_mb if r.debench else None, '.0f')} / "
            f"{_f(r.lmeval.peak_rss_mb if r.lmeval else None, '.0f')}"
        )
        lines.append(
            f"| {r.concurrency:>3} | {int(r.latency_s * 1000):>4} ms | {r.n_docs:>5} | {_phases(r.debench):>28} | "
            f"{_phases(r.lmeval):>28} | {_f(r.debench_sps):>16} | {eff:>10} | {_f(r.lmeval_sps):>16} | {rss:>29} |"
        )
    if report.stub_ceiling_sps:
        lines += [
            "",
            "stub server ceiling (requests/s): "
            + ", ".join(f"{k}: {v:.0f}" for k, v in report.stub_ceiling_sps.items()),
        ]
    if report.figures:
        lines += [""] + [f"{k}: {v}" for k, v in report.figures.items()]
    lines += [""] + [format_check(c) for c in report.checks]
    lines.append(f"\n{sum(c.held for c in report.checks)}/{len(report.checks)} checks held; {report.duration_s:.0f} s")
    return "\n".join(lines)
