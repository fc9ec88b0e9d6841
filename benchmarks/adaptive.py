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

After every ``K`` debates (and at half the round robin) each schedule's judgments are ranked as
``arena rank`` ranks them (``one_judge.ranking_of``: Bradley–Terry first in an unbalanced design)
and compared to the target by Kendall's τ. Each schedule *reaches* τ ≥ 0.9 at its own point: the
number of debates, in its own order, from which its τ stays at or above 0.9. Every world is run
with three world seeds (the verdicts; the strengths too where they are drawn) and three schedule
seeds (the random order's and the adaptive schedule's); the table gives medians and ranges over
those nine runs. For the adaptive schedule it also says in how many world seeds the median of its
three seeds has τ ≥ 0.9 at half the round robin's debates, and where ``--stop-when-separated``
would have stopped (every adjacent pair of its ranking separated) and the τ there.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from benchmarks.report import BenchReport, Machine
from debench.arena.adaptive import Game, Slot, belief, choose, separated
from debench.arena.bt_bootstrap import kendall_tau_distance
from debench.arena.judgment_table import table_of
from debench.arena.judgments import Judgment
from debench.arena.one_judge import ranking_of
from debench.arena.tournament import schedule
from debench.testing.arena_world import ArenaWorld

WAVE = 8
"""Debates per wave of the adaptive schedule (--concurrency) and between two measurements."""
LEVEL = 0.9
WORLD_SEEDS = (0, 1, 2)
SCHEDULE_SEEDS = (0, 1, 2)


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


def leaders_and_tail(gap: float, step: float) -> Callable[[int, int], list[float]]:
    """Two leaders ``gap`` apart, then a long tail ``step`` apart, 1 logit below the second."""
    return lambda k, _seed: [2.0, 2.0 - gap, *[1.0 - gap - step * n for n in range(k - 2)]]


SETTINGS = [
    Setting("8 models 0.6 logits apart, 10 topics", 8, 10, evenly(0.6)),
    Setting("8 models, strengths N(0, 1), 10 topics", 8, 10, normal(1.0)),
    Setting("10 models, strengths N(0, 1), 10 topics", 10, 10, normal(1.0)),
    Setting("10 models: 2 leaders 0.05 apart, a tail 0.2 apart", 10, 10, leaders_and_tail(0.05, 0.2)),
    Setting("12 models 0.3 logits apart, 10 topics", 12, 10, evenly(0.3)),
]


def _topic(t: int) -> str:
    return f"topic {t:03d}"


def _rank(world: ArenaWorld, slots: list[Slot]) -> list[str]:
    judgments = [
        Judgment(
            topic=_topic(s.topic), side1=s.side1, side2=s.side2, winner=world.winner(_topic(s.topic), s.side1, s.side2)
        )
        for s in slots
    ]
    table = table_of(judgments)
    return ranking_of(table, "strict", len(table.topics))


def _tau(ranking: list[str], target: list[str]) -> float:
    d, _ = kendall_tau_distance(ranking, target)
    return 1.0 if d is None else 1 - 2 * d


@dataclass(frozen=True)
class AdaptiveRun:
    order: list[Slot]
    separated_at: int | None
    """Debates chosen when every adjacent pair of the ranking was first separated (None: never)."""


def adaptive_order(world: ArenaWorld, models: list[str], n_topics: int, seed: int = 0) -> AdaptiveRun:
    """Every debate, in the order the adaptive schedule chooses them, and where
    ``--stop-when-separated`` would have stopped."""
    slots: list[Slot] = []
    games: list[Game] = []
    separated_at = None
    for wave in itertools.count():
        if separated_at is None and games and separated(belief(models, games)):
            separated_at = len(slots)
        chosen = choose(models, n_topics, games, slots, WAVE, seed, wave)
        if not chosen:
            return AdaptiveRun(slots, separated_at)
        for c in chosen:
            s = c.slot
            slots.append(s)
            won = world.winner(_topic(s.topic), s.side1, s.side2) == 1
            games.append(Game(s.side1, s.side2, 1.0 if won else 0.0))
    raise AssertionError("unreachable")


def curve(world: ArenaWorld, order: list[Slot], target: list[str], also: int) -> list[tuple[int, float]]:
    """(debates, tau) after every WAVE debates, at ``also`` and at the end."""
    points = sorted({*range(WAVE, len(order), WAVE), also, len(order)})
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


@dataclass
class Runs:
    """One schedule's figures in one world: a value per run (world seed, schedule seed)."""

    reached: list[int] = field(default_factory=list)
    at_half: list[float] = field(default_factory=list)
    stopped_at: list[int] = field(default_factory=list)
    """Adaptive only: debates when --stop-when-separated would have stopped (runs that separated)."""
    tau_stopped: list[float] = field(default_factory=list)
    seeds_held: int = 0
    """Adaptive only: world seeds whose median over the schedule seeds has tau >= LEVEL at half."""


@dataclass
class WorldResult:
    n_debates: int
    runs: dict[str, Runs]
    n_world_seeds: int


