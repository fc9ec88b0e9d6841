"""``debench arena``: run a tournament, save transcripts and judgments, rank the models."""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debench.arena.protocol import Topic
from debench.arena.tournament import Arena, ArenaSettings, DebateRecord, write_judgments
from debench.errors import UserError
from debench.models.base import Model


@dataclass
class ArenaOutput:
    out_dir: Path
    records: list[DebateRecord]
    judgments_path: Path
    n_judged: int
    n_parse_failures: int
    n_errors: int
    n_not_completed: int
    n_requests: int


def arena_dir(base: Path, model_names: list[str], judge: str, topics: list[Topic], settings: ArenaSettings) -> Path:
    """One folder per tournament configuration, so the same command resumes the same run."""
    payload = json.dumps(
        {
            "models": sorted(model_names),
            "judge": judge,
            "topics": [t.__dict__ for t in topics],
            "rounds": settings.rounds,
            "reason": settings.ask_reason,
            "self_play": settings.self_play,
            "debater": settings.debater_generation.model_dump(),
            "overrides": settings.debater_overrides,
            "judge_generation": settings.judge_generation.model_dump(),
        },
        sort_keys=True,
    )
    return base / f"arena_{hashlib.sha256(payload.encode()).hexdigest()[:12]}"


def run_arena(models: dict[str, Model], judge: Model, topics: list[Topic], base_dir: Path, settings: ArenaSettings) -> ArenaOutput:
    if len(models) < 2 and not settings.self_play:
        raise UserError("--models needs at least two models (or --self-play)")
    if settings.rounds < 2:
        raise UserError("--rounds must be at least 2 (side 1 opens, side 2 answers)")
    out_dir = arena_dir(base_dir, list(models), judge.name, topics, settings)
    arena = Arena(models, judge, topics, out_dir, settings)

    async def go() -> list[DebateRecord]:
        try:
            return await arena.run()
        finally:
            for m in {id(m): m for m in [*models.values(), judge]}.values():
                await m.aclose()

    records = asyncio.run(go())
    judgments = out_dir / "judgments.jsonl"
    n_judged = write_judgments(records, judgments)
    statuses = [r.status for r in records]
    config: dict[str, Any] = {
        "models": list(models),
        "judge": judge.name,
        "topics": [t.__dict__ for t in topics],
        "rounds": settings.rounds,
        "ask_reason": settings.ask_reason,
        "self_play": settings.self_play,
    }
    (out_dir / "arena_config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    return ArenaOutput(
        out_dir=out_dir,
        records=records,
        judgments_path=judgments,
        n_judged=n_judged,
        n_parse_failures=statuses.count("parse_failure"),
        n_errors=statuses.count("error"),
        n_not_completed=statuses.count("not_completed"),
        n_requests=arena.n_requests,
    )
