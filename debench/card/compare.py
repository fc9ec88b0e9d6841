"""``debench card --compare A B``: two cards side by side, as a Markdown table.

One line for the overall status, then, per criterion, the section's status and one line per task
(and probe) with each card's status and reason; a row only one card has shows ``—`` for the other.
"""

from __future__ import annotations

from typing import Any

from debench.card.model import BiasRow, Criterion, JudgeCard
from debench.card.page import BADGE, markdown_table
from debench.card.tables import Table, scope


def _key(row: Any) -> str:
    return f"{row.task} · {row.probe}" if isinstance(row, BiasRow) else row.task


def _rows(c: Criterion[Any]) -> dict[str, str]:
    return {_key(r): f"{BADGE[r.status]}: {r.reason}" for r in c.rows}


def _sections(card: JudgeCard) -> dict[str, Criterion[Any]]:
    c = card.criteria
    return {s.name: s for s in (c.agreement, c.replaceability, c.consistency, c.bias, c.memorization, c.cost)}


def comparison(a: JudgeCard, b: JudgeCard) -> Table:
    table = Table(["criterion", "task", a.model.name, b.model.name])
    table.rows.append(
        [
            "overall",
            "",
            f"{BADGE[a.overall.status]}: {a.overall.reason}",
            f"{BADGE[b.overall.status]}: {b.overall.reason}",
        ]
    )
    sa, sb = _sections(a), _sections(b)
    for name in sa:
        table.rows.append([name, "(all)", BADGE[sa[name].status], BADGE[sb[name].status]])
        ra, rb = _rows(sa[name]), _rows(sb[name])
        for key in dict.fromkeys([*ra, *rb]):
            table.rows.append(["", key, ra.get(key, "—"), rb.get(key, "—")])
    return table


def compare_markdown(a: JudgeCard, b: JudgeCard) -> str:
    head = [
        f"# Judge cards: {a.model.name} | {b.model.name}",
        "",
        f"* {a.model.name}: {scope(a)}",
        f"* {b.model.name}: {scope(b)}",
        "",
    ]
    return "\n".join([*head, *markdown_table(comparison(a, b)), ""])
