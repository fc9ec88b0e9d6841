"""``python -m benchmarks.adaptive [--smoke]``: debates each schedule needs to reach the round robin's ranking.

A simulation (no server, no model): debaters of known strengths and a judge that decides by them
(``debench.testing.arena_world.ArenaWorld``: the same outcomes as the world the tests serve on
127.0.0.1), every debate's outcome fixed in advance, so the schedules are compared on the same
debates. The target is ``arena rank``'s ranking of the full round robin (every pair on every topic,
home and away). Three schedules add debates until they have run them all:

* ``round robin`` in the order ``debench arena`` runs it (topic by topic);
* ``random``: the round robin's debates in a seeded random order;
* ``adaptive``: ``debench arena --schedule adaptive`` (``debench.arena.adaptive.choose``), waves of
  ``K`` debates.

After every ``K`` debates each schedule's judgments are ranked as ``arena rank`` ranks them
(``one_judge.ranking_of``: Bradley–Terry first in an unbalanced design) and compared to the target
by Kendall's τ. A schedule *reaches* a level at the number of debates from which its τ stays at
or above it. Figures are medians over world seeds (the outcomes) with the same schedule seed.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from benchmarks.report import BenchReport, Machine
from debench.arena.adaptive import Game, Slot, choose
from debench.arena.bt_bootstrap import kendall_tau_distance
from debench.arena.judgment_table import table_of
from debench.arena.judgments import Judgment
from debench.arena.one_judge import ranking_of
from debench.arena.tournament import schedule
from debench.testing.arena_world import ArenaWorld

WAVE = 8
"""Debates per wave of the adaptive schedule (--concurrency) and between two measurements."""
LEVELS = (0.9, 1.0)


@dataclass(frozen=True)
class Setting:
    label: str
    n_models: int
    n_topics: int
    strengths: Callable[[int, int], list[float]]
    """(number of models, world seed) -> strengths."""


def evenly(gap: float) -> Callable[[int, int], list[float]]:
    return lambda k, _seed: [(k - 1 - n) * gap for n in range(k)]


def normal(sd: float) -> Callable[[int, int], list[float]]:
    return lambda k, seed: list(np.random.default_rng(1000 + seed).normal(0, sd, k))


SETTINGS = [
    Setting("8 models 0.6 logits apart, 10 topics", 8, 10, evenly(0.6)),
    Setting("8 models, strengths N(0, 1), 10 topics", 8, 10, normal(1.0)),
    Setting("12 models 0.3 logits apart, 10 topics", 12, 10, evenly(0.3)),
]


def _rank(world: ArenaWorld, slots: list[Slot]) -> list[str]:
    judgments = [
        Judgment(
            topic=f"topic {s.topic:03d}",
            side1=s.side1,
            side2=s.side2,
            winner=world.winner(f"topic {s.topic:03d}", s.side1, s.side2),
        )
        for s in slots
    ]
    table = table_of(judgments)
    return ranking_of(table, "strict", len(table.topics))


def _tau(ranking: list[str], target: list[str]) -> float:
    d, _ = kendall_tau_distance(ranking, target)
    return 1.0 if d is None else 1 - 2 * d


def adaptive_order(world: ArenaWorld, models: list[str], n_topics: int, seed: int = 0) -> list[Slot]:
    slots: list[Slot] = []
    games: list[Game] = []
    for wave in itertools.count():
        chosen = choose(models, n_topics, games, slots, WAVE, seed, wave)
        if not chosen:
            return slots
        for c in chosen:
            s = c.slot
            slots.append(s)
            games.append(
                Game(s.side1, s.side2, 1.0 if world.winner(f"topic {s.topic:03d}", s.side1, s.side2) == 1 else 0.0)
            )
    raise AssertionError("unreachable")


def curve(world: ArenaWorld, order: list[Slot], target: list[str]) -> list[tuple[int, float]]:
    """(debates, tau) after every WAVE debates (and at the end)."""
    points = [*range(WAVE, len(order), WAVE), len(order)]
    return [(n, _tau(_rank(world, order[:n]), target)) for n in points]


def reached(points: list[tuple[int, float]], level: float) -> int:
    """Debates from which tau stays >= level."""
    n_needed = points[-1][0]
    for n, tau in reversed(points):
        if tau < level - 1e-12:
            break
        n_needed = n
    return n_needed


def tau_at(points: list[tuple[int, float]], n: int) -> float:
    return max((p for p in points if p[0] <= n), key=lambda p: p[0])[1]


def measure(setting: Setting, world_seeds: list[int]) -> dict[str, dict[str, float]]:
    """Per schedule: medians over world seeds of debates to each level, and tau at half the round robin."""
    out: dict[str, dict[str, list[float]]] = {}
    for ws in world_seeds:
        models = [f"m{n:02d}" for n in range(setting.n_models)]
        world = ArenaWorld(dict(zip(models, setting.strengths(setting.n_models, ws), strict=True)), seed=ws)
        rr = [Slot(t, a, b) for t, a, b in schedule(models, [None] * setting.n_topics, self_play=False)]  # type: ignore[list-item]  # only the number of topics is read
        target = _rank(world, rr)
        shuffled = [rr[n] for n in np.random.default_rng(ws).permutation(len(rr))]
        for name, order in (
            ("round robin", rr),
            ("random", shuffled),
            ("adaptive", adaptive_order(world, models, setting.n_topics)),
        ):
            points = curve(world, order, target)
            row = out.setdefault(name, {})
            for level in LEVELS:
                row.setdefault(f"tau>={level:g}", []).append(reached(points, level))
            row.setdefault("tau at half", []).append(tau_at(points, len(rr) // 2))
            row.setdefault("n", []).append(len(rr))
    return {name: {k: statistics.median(v) for k, v in row.items()} for name, row in out.items()}


def table(results: dict[str, dict[str, dict[str, float]]], n_seeds: int) -> str:
    head = f"{'world':<42}{'schedule':<13}{'debates to tau>=0.9':>21}{'to tau=1':>10}{'tau at half':>13}"
    lines = [head, "-" * len(head)]
    for label, rows in results.items():
        for name, r in rows.items():
            lines.append(
                f"{label:<42}{name:<13}{r['tau>=0.9']:>14.0f} / "
                f"{r['n']:<4.0f}{r['tau>=1']:>10.0f}{r['tau at half']:>13.3f}"
            )
    lines.append(
        f"(medians over {n_seeds} world seeds; waves of {WAVE}; a level is reached at the debates from "
        "which tau stays at or above it)"
    )
    return "\n".join(lines)


def measure_adaptive(report: BenchReport, *, smoke: bool) -> str:
    settings = SETTINGS[:1] if smoke else SETTINGS
    seeds = [0] if smoke else [0, 1, 2]
    started = time.perf_counter()
    results = {s.label: measure(s, seeds) for s in settings}
    text = table(results, len(seeds))
    print(text, flush=True)
    for label, rows in results.items():
        for name, r in rows.items():
            report.figures[f"schedules, {label}: {name}"] = (
                f"tau >= 0.9 from {r['tau>=0.9']:.0f} of {r['n']:.0f} debates, tau = 1 from {r['tau>=1']:.0f}; tau "
                f"at half {r['tau at half']:.3f}"
            )
    first = results[settings[0].label]
    report.check(
        f"adaptive schedule, {settings[0].label}: tau >= 0.9 to the round robin's ranking with half its debates",
        first["adaptive"]["tau at half"] >= 0.9,
        f"tau {first['adaptive']['tau at half']:.3f} at {first['adaptive']['n'] / 2:.0f} debates (median of "
        f"{len(seeds)} worlds; {time.perf_counter() - started:.0f} s)",
    )
    return text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.adaptive", description=__doc__.splitlines()[0])
    p.add_argument("--smoke", action="store_true", help="one world, one seed")
    args = p.parse_args(argv)
    report = BenchReport(mode="smoke" if args.smoke else "full", machine=Machine.here())
    measure_adaptive(report, smoke=args.smoke)
    return 0 if report.all_held else 1


if __name__ == "__main__":
    sys.exit(main())
