"""``debench arena``: run a tournament through the shared runner, write transcripts, verdicts and
judgments, and say what failed.

The run's folder (``arena_<key>``) is keyed on what changes the debates: the models' identities
(provider, api base, generation settings — never their names alone, so two servers that both
serve ``openai/model`` do not share a folder), the judges', the topics and the protocol settings.
The same command resumes the same run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debench.arena.adaptive_run import AdaptiveOutcome, run_adaptive
from debench.arena.adaptive_schedule import SCHEDULE_FILE
from debench.arena.protocol import Topic
from debench.arena.tournament import Arena, ArenaSettings, DebateRecord, judgment_lines
from debench.core.atomic import write_atomic, write_json_record
from debench.core.errors import UserError
from debench.core.record_log import RecordLog
from debench.models.base import Model
from debench.models.cache import ResponseCache
from debench.models.calls import Caller
from debench.run.runner import error_summary, run_jobs


@dataclass
class ArenaOutput:
    out_dir: Path
    records: list[DebateRecord]
    judgments_path: Path
    n_judged: int
    """Verdicts that entered the judgments (all judges)."""
    n_parse_failures: int
    n_errors: int
    """Debates that ended in an error (retried on the next run)."""
    n_not_completed: int
    """Debates or verdicts whose prompt did not fit a context window."""
    n_requests: int
    errors: list[tuple[str, int]]
    adaptive: AdaptiveOutcome | None = None
    """An adaptive run's schedule: the debates chosen, in waves, and why it stopped."""


def arena_key(
    debaters: dict[str, Model], judges: dict[str, Model], topics: list[Topic], settings: ArenaSettings
) -> str:
    payload = json.dumps(
        {
            "debaters": {label: m.identity() for label, m in sorted(debaters.items())},
            "judges": {label: m.identity() for label, m in judges.items()},
            "topics": [t.__dict__ for t in topics],
            "rounds": settings.rounds,
            "reason": settings.ask_reason,
            "self_play": settings.self_play,
            "debater": settings.debater_generation.model_dump(),
            **({"schedule": "adaptive"} if settings.schedule == "adaptive" else {}),
        },
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


def check_arena(debaters: dict[str, Model], judges: dict[str, Model], settings: ArenaSettings) -> None:
    if len(debaters) < 2 and not settings.self_play:
        raise UserError("--models needs at least two models (or --self-play)", field="--models")
    if not judges:
        raise UserError("no judge", field="--judge")
    if settings.schedule == "adaptive":
        if settings.budget is None:
            raise UserError("--schedule adaptive needs --budget (the most debates to run)", field="--budget")
        if settings.self_play:
            raise UserError(
                "--self-play is not scheduled adaptively (self-play is never ranked): run "
                "it with --schedule round-robin",
                field="--self-play",
            )
    elif settings.budget is not None or settings.stop_when_separated:
        raise UserError(
            "--budget and --stop-when-separated go with --schedule adaptive (the round robin runs every debate)",
            field="--schedule",
        )
    for m in judges.values():
        aggregate = getattr(m, "aggregate", "majority")  # an ensemble's; a single model has none
        if m.composite and aggregate != "majority":
            raise UserError(
                f"an ensemble judge votes on the winner: use --ensemble majority (got {aggregate})", field="--ensemble"
            )


def adaptive_config(adaptive: AdaptiveOutcome, settings: ArenaSettings) -> dict[str, Any]:
    return {
        "kind": "adaptive",
        "budget": adaptive.budget,
        "stop_when_separated": settings.stop_when_separated,
        "seed": settings.seed,
        "debates_chosen": len(adaptive.decisions),
        "waves": adaptive.n_waves,
        "stopped": adaptive.stopped,
    }


async def run_arena(
    debaters: dict[str, Model],
    judges: dict[str, Model],
    topics: list[Topic],
    base_dir: Path,
    settings: ArenaSettings,
    *,
    config: dict[str, Any] | None = None,
) -> ArenaOutput:
    check_arena(debaters, judges, settings)
    out_dir = Path(base_dir) / f"arena_{arena_key(debaters, judges, topics, settings)}"
    caller = Caller(ResponseCache() if settings.use_cache else None)
    arena = Arena(debaters, judges, topics, settings, caller)
    log_: RecordLog[DebateRecord] = RecordLog(out_dir / "debates.jsonl", DebateRecord, "debate_id")
    try:
        adaptive, keys = await _play(arena, log_, out_dir, settings)
        log_.compact(keys)
    finally:
        log_.close()
        caller.close()
        await _close_models(debaters, judges)
    records = [log_.existing[k] for k in keys if k in log_.existing]
    lines = judgment_lines(records, arena, adaptive.waves if adaptive else None)
    judgments = out_dir / "judgments.jsonl"
    write_atomic(judgments, "".join(json.dumps(line) + "\n" for line in lines))
    write_json_record(out_dir / "arena_config.json", _run_config(arena, adaptive, config))
    verdicts = [v for r in records for v in r.verdicts]
    return ArenaOutput(
        out_dir=out_dir,
        records=records,
        judgments_path=judgments,
        n_judged=len(lines),
        n_parse_failures=sum(v.status == "parse_failure" for v in verdicts),
        n_errors=sum(r.status == "error" for r in records),
        n_not_completed=sum(r.status == "not_completed" for r in records)
        + sum(v.status == "not_completed" for v in verdicts),
        n_requests=caller.n_requests,
        errors=error_summary(records),
        adaptive=adaptive,
    )


async def _play(
    arena: Arena, log_: RecordLog[DebateRecord], out_dir: Path, settings: ArenaSettings
) -> tuple[AdaptiveOutcome | None, list[str]]:
    """Run the debates: every one of the round robin, or the adaptive schedule's waves; returns the
    adaptive run's outcome (None for the round robin) and the debates' keys in their order."""
    if settings.schedule == "adaptive":
        adaptive = await run_adaptive(arena, log_, out_dir / SCHEDULE_FILE)
        return adaptive, adaptive.keys
    jobs = arena.jobs()
    await run_jobs(
        jobs, log_, concurrency=settings.concurrency, progress=settings.progress, desc="arena", unit="debate"
    )
    return None, [j.key for j in jobs]


async def _close_models(debaters: dict[str, Model], judges: dict[str, Model]) -> None:
    """Close each model once (one model may debate and judge)."""
    for m in {id(m): m for m in [*debaters.values(), *judges.values()]}.values():
        await m.aclose()


def _run_config(arena: Arena, adaptive: AdaptiveOutcome | None, config: dict[str, Any] | None) -> dict[str, Any]:
    """``arena_config.json``: the models, topics and protocol, the adaptive schedule's settings and
    outcome, and what the command adds (``config``)."""
    settings = arena.settings
    return {
        "debaters": {label: m.describe() for label, m in arena.debaters.items()},
        "judges": {label: m.describe() for label, m in arena.judges.items()},
        "topics": [t.__dict__ for t in arena.topics],
        "rounds": settings.rounds,
        "ask_reason": settings.ask_reason,
        "self_play": settings.self_play,
        "debater_generation": settings.debater_generation.model_dump(),
        "judge_generation": arena.verdict_task.generation.model_dump(),
        **({"schedule": adaptive_config(adaptive, settings)} if adaptive else {}),
        **(config or {}),
    }
