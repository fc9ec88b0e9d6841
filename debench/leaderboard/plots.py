"""Geometry of the page's SVG plots, computed from a task board (the template draws them).

* forest plot: each verified entry's primary (or another) metric with its 95% CI, one row per
  entry; the baselines as vertical reference lines (chance and heuristic levels), the human–human
  reference as a band when the task has one. Self-reported entries are not drawn (their numbers are
  in their own table): a plot beside the ranked entries would rank them by eye;
* distribution plot: the share of each predicted value per verified entry and baseline (100%
  stacked bars), with the human ratings or the gold labels on top.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from debench.leaderboard.board import Entry, MetricColumn, TaskBoard
from debench.leaderboard.display import fmt, plain_label, tick_label

NOMINAL = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"]
ORDINAL5 = ["#c8553d", "#f0a35e", "#e8d98b", "#8cc0d6", "#3b76af"]
REFERENCE_LABELS = {"human_rating_distribution": "Human ratings", "gold_distribution": "Gold"}
LABEL_W, PLOT_W, RIGHT = 150, 290, 52
ROW_H = 24


def _short(text: str, n: int = 22) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


@dataclass
class Tick:
    x: float
    label: str
    zero: bool


@dataclass
class ForestRow:
    y: float
    label: str
    name: str
    baseline: bool
    tier: int | None
    x: float | None
    lo: float | None = None
    hi: float | None = None
    value: str = ""


@dataclass
class Reference:
    x: float
    band_x: float | None
    band_w: float | None
    label: str


@dataclass
class BaselineLine:
    x: float
    label: str
    name: str
    value: str
    level: str
    label_y: float


@dataclass
class ForestPlot:
    kind: str
    title: str
    width: int
    height: int
    top: int
    axis_y: int
    label_w: int
    ticks: list[Tick]
    rows: list[ForestRow]
    ref: Reference | None
    baselines: list[BaselineLine] = field(default_factory=list)


@dataclass
class Segment:
    x: float
    width: float
    color: str
    title: str
    pct: str | None


@dataclass
class Bar:
    y: float
    label: str
    is_reference: bool
    segments: list[Segment]
    n: str


@dataclass
class LegendItem:
    x: float
    color: str
    label: str


@dataclass
class DistributionPlot:
    kind: str
    title: str
    width: int
    height: int
    label_w: int
    plot_w: int
    legend: list[LegendItem] = field(default_factory=list)
    bars: list[Bar] = field(default_factory=list)


def _nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(s * mag for s in (1, 2, 2.5, 5, 10) if s * mag >= raw)
    first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    return [round(k * step, 10) for k in range(first, last + 1)]


def forest_plot(t: TaskBoard, metric: MetricColumn, title: str) -> ForestPlot:
    rows = [(e, e.metrics[metric.name]) for e in t.verified]
    lines = [(e, e.metrics[metric.name]) for e in t.baselines if e.metrics[metric.name].value is not None]
    ref = next((r for r in t.human_reference if r.metric == metric.name), None)
    xs: list[float] = [0.0] + [m.value for _, m in lines if m.value is not None]
    for m in [m for _, m in rows] + ([ref.value] if ref is not None else []):
        if m.value is not None:
            xs.append(m.value)
        if m.ci95:
            xs.extend(m.ci95)
    values = _nice_ticks(min(xs), max(xs))
    lo, hi = values[0], values[-1]
    top = 44
    axis_y = top + ROW_H * max(1, len(rows)) + 4

    def sx(v: float) -> float:
        return round(LABEL_W + (v - lo) / (hi - lo) * PLOT_W, 1)

    reference = None
    if ref is not None and ref.value.value is not None:
        band = ref.value.ci95
        reference = Reference(
            x=sx(ref.value.value),
            band_x=sx(band[0]) if band else None,
            band_w=round(max(sx(band[1]) - sx(band[0]), 1), 1) if band else None,
            label=f"humans {fmt(ref.value.value)}",
        )
    out: list[ForestRow] = []
    for i, (e, m) in enumerate(rows):
        row = ForestRow(y=top + ROW_H * i + ROW_H / 2, label=_short(e.model), name=e.model, baseline=e.is_baseline, tier=e.tier, x=None)
        if m.value is not None:
            row.x, row.value = sx(m.value), fmt(m.value)
            if m.ci95:
                row.lo, row.hi = sx(m.ci95[0]), sx(m.ci95[1])
        out.append(row)
    baselines = [
        BaselineLine(x=sx(v), label=_short(e.model.removeprefix("baseline/"), 12), name=e.model, value=fmt(v),
                     level=e.baseline_level or "heuristic", label_y=axis_y + 26 + 11 * (i % 3))
        for i, (e, v) in enumerate(sorted(((e, m.value) for e, m in lines if m.value is not None), key=lambda ev: ev[1]))
    ]
    return ForestPlot(
        kind="forest",
        title=title,
        width=LABEL_W + PLOT_W + RIGHT,
        height=top + ROW_H * max(1, len(rows)) + 34 + (35 if baselines else 0),
        top=top,
        axis_y=axis_y,
        label_w=LABEL_W,
        ticks=[Tick(x=sx(v), label=tick_label(v), zero=v == 0) for v in values],
        rows=out,
        ref=reference,
        baselines=baselines,
    )


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


def _bar(label: str, dist: dict[str, Any], y: float, is_reference: bool, cats: list[str], colors: dict[str, str]) -> Bar:
    total = sum(float(v) for v in dist.values() if isinstance(v, (int, float))) or 1.0
    segments = []
    x = float(LABEL_W)
    for c in cats:
        v = dist.get(c, 0)
        share = float(v) / total if isinstance(v, (int, float)) else 0.0
        w = share * PLOT_W
        if w > 0:
            segments.append(Segment(x=round(x, 1), width=round(w, 1), color=colors[c], title=f"{label} — {c}: {share:.1%} ({v})", pct=f"{share * 100:.0f}%" if share >= 0.08 else None))
            x += w
    n = int(total) if total == int(total) else total
    return Bar(y=y, label=_short(label), is_reference=is_reference, segments=segments, n=f"n={n}")


def distribution_plot(t: TaskBoard) -> DistributionPlot | None:
    entries: list[Entry] = [e for e in [*t.verified, *t.baselines] if isinstance(e.reports.get("prediction_distribution"), dict)]
    if not entries:
        return None
    ref_name = next((n for n in REFERENCE_LABELS if any(isinstance(e.reports.get(n), dict) and e.reports[n] for e in entries)), None)
    sources: list[tuple[str, dict[str, Any], bool]] = []
    if ref_name is not None:
        ref_entry = max(entries, key=lambda e: sum(e.reports[ref_name].values()) if isinstance(e.reports.get(ref_name), dict) else -1)
        sources.append((REFERENCE_LABELS[ref_name], ref_entry.reports[ref_name], True))
    sources += [(e.model, e.reports["prediction_distribution"], False) for e in entries]
    cats = _categories(t, [s[1] for s in sources])
    ordinal = bool(cats) and all(_is_number(c) for c in cats) and len(cats) == len(ORDINAL5)
    palette = ORDINAL5 if ordinal else NOMINAL
    colors = {c: palette[i % len(palette)] for i, c in enumerate(cats)}
    title = {
        "human_rating_distribution": "Score distribution: judges vs the human ratings",
        "gold_distribution": "Predicted distribution vs the gold labels",
    }.get(ref_name or "", "Distribution of predictions")
    top = 52
    plot = DistributionPlot(kind="distribution", title=title, width=LABEL_W + PLOT_W + RIGHT, height=top + ROW_H * len(sources) + 10, label_w=LABEL_W, plot_w=PLOT_W)
    lx = float(LABEL_W)
    for c in cats:
        plot.legend.append(LegendItem(x=lx, color=colors[c], label=c))
        lx += 22 + 7 * len(c)
    plot.bars = [_bar(label, dist, top + ROW_H * i, is_ref, cats, colors) for i, (label, dist, is_ref) in enumerate(sources)]
    return plot


def task_plots(t: TaskBoard) -> list[ForestPlot | DistributionPlot]:
    primary = next(c for c in t.metrics if c.primary)
    plots: list[ForestPlot | DistributionPlot] = [forest_plot(t, primary, f"{plain_label(primary.name)} with 95% CI")]
    for ref in t.human_reference:
        col = next((c for c in t.metrics if c.name == ref.metric), None)
        if col is not None and col.name != primary.name:
            plots.append(forest_plot(t, col, f"{plain_label(col.name)} vs the human–human level"))
    dist = distribution_plot(t)
    if dist:
        plots.append(dist)
    return plots
