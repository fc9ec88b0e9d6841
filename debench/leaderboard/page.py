"""The static leaderboard page: one self-contained HTML file (``debench.pages``: templates
``leaderboard.html.j2`` with its ``leaderboard_tables`` macros, the one stylesheet, and
``leaderboard.js``), rendered with autoescape, so every name, description or string taken from a
submission or a paper is escaped wherever it lands. Charts are inline SVG (``leaderboard.plots``).
The leaderboard JSON is embedded in the page (``<script type="application/json"
id="leaderboard-data">``, with ``<``, ``>`` and ``&`` written as unicode escapes so no string can
close the script element).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from markupsafe import Markup

from debench.leaderboard.board import (
    HumanReference,
    Leaderboard,
    OverviewRow,
    TaskBoard,
)
from debench.leaderboard.display import fmt, metric_label, num_attr
from debench.leaderboard.plots import task_plots
from debench.leaderboard.reported import ReportedRow
from debench.pages import asset, render


@dataclass
class TaskSection:
    """One task's part of the page: its verified board (if any) and the papers' rows for it."""

    name: str
    board: TaskBoard | None
    reported: list[ReportedRow] = field(default_factory=list)
    reported_metrics: list[str] = field(default_factory=list)
    plots: list[Markup] = field(default_factory=list)
    """SVG charts (``leaderboard.plots``, drawn by ``debench.charts``)."""


def _human_refs(t: TaskBoard) -> dict[str, HumanReference]:
    return {r.metric: r for r in t.human_reference}


def _overview_tasks(board: Leaderboard, rows: list[OverviewRow]) -> list[TaskBoard]:
    """The tasks an overview table has a column for: those where one of its judges has an entry."""
    return [t for t in board.tasks if any(t.name in r.cells for r in rows)]


def _embedded_json(board: Leaderboard) -> Markup:
    data = json.dumps(board.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))
    return Markup(data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026"))


def sections(board: Leaderboard) -> list[TaskSection]:
    """Every task with a verified board or a reported row, in name order."""
    boards = {t.name: t for t in board.tasks}
    out = []
    for name in sorted(set(boards) | {r.task for r in board.reported.rows}):
        t = boards.get(name)
        rows = [r for r in board.reported.rows if r.task == name]
        order = [c.name for c in t.metrics] if t else []
        names = {m for r in rows for m in r.metrics}
        metrics = [m for m in order if m in names] + sorted(names - set(order))
        out.append(TaskSection(name=name, board=t, reported=rows, reported_metrics=metrics, plots=task_plots(t) if t else []))
    return out


def render_page(board: Leaderboard) -> str:
    return render(
        "leaderboard.html.j2",
        board=board,
        sections=sections(board),
        papers={p.id: p for p in board.reported.papers},
        js=asset("leaderboard.js"),
        data=_embedded_json(board),
        verified_count=sum(len(t.verified) for t in board.tasks),
        fmt=fmt, num_attr=num_attr, metric_label=metric_label, human_refs=_human_refs, overview_tasks=_overview_tasks,
    )
