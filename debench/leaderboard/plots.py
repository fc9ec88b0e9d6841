"""The page's charts of a task board, drawn by ``debench.charts``: what to plot is decided here.

* forest plot: each verified entry's primary (or another) metric with its 95% CI, one row per
  entry; the baselines as vertical reference lines (chance and heuristic levels), the human–human
  reference as a band when the task has one. Self-reported entries are not drawn (their numbers are
  in their own table): a plot beside the ranked entries would rank them by eye;
* distribution plot: the share of each predicted value per verified entry and baseline (100%
  stacked bars), with the human ratings or the gold labels on top.
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from debench.charts import Estimate, Forest, ForestRow, RefBand, RefLine, StackedBar, category_colours, forest, shorten, stacked_bars
from debench.leaderboard.board import Entry, MetricColumn, TaskBoard
from debench.leaderboard.display import fmt, plain_label

REFERENCE_LABELS = {"human_rating_distribution": "Human ratings", "gold_distribution": "Gold"}


def forest_plot(t: TaskBoard, metric: MetricColumn, title: str) -> Markup:
    ref = next((r for r in t.human_reference if r.metric == metric.name), None)
    rows = []
    for e in t.verified:
        m = e.metrics[metric.name]
        tip = f"{e.model}: {fmt(m.value)}" + (f" (tier {e.tier})" if e.tier else "")
        rows.append(ForestRow(e.model, [Estimate(m.value, m.ci95, text=fmt(m.value) if m.value is not None else "", title=tip, cls="pt base" if e.is_baseline else "pt")]))
    lines = [
        RefLine(v, shorten(e.model.removeprefix("baseline/"), 12), f"{e.model} ({e.baseline_level or 'heuristic'} level): {fmt(v)}", cls=f"baseline-line {e.baseline_level or 'heuristic'}")
        for e in t.baselines
        if (v := e.metrics[metric.name].value) is not None
    ]
    band = RefBand(ref.value.value, ref.value.ci95, f"humans {fmt(ref.value.value)}") if ref is not None and ref.value.value is not None else None
    return Markup(forest(Forest(title, rows, lines=lines, band=band, empty="no verified entry yet: reference lines only")).markup())


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def _categories(t: TaskBoard, dists: list[dict[str, Any]]) -> list[str]:
    keys: list[str] = [str(c) for c in t.choices] if t.choices else []
    extra = sorted({k for d in dists for k in d} - set(keys), key=lambda k: (not _is_number(k), float(k) if _is_number(k) else 0.0, k))
    return keys + extra


def distribution_plot(t: TaskBoard) -> Markup | None:
    entries: list[Entry] = [e for e in [*t.verified, *t.baselines] if isinstance(e.reports.get("prediction_distribution"), dict)]
    if not entries:
        return None
    ref_name = next((n for n in REFERENCE_LABELS if any(isinstance(e.reports.get(n), dict) and e.reports[n] for e in entries)), None)
    bars: list[StackedBar] = []
    if ref_name is not None:
        ref_entry = max(entries, key=lambda e: sum(e.reports[ref_name].values()) if isinstance(e.reports.get(ref_name), dict) else -1)
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
