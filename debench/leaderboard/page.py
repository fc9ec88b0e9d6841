"""The static leaderboard page: one self-contained HTML file (``debench.view.pages``: templates
``leaderboard.html.j2`` with its ``leaderboard_tables`` macros, the one stylesheet, and
``leaderboard.js``), rendered with autoescape, so every name, description or string taken from a
submission or a paper is escaped wherever it lands.

* numbers and metric names as the page writes them (plain text; the template escapes it);
* the charts of a task board, drawn by ``debench.core.charts`` (what to plot is decided here): a forest
  plot of each verified entry's primary (or another) metric with its 95% CI, one row per entry, the
  baselines as vertical reference lines (chance and heuristic levels) and the human–human reference
  as a band when the task has one (self-reported entries are not drawn: their numbers are in their
  own table, and a plot beside the ranked entries would rank them by eye); a distribution plot, the
  share of each predicted value per verified entry and baseline (100% stacked bars), with the human
  ratings or the gold labels on top;
* the page itself.

The leaderboard JSON is embedded in the page (``<script type="application/json"
id="leaderboard-data">``, with ``<``, ``>`` and ``&`` written as unicode escapes so no string can
close the script element).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup

from debench.core import numeric
from debench.core.charts import (
    Estimate,
    Forest,
    ForestRow,
    RefBand,
    RefLine,
    StackedBar,
    category_colours,
    forest,
    shorten,
    stacked_bars,
)
from debench.leaderboard.board import (
    Entry,
    HumanReference,
    Leaderboard,
    MetricColumn,
    OverviewRow,
    TaskBoard,
)
from debench.leaderboard.reported import ReportedRow
from debench.view.pages import asset, render

METRIC_LABELS: dict[str, tuple[str, str]] = {
    "kendall_tau_c": ("Kendall τ", "c"),
    "kappa_loo": ("κ leave-one-out", ""),
    "kappa_human": ("κ human–human", ""),
    "krippendorff_alpha": ("Krippendorff α", ""),
    "krippendorff_alpha_human": ("α humans only", ""),
    "source_pearson": ("Source-mean r", ""),
    "parse_failure_rate": ("Parse failures", ""),
    "completion_rate": ("Completed", ""),
    "accuracy": ("Accuracy", ""),
    "rmse": ("RMSE", ""),
    "macro_f1": ("Macro F1", ""),
    "verdict_delta": ("Verdict Δ", ""),
    "rank_delta": ("Rank Δ", ""),
    "mae": ("MAE", ""),
    "alt_test_winning_rate": ("Alt-test ω", ""),
    "advantage_probability": ("Advantage ρ", ""),
}
"""Metric name -> (label, subscript)."""

PLAIN_LABELS = {
    "kendall_tau_c": "Kendall τc",
    "kappa_loo": "Leave-one-out κ",
}
"""Labels in plain text where a subscript cannot be drawn (SVG titles)."""


def fmt(x: float | None) -> str:
    """A metric value on the page: 3 decimals (fewer for large magnitudes), a real minus sign, —
    when undefined (``numeric.fmt``)."""
    return numeric.fmt(x, "auto", typographic=True)


def metric_label(name: str) -> tuple[str, str]:
    return METRIC_LABELS.get(name, (name.replace("_", " "), ""))


def plain_label(name: str) -> str:
    """A metric's name in plain text (plot titles)."""
    if name in PLAIN_LABELS:
        return PLAIN_LABELS[name]
    text, sub = metric_label(name)
    return text + sub if name in METRIC_LABELS else name.replace("_", " ").capitalize()


def num_attr(x: float | int | None) -> str:
    """The exact value for a ``data-value`` attribute (what the sorting script and tests read)."""
    return "" if x is None else repr(float(x)) if isinstance(x, float) else str(x)


REFERENCE_LABELS = {"human_rating_distribution": "Human ratings", "gold_distribution": "Gold"}