def _orders(
    world: ArenaWorld, models: list[str], rr: list[Slot], ws: int, seed: int
) -> dict[str, tuple[list[Slot], int | None]]:
    adaptive = adaptive_order(world, models, len({s.topic for s in rr}), seed)
    shuffled = [rr[n] for n in np.random.default_rng([ws, seed]).permutation(len(rr))]
    return {"round robin": (rr, None), "random": (shuffled, None), "adaptive": (adaptive.order, adaptive.separated_at)}


def measure(setting: Setting, world_seeds: Sequence[int], schedule_seeds: Sequence[int]) -> WorldResult:
    """Each schedule's own reaching point and tau at half the round robin, per run."""
    runs = {name: Runs() for name in ("round robin", "random", "adaptive")}
    models = [f"m{n:02d}" for n in range(setting.n_models)]
    topics: list[Any] = [None] * setting.n_topics  # only their number is read
    rr = [Slot(t, a, b) for t, a, b in schedule(models, topics, self_play=False)]
    half = len(rr) // 2
    for ws in world_seeds:
        world = ArenaWorld(dict(zip(models, setting.strengths(setting.n_models, ws), strict=True)), seed=ws)
        target = _rank(world, rr)
        adaptive_at_half = []
        for seed in schedule_seeds:
            for name, (order, separated_at) in _orders(world, models, rr, ws, seed).items():
                if name == "round robin" and seed != schedule_seeds[0]:
                    continue  # its order has no seed: one run per world seed
                points = curve(world, order, target, half)
                runs[name].reached.append(reached(points, LEVEL))
                runs[name].at_half.append(tau_at(points, half))
                if separated_at is not None:
                    runs[name].stopped_at.append(separated_at)
                    runs[name].tau_stopped.append(_tau(_rank(world, order[:separated_at]), target))
            adaptive_at_half.append(runs["adaptive"].at_half[-1])
        runs["adaptive"].seeds_held += statistics.median(adaptive_at_half) >= LEVEL
    return WorldResult(len(rr), runs, len(world_seeds))


def _spread(values: Sequence[float], fmt: str) -> str:
    if not values:
        return "-"
    return f"{statistics.median(values):{fmt}} [{min(values):{fmt}}-{max(values):{fmt}}]"


def table(results: dict[str, WorldResult], n_schedule_seeds: int) -> str:
    head = f"{'world':<50}{'schedule':<13}{'reaches tau>=0.9':>25}{'tau at half':>22}"
    lines = [head, "-" * len(head)]
    for label, res in results.items():
        for name, r in res.runs.items():
            share = statistics.median(r.reached) / res.n_debates
            lines.append(
                f"{label:<50}{name:<13}{_spread(r.reached, '.0f'):>17} {share:>4.0%} /{res.n_debates:<5}"
                f"{_spread(r.at_half, '.3f'):>20}"
            )
        a = res.runs["adaptive"]
        lines.append(
            f"{'':<50}{'':<13}adaptive: median of {n_schedule_seeds} seeds tau >= {LEVEL:g} at half in "
            f"{a.seeds_held} of {res.n_world_seeds} worlds; "
            f"--stop-when-separated: stops at {_spread(a.stopped_at, '.0f')} debates "
            f"({len(a.stopped_at)} of {len(a.reached)} runs), tau there {_spread(a.tau_stopped, '.3f')}"
        )
    lines.append(
        f"(medians [min-max] over world seeds x schedule seeds; waves of {WAVE}; a schedule reaches "
        f"tau >= {LEVEL:g} at the debates, in its own order, from which tau stays at or above it; "
        "the share is of the round robin's debates)"
    )
    return "\n".join(lines)


def measure_adaptive(report: BenchReport, *, smoke: bool) -> str:
    settings = SETTINGS[:1] if smoke else SETTINGS
    world_seeds = WORLD_SEEDS[:1] if smoke else WORLD_SEEDS
    started = time.perf_counter()
    results = {s.label: measure(s, world_seeds, SCHEDULE_SEEDS) for s in settings}
    text = table(results, len(SCHEDULE_SEEDS))
    print(text, flush=True)
    for label, res in results.items():
        for name, r in res.runs.items():
            report.figures[f"schedules, {label}: {name}"] = (
                f"tau >= {LEVEL:g} from {_spread(r.reached, '.0f')} of {res.n_debates} debates; "
                f"tau at half {_spread(r.at_half, '.3f')}"
            )
    first = results[settings[0].label].runs["adaptive"]
    report.check(
        f"adaptive schedule, {settings[0].label}: tau >= {LEVEL:g} to the round robin's ranking with half its debates, "
        f"median of {len(SCHEDULE_SEEDS)} seeds, in every world seed",
        first.seeds_held == len(world_seeds),
        f"{first.seeds_held} of {len(world_seeds)} world seeds; tau at half {_spread(first.at_half, '.3f')} "
        f"({time.perf_counter() - started:.0f} s)",
    )
    return text


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.adaptive", description=__doc__.splitlines()[0])
    p.add_argument("--smoke", action="store_true", help="one world, one world seed (three schedule seeds)")
    args = p.parse_args(argv)
    report = BenchReport(mode="smoke" if args.smoke else "full", machine=Machine.here())
    measure_adaptive(report, smoke=args.smoke)
    return 0 if report.all_held else 1


if __name__ == "__main__":
    sys.exit(main())
