"""``card.md`` and ``card.html``: a card as a person reads it in a minute, written beside ``card.json``.

Both show the same sections (``card.tables``): the overall line first, then each criterion with its
status, what it asks, why, what to do, its table and its thresholds with their sources. The HTML
page is rendered by the one environment and stylesheet of ``view.pages``. Everything shown passes
through ``core.redact.Redactor`` first, as ``card.json`` does (``core.atomic.write_json_record``).
"""

from __future__ import annotations

from pathlib import Path

from debench.card.model import JudgeCard
from debench.card.tables import Section, Table, scope, sections
from debench.core.atomic import write_atomic, write_json_record
from debench.core.redact import Redactor
from debench.view.pages import render

BADGE = {"pass": "PASS", "warn": "WARN", "fail": "FAIL", "not_measured": "NOT MEASURED", "info": "INFO"}


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def markdown_table(table: Table) -> list[str]:
    lines = ["| " + " | ".join(table.headers) + " |", "|" + " --- |" * len(table.headers)]
    return lines + ["| " + " | ".join(_cell(c) for c in row) + " |" for row in table.rows]


def _markdown_section(s: Section) -> list[str]:
    lines = [f"## {s.name.capitalize()}: {BADGE[s.status]}", "", s.question, "", f"**Why.** {s.reason}", ""]
    if s.advice:
        lines += [f"**What to do.** {s.advice}", ""]
    lines += [*markdown_table(s.table), ""]
    lines += [f"* Threshold: {rule} (source: {source})" for rule, source in s.thresholds]
    return [*lines, ""]


def markdown(card: JudgeCard) -> str:
    o = card.overall
    lines = [
        f"# Judge card: {card.model.name}",
        "",
        f"**Overall: {BADGE[o.status]}** — {o.reason}",
        "",
    ]
    if o.advice:
        lines += [f"**What to do.** {o.advice}", ""]
    lines += [f"Covers {scope(card)}. Written {card.created_at} by debench {card.versions.get('debench')}.", ""]
    for s in sections(card):
        lines += _markdown_section(s)
    return "\n".join(lines)


def html(card: JudgeCard) -> str:
    return render("card.html.j2", card=card, scope=scope(card), sections=sections(card), badge=BADGE)


def write_card(card: JudgeCard, folder: Path) -> list[Path]:
    """``card.json``, ``card.md`` and ``card.html`` in ``folder``; every secret masked."""
    shown = JudgeCard.model_validate(Redactor().value(card.model_dump(mode="json")))
    return [
        write_json_record(Path(folder) / "card.json", card),
        write_atomic(Path(folder) / "card.md", markdown(shown)),
        write_atomic(Path(folder) / "card.html", html(shown)),
    ]
