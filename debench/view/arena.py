"""What the arena report shows, from a run's folder (``debates.jsonl``): every debate with each
judge's verdict side by side, the transcript, and per-judge counts; debates whose judges disagree
are marked *split*."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from debench.arena.tournament import DebateRecord, JudgeVerdict
from debench.core.errors import UserError
from debench.core.record_log import read_log
from debench.core.user_files import RUN_CONFIG, load_json


def _winner(v: JudgeVerdict) -> str:
    if v.status != "ok":
        return "—"
    return "tie" if v.winner is None else f"side {v.winner}"


def _score(x: float | None) -> str:
    return "—" if x is None else f"{x:g}"


def read_debates(folder: Path) -> list[DebateRecord]:
    path = folder / "debates.jsonl"
    if not path.is_file():
        raise UserError("not an arena run folder (no debates.jsonl)", path=str(folder))
    latest = {rec.debate_id: rec for _, _, rec in read_log(path, DebateRecord, bad_line="raise")}
    return list(latest.values())


def kind(rec: DebateRecord) -> str:
    if rec.status == "error":
        return "error"
    decided = {_winner(v) for v in rec.verdicts if v.status == "ok"}
    if not decided:
        return "parse_failure"
    return "split" if len(decided) > 1 else "agreed"


def _judge_labels(records: list[DebateRecord]) -> list[str]:
    """Every judge's label, in the order of their first verdict."""
    labels: list[str] = []
    for r in records:
        for v in r.verdicts:
            if v.judge not in labels:
                labels.append(v.judge)
    return labels


def _judge_counts(label: str, records: list[DebateRecord]) -> dict[str, Any]:
    """One judge's verdicts: decided for each side, ties, unread, failed."""
    vs = [v for r in records for v in r.verdicts if v.judge == label]
    ok = [v for v in vs if v.status == "ok"]
    return {
        "label": label,
        "n": len(ok),
        "side1": sum(v.winner == 1 for v in ok),
        "side2": sum(v.winner == 2 for v in ok),
        "ties": sum(v.winner is None for v in ok),
        "parse_failures": sum(v.status == "parse_failure" for v in vs),
        "failed": sum(v.status in ("error", "not_completed") for v in vs),
    }


def _verdict_view(v: JudgeVerdict) -> dict[str, Any]:
    return {
        "judge": v.judge,
        "winner": _winner(v),
        "side1": _score(v.side1_score),
        "side2": _score(v.side2_score),
        "reason": v.reason or "",
        "status": v.status,
        "note": v.parse_error or v.error or "",
        "raw": v.raw,
    }


def _debate_view(r: DebateRecord) -> dict[str, Any]:
    return {
        "debate_id": r.debate_id,
        "topic": r.topic,
        "side1": r.side1,
        "side2": r.side2,
        "kind": kind(r),
        "error": r.error,
        "turns": [{"side": t.side, "model": t.model, "text": t.text} for t in r.turns],
        "verdicts": [_verdict_view(v) for v in r.verdicts],
    }


def _rounds(folder: Path) -> Any:
    """The speeches per debate the run's ``arena_config.json`` says ("?" without one)."""
    config = folder / "arena_config.json"
    data = load_json(config, RUN_CONFIG) if config.exists() else None
    return data.get("rounds", "?") if isinstance(data, dict) else "?"


def build_arena_view(folder: Path) -> dict[str, Any]:
    records = read_debates(folder)
    debates = [_debate_view(r) for r in sorted(records, key=lambda r: r.debate_id)]
    counts = {k: sum(d["kind"] == k for d in debates) for k in ("split", "agreed", "parse_failure", "error")}
    return {
        "title": f"Debate arena: {len({r.side1 for r in records} | {r.side2 for r in records})} models",
        "folder": folder.name,
        "rounds": _rounds(folder),
        "judges": [_judge_counts(label, records) for label in _judge_labels(records)],
        "debates": debates,
        "counts": counts,
    }