def forest_plot(t: TaskBoard, metric: MetricColumn, title: str) -> Markup:
    ref = next((r for r in t.human_reference if r.metric == metric.name), None)
    rows = []
    for e in t.verified:
        m = e.metrics[metric.name]
        tip = f"{e.model}: {fmt(m.value)}" + (f" (tier {e.tier})" if e.tier else "")
        rows.append(
            ForestRow(
                e.model,
                [
                    Estimate(
                        m.value,
                        m.ci95,
                        text=fmt(m.value) if m.value is not None else "",
                        title=tip,
                        cls="pt base" if e.is_baseline else "pt",
                    )
                ],
            )
        )
    lines = [
        RefLine(
            v,
            shorten(e.model.removeprefix("baseline/"), 12),
            f"{e.model} ({e.baseline_level or 'heuristic'} level): {fmt(v)}",
            cls=f"baseline-line {e.baseline_level or 'heuristic'}",
        )
        for e in t.baselines
        if (v := e.metrics[metric.name].value) is not None
    ]
    band = (
        RefBand(ref.value.value, ref.value.ci95, f"humans {fmt(ref.value.value)}")
        if ref is not None and ref.value.value is not None
        else None
    )
    return Markup(
        forest(
            Forest(title, rows, lines=lines, band=band, empty="no verified entry yet: reference lines only")
        ).markup()
    )


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def _categories(t: TaskBoard, dists: list[dict[str, Any]]) -> list[str]:
    keys: list[str] = [str(c) for c in t.choices] if t.choices else []
    extra = sorted(
        {k for d in dists for k in d} - set(keys),
        key=lambda k: (not _is_number(k), float(k) if _is_number(k) else 0.0, k),
    )
    return keys + extra


def distribution_plot(t: TaskBoard) -> Markup | None:
    entries: list[Entry] = [
        e for e in [*t.verified, *t.baselines] if isinstance(e.reports.get("prediction_distribution"), dict)
    ]
    if not entries:
        return None
    ref_name = next(
        (n for n in REFERENCE_LABELS if any(isinstance(e.reports.get(n), dict) and e.reports[n] for e in entries)), None
    )
    bars: list[StackedBar] = []
    if ref_name is not None:
        ref_entry = max(
            entries,
            key=lambda e: sum(e.reports[ref_name].values()) if isinstance(e.reports.get(ref_name), dict) else -1,
        )
        bars.append(StackedBar(REFERENCE_LABELS[ref_name], ref_entry.reports[ref_name], is_reference=True))
    bars += [StackedBar(e.model, e.reports["prediction_distribution"]) for e in entries]
    cats = _categories(t, [dict(b.shares) for b in bars])
    colours = category_colours(cats, ordinal=bool(cats) and all(_is_number(c) for c in cats))
    title = {
        "human_rating_distribution": "Score distribution: judges vs the human ratings",
        "gold_distribution": "Predicted distribution vs the gold labels",
    }.get(ref_name or "", "Distribution of predictions")
    return Markup(stacked_bars(title, bars, cats, colours).markup())


def task_plots(t: TaskBoard) -> list[Markup]:
    primary = next(c for c in t.metrics if c.primary)
    plots = [forest_plot(t, primary, f"{plain_label(primary.name)} with 95% CI")]
    for ref in t.human_reference:
        col = next((c for c in t.metrics if c.name == ref.metric), None)
        if col is not None and col.name != primary.name:
            plots.append(forest_plot(t, col, f"{plain_label(col.name)} vs the human–human level"))
    dist = distribution_plot(t)
    if dist:
        plots.append(dist)
    return plots


@dataclass
class TaskSection:
    """One task's part of the page: its verified board (if any) and the papers' rows for it."""

    name: str
    board: TaskBoard | None
    reported: list[ReportedRow] = field(default_factory=list)
    reported_metrics: list[str] = field(default_factory=list)
    plots: list[Markup] = field(default_factory=list)
    """SVG charts (``task_plots``, drawn by ``debench.core.charts``)."""


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
        out.append(
            TaskSection(name=name, board=t, reported=rows, reported_metrics=metrics, plots=task_plots(t) if t else [])
        )
    return out


def settings_text(settings: dict[str, Any]) -> str:
    """A canonical judge's settings in one line (``temperature=0.7, seed=1``; the task's own when empty)."""
    if not settings:
        return "the task's own settings"
    return ", ".join(f"{k}={json.dumps(v) if isinstance(v, list) else v}" for k, v in settings.items())


def render_page(board: Leaderboard) -> str:
    return render(
        "leaderboard.html.j2",
        board=board,
        sections=sections(board),
        papers={p.id: p for p in board.reported.papers},
        js=asset("leaderboard.js"),
        data=_embedded_json(board),
        verified_count=sum(len(t.verified) for t in board.tasks),
        fmt=fmt,
        num_attr=num_attr,
        settings=settings_text,
        metric_label=metric_label,
        human_refs=_human_refs,
        overview_tasks=_overview_tasks,
    )
