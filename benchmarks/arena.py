"""``python -m benchmarks.arena [--smoke]``: ``debench arena rank`` at 10,000 and 1,000,000 judgments.

Synthetic judgment files (written here, never committed): ``n_models`` models, every ordered pair
on every topic (both legs), one judge, words per side (so the default length control runs) and
draws (Davidson's model), planted strengths. Each size is ranked by the whole command with its
defaults (1,000 topic resamples, length control, both Davidson fits), twice, in a child process
(wall clock and peak RSS), beside the straightforward per-judgment computation
(``benchmarks.arena_reference``: every resample refitted game by game with scipy) on the same
file in the same run (with one BLAS thread, its fastest setting here). The full run also ranks a
million battles each on its own topic (Chatbot Arena's shape; a figure, no target). That one takes hours at a
million judgments, so there it runs one resample per fit and its 1,000-resample time is
extrapolated (point fits + 1,000 x the resample), which the table says; ``--smoke`` (CI) does the
same from 2 resamples at 10,000. The machine's load average is printed with every figure: others share its cores.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.proc import debench_cmd, run_measured
from benchmarks.report import BenchReport, Check, Machine, format_check

TARGETS = {10_000: 3.0, 1_000_000: 60.0}
"""Whole command, seconds, at about this many judgments (issue 22)."""
TARGET_RSS_MB = 2048
N_MODELS = 40
EQUAL_TOL_ELO = 1e-3


def write_judgments(
    path: Path, n_models: int, n_topics: int, seed: int = 0, nu: float = 0.3, length_weight: float = 0.5
) -> int:
    """Every ordered pair of ``n_models`` on each of ``n_topics`` topics; returns the line count."""
    rng = np.random.default_rng(seed)
    models = [f"model-{k:02d}" for k in range(n_models)]
    strength = rng.normal(0, 1, n_models)
    verbosity = rng.uniform(250, 600, n_models)
    i, j = np.array([(a, b) for a in range(n_models) for b in range(n_models) if a != b]).T
    n = 0
    with open(path, "w", encoding="utf-8") as fh:
        for t in range(n_topics):
            wi = np.rint(verbosity[i] * np.exp(rng.normal(0, 0.3, len(i)))).astype(int)
            wj = np.rint(verbosity[j] * np.exp(rng.normal(0, 0.3, len(i)))).astype(int)
            d = strength[i] - strength[j] + length_weight * (wi - wj) / (wi + wj) / 0.2
            w = np.stack([np.exp(d / 2), np.exp(-d / 2), np.full(len(d), nu)], axis=1)
            k = (rng.random(len(d))[:, None] > np.cumsum(w / w.sum(axis=1, keepdims=True), axis=1)).sum(axis=1)
            fh.write(
                "".join(
                    f'{{"topic": "topic {t}", "side1": "{models[a]}", "side2": "{models[b]}", "winner": '
                    f'{("1", "2", "null")[c]}, "judge": "judge", "side1_words": {x}, "side2_words": {y}}}\n'
                    for a, b, c, x, y in zip(i, j, k, wi, wj, strict=True)
                )
            )
            n += len(i)
    return n


def write_battles(path: Path, n_models: int, n: int, seed: int = 0) -> int:
    """Chatbot Arena's shape: ``n`` battles between random pairs, each on its own topic (no topic
    has two legs), one judge, words per side, 10% ties."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0, 1, n_models)
    i = rng.integers(0, n_models, n)
    j = (i + rng.integers(1, n_models, n)) % n_models
    wi, wj = rng.integers(100, 800, n), rng.integers(100, 800, n)
    u = rng.random(n)
    win = np.where(u < 0.1, "null", np.where(u < 0.1 + 0.9 / (1 + np.exp(strength[j] - strength[i])), "1", "2"))
    with open(path, "w", encoding="utf-8") as fh:
        fh.writelines(
            f'{{"topic": "battle {t}", "side1": "model-{a:02d}", "side2": "model-{b:02d}", "winner": {w}, '
            f'"side1_words": {x}, "side2_words": {y}}}\n'
            for t, a, b, w, x, y in zip(range(n), i, j, win, wi, wj, strict=True)
        )
    return n


def load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load {one:.1f}/{five:.1f}/{fifteen:.1f}"


@dataclass
class Run:
    wall_s: float
    peak_rss_mb: float
    load: str


def rank_once(path: Path, out: Path) -> Run:
    before = load()
    proc = run_measured(
        debench_cmd("arena", "rank", "--judgments", str(path), "--output", str(out)), timeout=3600
    ).check("arena rank")
    return Run(proc.wall_s, proc.peak_rss_mb, before)


def reference_once(path: Path, n_boot: int, out: Path) -> tuple[Run, dict[str, Any]]:
    """With one BLAS thread: its products are large enough for BLAS, and on a busy machine BLAS's
    threads would make it slower still (the comparison stays conservative)."""
    before = load()
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "benchmarks.arena_reference", str(path), "--n-boot", str(n_boot), "--out", str(out)]
    proc = run_measured(cmd, env=env, timeout=4 * 3600)
    proc.check("the per-judgment reference")
    return Run(proc.wall_s, proc.peak_rss_mb, before), json.loads(out.read_text())


def extrapolated_s(timings: dict[str, Any], n_boot: int) -> float:
    """Reading, point fits and ``n_boot`` resamples at the measured time per resample."""
    total = timings["read_s"]
    for fit in timings["fits"].values():
        total += fit["point_s"] + (fit["draws_s"] / fit["n_draws"] * n_boot if fit["n_draws"] else 0.0)
    return total


