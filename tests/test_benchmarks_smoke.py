"""``python -m benchmarks --smoke`` (the small version of the performance and fault benchmarks)
runs, writes its JSON, and every correctness check holds. Speed targets are printed by the
benchmark, never asserted here: the machine may be shared."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA_DIR

from benchmarks.parts import PARTS

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow  # about a minute: the whole benchmark suite in small
def test_smoke_benchmark_checks_hold(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--smoke", "--out", str(tmp_path), "--data-dir", str(DATA_DIR)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    report = json.loads((tmp_path / "benchmarks.json").read_text())
    checks = {c["name"]: c for c in report["checks"]}
    correctness = [c for c in checks.values() if c["kind"] == "correctness"]
    assert len(correctness) >= 7
    failed = [f"{c['name']}: {c['figure']}" for c in correctness if not c["held"]]
    assert not failed, failed
    names = " | ".join(checks)
    for what in (
        "30% faults",
        "retried past its cap",
        "clean run",
        "kill -9 x5",
        "cached rerun makes no request",
        "arena rank equals the per-judgment computation",
    ):
        assert what in names
    # the speed figures are measured and printed (their targets are not asserted)
    assert all(r["debench_sps"] and r["debench_sps"] > 0 for r in report["throughput"])
    assert report["stub_ceiling_sps"] and "debench whole command s" in (tmp_path / "benchmarks.txt").read_text()
    # each whole command's parts: every part's CPU share, adding up to the process's CPU time
    for row in report["throughput"]:
        timing = row["debench"]
        assert set(timing["parts"]) == {*PARTS, "exit"}
        assert sum(p["cpu_s"] for p in timing["parts"].values()) == pytest.approx(timing["cpu_s"], abs=0.02)
        assert timing["parts"]["runner"]["wall_s"] > 0 and timing["parts"]["metrics"]["cpu_s"] > 0
    assert any(k.startswith("parts of the cached rerun") for k in report["figures"])
    assert any(k.startswith("arena rank, 9,360 judgments") for k in report["figures"]) and any(
        k.startswith("per-judgment computation") for k in report["figures"]
    )
