"""``debench arena --schedule adaptive``: waves of debates, each chosen from the judgments of the
waves before it.

With ``--concurrency K`` a wave is K debates (fewer at the end of the budget). It is chosen only
when every earlier wave has finished, from their judgments and ``--seed`` (``adaptive.choose``),
written to ``schedule.jsonl`` with the reason for each debate, and then run on the shared runner.
So the debates chosen never depend on which debate of a wave finished first, and a rerun of the
same command continues where the run stopped: chosen debates without a finished record are run
(a debate that ended in an error is retried) before anything new is chosen, the budget counts
every debate ever chosen, and a debate is never chosen twice.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from debench.arena.adaptive import Game, Slot, belief, choose, separated
from debench.arena.adaptive_schedule import ScheduleDecision, append_decisions, decision, read_decisions
from debench.arena.tournament import Arena, DebateJob, DebateRecord, debate_id
from debench.core.errors import UserError
from debench.core.record_log import RecordLog
from debench.run.runner import run_jobs


@dataclass
class AdaptiveOutcome:
    decisions: list[ScheduleDecision]
    budget: int
    stopped: str
    """Why no further debate was chosen."""

    @property
    def keys(self) -> list[str]:
        return [d.debate_id for d in self.decisions]

    @property
    def waves(self) -> dict[str, int]:
        return {d.debate_id: d.wave for d in self.decisions}

    @property
    def n_waves(self) -> int:
        return len({d.wave for d in self.decisions})


def games_of(records: list[DebateRecord]) -> tuple[list[Game], int]:
    """The decided debates as games (a debate's verdicts weigh 1 together) and the verdicts used."""
    games, n = [], 0
    for rec in records:
        if rec.status != "ok":
            continue
        ok = [v for v in rec.verdicts if v.status == "ok"]
        for v in ok:
            points = 0.5 if v.winner is None else (1.0 if v.winner == 1 else 0.0)
            games.append(Game(rec.side1, rec.side2, points, 1.0 / len(ok)))
        n += len(ok)
    return games, n


def _next_wave(
    arena: Arena, log_: RecordLog[DebateRecord], decisions: list[ScheduleDecision], budget: int
) -> tuple[list[ScheduleDecision], str]:
    """The next wave's decisions, or why there is none."""
    settings = arena.settings
    topic_index = {t.question: n for n, t in enumerate(arena.topics)}
    models = list(arena.debaters)
    games, n_used = games_of([log_.existing[d.debate_id] for d in decisions])
    b = belief(models, games)
    if settings.stop_when_separated and games and separated(b):
        return [], "every adjacent pair of the ranking is separated (--stop-when-separated)"
    wave = decisions[-1].wave + 1 if decisions else 0
    taken = [Slot(topic_index[d.topic], d.side1, d.side2) for d in decisions]
    choices = choose(
        models, len(arena.topics), games, taken, min(settings.concurrency, budget - len(decisions)), settings.seed, wave
    )
    if not choices:
        return [], "every debate of the round robin has been run"
    ranking = b.ranking()
    return [
        decision(
            c,
            wave,
            n,
            debate_id(c.slot.topic, c.slot.side1, c.slot.side2),
            arena.topics[c.slot.topic].question,
            ranking,
            n_used,
            budget,
            settings.seed,
        )
        for n, c in enumerate(choices)
    ], ""


async def run_adaptive(arena: Arena, log_: RecordLog[DebateRecord], schedule_path: Path) -> AdaptiveOutcome:
    settings = arena.settings
    budget = settings.budget
    if budget is None:
        raise UserError("--schedule adaptive needs --budget (the most debates to run)", field="--budget")
    decisions = read_decisions(schedule_path)
    if len(decisions) > budget:
        raise UserError(
            f"this run has already chosen {len(decisions)} debates: --budget must be at least that", field="--budget"
        )
    topic_index = {t.question: n for n, t in enumerate(arena.topics)}
    k = settings.concurrency
    bar = tqdm(
        total=budget,
        desc="arena (adaptive)",
        unit="debate",
        disable=not settings.progress,
        file=sys.stderr,
        dynamic_ncols=True,
    )
    bar.update(len(log_.finished() & {d.debate_id for d in decisions}))
    try:
        while True:
            pending = [d for d in decisions if d.debate_id not in log_.finished()]
            if pending:
                await run_jobs(
                    [DebateJob(arena, topic_index[d.topic], d.side1, d.side2) for d in pending],
                    log_,
                    concurrency=k,
                    progress=False,
                    unit="debate",
                )
                done = log_.finished()
                bar.update(sum(d.debate_id in done for d in pending))
                if any(d.debate_id not in done for d in pending):
                    return AdaptiveOutcome(
                        decisions,
                        budget,
                        "some chosen debates ended in errors; rerun the same command to "
                        "retry them before more are chosen",
                    )
            if len(decisions) >= budget:
                return AdaptiveOutcome(decisions, budget, f"the budget of {budget} debates is spent")
            with log_.locked():
                recorded = read_decisions(schedule_path)
                if len(recorded) != len(decisions):  # another process on this command chose the next wave: run it
                    decisions = recorded[:budget]
                    continue
                new, stopped = _next_wave(arena, log_, decisions, budget)
                if stopped:
                    return AdaptiveOutcome(decisions, budget, stopped)
                append_decisions(schedule_path, new)
            decisions = decisions + new
    finally:
        bar.close()