def equal_to_reference(work: Path) -> Check:
    """A small file: ``arena rank``'s scores and intervals against the per-judgment computation."""
    from benchmarks.arena_reference import read_lines, reference_statistics
    from debench.arena.judgment_table import load_judgment_files
    from debench.arena.rank import analyse_judgments

    path = work / "small.jsonl"
    write_judgments(path, 5, 10, seed=3)
    ours = analyse_judgments(load_judgment_files([path]), n_boot=100, seed=1, n_perm=0).model_dump(mode="json")
    ref = reference_statistics(read_lines([path]), n_boot=100, seed=1)
    worst = 0.0
    pairs = [
        (ours["bradley_terry"], ref["bradley_terry"]),
        (ours["length_controlled"]["bradley_terry"], ref["length"]["bradley_terry"]),
    ]
    pairs += [
        (ours["davidson"][r]["bradley_terry"], ref["davidson"][r]["bradley_terry"]) for r in ("strict", "lenient")
    ]
    for a, b in pairs:
        for m in a:
            worst = max(
                worst,
                abs(a[m]["score"] - b[m]["score"]),
                *(abs(x - y) for x, y in zip(a[m]["ci95"], b[m]["ci95"], strict=True)),
            )
    return Check(
        name="arena rank equals the per-judgment computation (5 models, 10 topics, 100 resamples: scores and CIs, "
        f"plain, length, Davidson) within {EQUAL_TOL_ELO} Elo points",
        held=worst <= EQUAL_TOL_ELO,
        figure=f"largest difference {worst:.2e} Elo points",
    )


def measure_arena(report: BenchReport, work: Path, *, smoke: bool) -> None:
    report.check(**equal_to_reference(work).model_dump())
    sizes = [(N_MODELS, 6)] if smoke else [(N_MODELS, 6), (N_MODELS, 641)]
    for n_models, n_topics in sizes:
        path = work / f"judgments_{n_models}x{n_topics}.jsonl"
        n = write_judgments(path, n_models, n_topics)
        size = min(TARGETS, key=lambda t: abs(t - n))
        runs = [rank_once(path, work / "rank.json") for _ in range(1 if smoke else 2)]
        best = min(runs, key=lambda r: r.wall_s)
        label = f"arena rank, {n:,} judgments of {n_models} models ({n_topics} topics, 1,000 resamples)"
        report.figures[label] = "; ".join(f"{r.wall_s:.2f} s, peak RSS {r.peak_rss_mb:.0f} MB ({r.load})" for r in runs)
        report.check(
            f"{label} <= {TARGETS[size]:.0f} s",
            best.wall_s <= TARGETS[size],
            f"best {best.wall_s:.2f} s of {len(runs)} ({best.load})",
            kind="speed",
        )
        if size == 1_000_000:
            report.check(f"{label}: peak RSS <= {TARGET_RSS_MB} MB", max(r.peak_rss_mb for r in runs) <= TARGET_RSS_MB,
                         f"{max(r.peak_rss_mb for r in runs):.0f} MB", kind="speed")  # fmt: skip
        n_ref = (2 if smoke else 1000) if size == 10_000 else 1
        ref, timings = reference_once(path, n_ref, work / "reference.json")
        per_1000 = extrapolated_s(timings["timings"], 1000)
        how = (
            "measured"
            if n_ref == 1000
            else f"extrapolated from {n_ref} resample(s) per fit: {ref.wall_s:.1f} s measured"
        )
        how += ", one BLAS thread"
        report.figures[f"per-judgment computation, {n:,} judgments"] = (
            f"{per_1000:.1f} s for 1,000 resamples ({how}), peak RSS {ref.peak_rss_mb:.0f} MB ({ref.load}); "
            f"arena rank is {per_1000 / best.wall_s:.0f}x faster"
        )
    if not smoke:
        battles_figure(report, work)


def battles_figure(report: BenchReport, work: Path) -> None:
    """No target: the shape where every resample redraws a million topics (reported, not checked)."""
    path = work / "battles_1m.jsonl"
    n = write_battles(path, N_MODELS, 1_000_000)
    run = rank_once(path, work / "rank.json")
    report.figures[
        f"arena rank, {n:,} battles of {N_MODELS} models, each on its own topic (Chatbot "
        "Arena's shape, 1,000 resamples)"
    ] = f"{run.wall_s:.2f} s, peak RSS {run.peak_rss_mb:.0f} MB ({run.load})"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.arena", description=__doc__.splitlines()[0])
    p.add_argument(
        "--smoke", action="store_true", help="10,000 judgments only; the reference extrapolated from 2 resamples"
    )
    p.add_argument("--work", type=Path, default=None, help="keep the judgment files here (default: a temp dir)")
    args = p.parse_args(argv)
    report = BenchReport(mode="smoke" if args.smoke else "full", machine=Machine.here())
    started = time.perf_counter()
    if args.work:
        args.work.mkdir(parents=True, exist_ok=True)
        measure_arena(report, args.work, smoke=args.smoke)
    else:
        with tempfile.TemporaryDirectory(prefix="debench-arena-") as tmp:
            measure_arena(report, Path(tmp), smoke=args.smoke)
    report.duration_s = time.perf_counter() - started
    print("\n" + "\n".join([f"{k}: {v}" for k, v in report.figures.items()] + [format_check(c) for c in report.checks]))
    return 0 if all(c.held for c in report.checks if c.kind == "correctness") else 1


if __name__ == "__main__":
    sys.exit(main())
