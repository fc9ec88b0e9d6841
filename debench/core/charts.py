"""Every chart debench draws, as plain SVG: no plotting library is imported, so a chart costs
milliseconds after the last answer and opens in any browser, editor or paper.

* ``score_distribution`` and ``source_means``: a speech-rating run's judge beside the human
  annotators (Debatable Intelligence §5.2–5.3), written beside its results (``speech_rating_plots``);
* ``forest``: values with 95% intervals, one row per entry, one or two series (the arena's plain
  and style-controlled Bradley–Terry ratings, ``debench arena rank --plot``; the leaderboard page's
  forest plots, with its baselines as reference lines and the human–human level as a band);
* ``stacked_bars``: shares of each category per row (the leaderboard's predicted distributions);
* ``scatter``: the judge's number against the gold number (the run report).

Each draws on the canvas of ``debench.core.svg``, which escapes every text.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debench.core.svg import Svg, tooltip

MUTED, GRID = "#5f6b7a", "#dddddd"
JUDGE_COLOUR, HUMAN_COLOUR = "#1f4e79", "#d98c2b"
SERIES = ("#3056d3", "#a3462b")
"""Colours of a forest's first and second series (e.g. plain and style-controlled ratings)."""
NOMINAL = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"]
ORDINAL5 = ["#c8553d", "#f0a35e", "#e8d98b", "#8cc0d6", "#3b76af"]


# ---------------------------------------------------------------------------------------- axes


def nice_ticks(lo: float, hi: float, n: int = 5, *, cover: bool = False) -> list[float]:
    """Round tick values, at most about ``n`` steps over [lo, hi] (step 1, 2, 2.5 or 5 x 10^k):
    inside the range, or (``cover``) from a tick at or below ``lo`` to one at or above ``hi``."""
    if not hi - lo > 1e-9 * max(1.0, abs(lo), abs(hi)):
        # no width, or one below the ticks' rounding (two models with identical records score
        # ~1e-12 apart): ticks rounded to 10 decimals would all be equal, and a scale of no width
        # divides by zero
        hi = lo + 1.0
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(s * mag for s in (1, 2, 2.5, 5, 10) if s * mag >= raw * (1 - 1e-12))
    if cover:
        first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    else:
        first, last = math.ceil(lo / step - 1e-9), math.floor(hi / step + 1e-9)
    return [round(k * step, 10) for k in range(first, last + 1)]


def tick_label(x: float) -> str:
    """A tick value: no trailing zeros, a typographic minus sign."""
    text = f"{x:.3f}".rstrip("0").rstrip(".")
    return ("0" if text in ("-0", "") else text).replace("-", "−")


def shorten(text: str, n: int = 22) -> str:
    """``text``, cut to ``n`` characters with an ellipsis."""
    return text if len(text) <= n else text[: n - 1] + "…"


# ---------------------------------------------------------------------------- speech ratings


def score_distribution(
    judge: Mapping[str, int], human: Mapping[str, int], *, n_parse_failures: int = 0, title: str = ""
) -> Svg:
    """Share of each score 1-5 for the judge (parse failures as their own bar) and the humans."""
    scores = [str(s) for s in range(1, 6)]
    judge_total = sum(judge.values()) + n_parse_failures
    human_total = sum(human.values())
    labels = [*scores, "parse failure"]
    j = [judge.get(s, 0) / judge_total if judge_total else 0.0 for s in scores] + [
        n_parse_failures / judge_total if judge_total else 0.0
    ]
    h = [human.get(s, 0) / human_total if human_total else 0.0 for s in scores] + [0.0]
    svg = Svg(620, 380)
    top_y = svg.title((title or "Score distribution: judge vs human annotators").splitlines()) + 22
    left, right, bottom = 60.0, 600.0, 320.0
    ticks = nice_ticks(0.0, max(0.05, *j, *h) * 1.1, 6)
    scale = (bottom - top_y) / ticks[-1]
    for t in ticks:
        y = bottom - t * scale
        svg.line(left, y, right, y, GRID, cls="grid")
        svg.text(left - 6, y + 4, f"{t:g}", size=10, anchor="end", cls="tick")
    slot = (right - left) / len(labels)
    for i, label in enumerate(labels):
        x = left + i * slot + slot * 0.1
        w = slot * 0.4
        svg.rect(x, bottom - j[i] * scale, w, j[i] * scale, JUDGE_COLOUR, title=f"judge, {label}: {j[i]:.1%}")
        svg.rect(
            x + w, bottom - h[i] * scale, w, h[i] * scale, HUMAN_COLOUR, title=f"human ratings, {label}: {h[i]:.1%}"
        )
        svg.text(left + (i + 0.5) * slot, bottom + 16, label, size=10, anchor="middle")
    svg.line(left, bottom, right, bottom)
    svg.text(16, (top_y + bottom) / 2, "share of scores", size=11, anchor="middle", rotate=True)
    svg.text((left + right) / 2, bottom + 34, "score", size=11, anchor="middle")
    svg.legend(
        left,
        top_y - 8,
        [(JUDGE_COLOUR, f"judge (n={judge_total})"), (HUMAN_COLOUR, f"human ratings (n={human_total})")],
    )
    return svg


def source_means(rows: Mapping[str, Mapping[str, Any]], *, title: str = "", subtitle: str = "") -> Svg:
    """Mean score per source: ``rows[source] = {"judge_mean": x, "human_mean": y | None, ...}``;
    a 95% interval is drawn when ``judge_ci95`` / ``human_ci95`` are given. Sorted by human mean,
    highest at the top (sources without human ratings, such as generated speeches, at the bottom)."""

    def order(item: tuple[str, Mapping[str, Any]]) -> tuple[float, str]:
        hm = item[1].get("human_mean")
        return (-1.0 if hm is None else float(hm), item[0])

    items = sorted(rows.items(), key=order, reverse=True)
    left = 20.0 + 6.0 * max([len(n) for n, _ in items] + [6])
    right, row_h = left + 420.0, 30.0
    svg = Svg(right + 30, 0)
    top_y = svg.title((title or "Mean score per speech source").splitlines()) + 24
    bottom = top_y + row_h * len(items)
    svg.height = bottom + 70 + (14 if subtitle else 0)
    scale = (right - left) / 5.2
    for t in range(6):
        x = left + t * scale
        svg.line(x, top_y, x, bottom, GRID, cls="grid")
        svg.text(x, bottom + 14, str(t), size=10, anchor="middle", cls="tick")
    with_ci = False
    for i, (name, r) in enumerate(items):
        y0 = top_y + i * row_h
        svg.text(left - 6, y0 + row_h / 2 + 4, name, size=10, anchor="end", cls="rlabel")
        for k, (key, colour) in enumerate((("judge", JUDGE_COLOUR), ("human", HUMAN_COLOUR))):
            v = r.get(f"{key}_mean")
            if v is None:
                continue
            y = y0 + 4 + k * (row_h - 8) / 2
            bar = (row_h - 8) / 2
            svg.rect(left, y, v * scale, bar, colour, title=f"{key}, {name}: {v:.3f}")
            ci = r.get(f"{key}_ci95")
            if ci:
                with_ci = True
                lo, hi, mid = left + ci[0] * scale, left + ci[1] * scale, y + bar / 2
                svg.line(lo, mid, hi, mid, "#555555")
                for end in (lo, hi):
                    svg.line(end, mid - 3, end, mid + 3, "#555555")
    svg.line(left, bottom, right, bottom)
    svg.text(
        (left + right) / 2,
        bottom + 32,
        "mean score (1-5)" + (" with 95% CI" if with_ci else ""),
        size=11,
        anchor="middle",
    )
    if subtitle:
        svg.text((left + right) / 2, bottom + 46, subtitle, size=10, anchor="middle")
    svg.legend(left, svg.height - 10, [(JUDGE_COLOUR, "judge"), (HUMAN_COLOUR, "human annotators")])
    return svg


def speech_rating_plots(results: Any, results_path: Path) -> list[Path]:
    """For a speech-rating run (its reports hold both distributions and the per-source means):
    ``<results stem>_scores.svg`` and ``<results stem>_sources.svg`` beside the results file."""
    reports = results.reports
    needed = ("prediction_distribution", "human_rating_distribution", "mean_by_source")
    if not all(k in reports for k in needed):
        return []
    stem = results_path.with_suffix("")
    who = f"{results.task.name} | {results.model.name}"
    scores = score_distribution(
        reports["prediction_distribution"],
        reports["human_rating_distribution"],
        n_parse_failures=results.n_parse_failures,
        title=f"Scores: judge vs humans\n{who}",
    )
    paths = [scores.save(Path(f"{stem}_scores.svg"))]
    if reports["mean_by_source"]:
        r = results.metrics.get("source_pearson")
        sub = f"Pearson r of source means = {r.value:.3f}" if r is not None and r.value is not None else ""
        paths.append(
            source_means(reports["mean_by_source"], title=f"Mean score per source\n{who}", subtitle=sub).save(
                Path(f"{stem}_sources.svg")
            )
        )
    return paths


# --------------------------------------------------------------------------------- forest plot


@dataclass
class Estimate:
    """One point of a forest row: a value (None: undefined), its interval and the text beside it."""

    value: float | None
    ci: Sequence[float] | None = None
    text: str = ""
    title: str = ""
    cls: str = "pt"


@dataclass
class ForestRow:
    label: str
    points: list[Estimate]
    """One per series."""


@dataclass
class RefLine:
    """A vertical reference line (a baseline's level), labelled below the axis."""

    value: float
    label: str
    title: str
    cls: str = "baseline-line"


@dataclass
class RefBand:
    """A reference level with its interval (the human–human agreement), labelled above the plot."""

    value: float
    ci: Sequence[float] | None
    label: str


@dataclass
class Forest:
    title: str
    rows: list[ForestRow]
    series: list[str] = field(default_factory=list)
    """Names of two or more series (a legend); one unnamed series otherwise."""
    lines: list[RefLine] = field(default_factory=list)
    band: RefBand | None = None
    empty: str = "no entry"
    axis: str = ""
    label_w: int = 150
    plot_w: int = 290


@dataclass(frozen=True)
class _Frame:
    """Where a forest's parts go: its scale's ticks, the top of its rows and its axis."""

    f: Forest
    ticks: list[float]
    top: float
    axis_y: float

    @classmethod
    def of(cls, f: Forest, n_titles: int) -> _Frame:
        points = [p for row in f.rows for p in row.points] + ([Estimate(f.band.value, f.band.ci)] if f.band else [])
        values = [r.value for r in f.lines] + [p.value for p in points if p.value is not None]
        xs = [0.0, *values, *(x for p in points for x in p.ci or [])]  # the scale covers 0 and all of them
        top = 44 + 14 * (n_titles - 1) + (16 if len(f.series) > 1 else 0)
        return cls(f, nice_ticks(min(xs), max(xs), cover=True), top, top + _ROW_H * max(1, len(f.rows)) + 4)

    def x(self, v: float) -> float:
        lo, hi = self.ticks[0], self.ticks[-1]
        return round(self.f.label_w + (v - lo) / (hi - lo) * self.f.plot_w, 1)


_ROW_H, _RIGHT = 24, 52
"""A forest's row height and the width right of its plot (the values' texts)."""


def forest(f: Forest) -> Svg:
    """Values with their 95% intervals, one row per entry, on one scale that includes 0, every
    interval, reference line and band."""
    titles = f.title.splitlines() or [""]
    fr = _Frame.of(f, len(titles))
    width, height = f.label_w + f.plot_w + _RIGHT, fr.axis_y + 30 + (35 if f.lines else 0) + (16 if f.axis else 0)
    svg = Svg(width, height, cls="plot forest", label=titles[0])
    for i, line in enumerate(titles):
        svg.text(0, 16 + 14 * i, line, size=13 if i == 0 else 11, bold=i == 0, cls="ptitle" if i == 0 else "subtitle")
    _draw_scale(svg, fr)
    if f.band is not None:
        _draw_band(svg, f.band, fr)
    _draw_ref_lines(svg, fr)
    if len(f.series) > 1:
        svg.legend(f.label_w, 38 + 14 * (len(titles) - 1), list(zip(SERIES, f.series, strict=False)))
    if not f.rows:
        svg.text(f.label_w + 4, fr.top + 16, f.empty, fill=MUTED, cls="na")
    for k, row in enumerate(f.rows):
        _draw_row(svg, row, fr.top + _ROW_H * k + _ROW_H / 2, fr, width)
    return svg


def _draw_scale(svg: Svg, fr: _Frame) -> None:
    """The grid line and label of each tick (0's line darker), and the axis title."""
    for v in fr.ticks:
        colour, cls = ("#b8c0cc", "grid zero") if v == 0 else ("#eceff4", "grid")
        svg.line(fr.x(v), fr.top - 6, fr.x(v), fr.axis_y, colour, cls=cls)
        svg.text(fr.x(v), fr.axis_y + 14, tick_label(v), anchor="middle", fill=MUTED, cls="tick")
    if fr.f.axis:
        svg.text(fr.f.label_w + fr.f.plot_w / 2, fr.axis_y + 30, fr.f.axis, anchor="middle", fill=MUTED, cls="legend")


def _draw_band(svg: Svg, band: RefBand, fr: _Frame) -> None:
    """The reference level: its interval shaded across the rows, its line dashed, labelled above."""
    if band.ci:
        width = max(fr.x(band.ci[1]) - fr.x(band.ci[0]), 1)
        svg.rect(fr.x(band.ci[0]), fr.top - 6, width, fr.axis_y - fr.top + 6, "#fbe3ad", cls="refband", opacity=0.55)
    x = fr.x(band.value)
    svg.line(x, fr.top - 10, x, fr.axis_y, "#d99a1e", 2, cls="refline", stroke_dasharray="4 3")
    svg.text(x, fr.top - 13, band.label, anchor="middle", fill="#7a5200", bold=True, cls="reflabel")


def _draw_ref_lines(svg: Svg, fr: _Frame) -> None:
    """The reference lines, dotted, their labels below the axis on three staggered lines."""
    for i, ref in enumerate(sorted(fr.f.lines, key=lambda r: r.value)):
        x = fr.x(ref.value)
        svg.line(x, fr.top - 6, x, fr.axis_y + 18, "#8a94a6", 1.4, cls=ref.cls, title=ref.title, stroke_dasharray="2 3")
        svg.text(x, fr.axis_y + 26 + 11 * (i % 3), ref.label, size=10, anchor="middle", fill=MUTED, cls="blabel")


def _draw_row(svg: Svg, row: ForestRow, y: float, fr: _Frame, width: float) -> None:
    """A row: its label, each series' point and interval (side by side), its values' text."""
    svg.text(fr.f.label_w - 10, y + 4, shorten(row.label), size=12, anchor="end", cls="rlabel")
    shown = [(s, p, p.value) for s, p in enumerate(row.points) if p.value is not None]
    if not shown:
        svg.text(fr.f.label_w + 4, y + 4, "undefined", fill=MUTED, cls="na")
    for s, p, value in shown:
        dy = (s - (len(row.points) - 1) / 2) * 7
        colour = SERIES[s % len(SERIES)]
        if p.ci:
            svg.line(fr.x(p.ci[0]), y + dy, fr.x(p.ci[1]), y + dy, colour, 2.2, cls="ci", stroke_linecap="round")
        r = 5 if len(row.points) == 1 else 4
        svg.circle(fr.x(value), y + dy, r, colour, cls=p.cls, title=p.title, stroke="#fff", stroke_width=1.5)
    text = "  ".join(p.text for p in row.points if p.text)
    if text:
        svg.text(width - 4, y + 4, text, anchor="end", fill=MUTED, cls="val")


# --------------------------------------------------------------------------------- stacked bars


@dataclass
class StackedBar:
    label: str
    shares: Mapping[str, Any]
    """Category -> count (any number; the bar shows shares of its total)."""
    is_reference: bool = False


def category_colours(categories: Sequence[str], ordinal: bool) -> dict[str, str]:
    palette = ORDINAL5 if ordinal and len(categories) == len(ORDINAL5) else NOMINAL
    return {c: palette[i % len(palette)] for i, c in enumerate(categories)}


def stacked_bars(
    title: str,
    bars: Sequence[StackedBar],
    categories: Sequence[str],
    colours: Mapping[str, str],
    *,
    label_w: int = 150,
    plot_w: int = 290,
) -> Svg:
    """100% stacked bars, one per row, with the share of each category (shown when >= 8%); a
    reference bar (the human ratings, the gold labels) is set apart by a dotted line."""
    row_h, top, right = 24, 52, 52
    width = label_w + plot_w + right
    svg = Svg(width, top + row_h * len(bars) + 10, cls="plot dist", label=title)
    svg.text(0, 16, title, size=13, bold=True, cls="ptitle")
    lx = float(label_w)
    for c in categories:
        svg.rect(lx, 27, 11, 11, colours[c], rx=2)
        svg.text(lx + 15, 36, c, fill=MUTED, cls="legend")
        lx += 22 + 7 * len(c)
    for k, bar in enumerate(bars):
        y = top + row_h * k
        svg.text(
            label_w - 10,
            y + 15,
            shorten(bar.label),
            size=12,
            anchor="end",
            italic=bar.is_reference,
            cls="rlabel reflabel2" if bar.is_reference else "rlabel",
        )
        total = sum(float(v) for v in bar.shares.values() if isinstance(v, (int, float))) or 1.0
        x = float(label_w)
        for c in categories:
            v = bar.shares.get(c, 0)
            share = float(v) / total if isinstance(v, (int, float)) else 0.0
            w = share * plot_w
            if w <= 0:
                continue
            svg.rect(
                round(x, 1),
                y + 3,
                round(w, 1),
                18,
                colours[c],
                cls="seg refseg" if bar.is_reference else "seg",
                title=f"{bar.label} — {c}: {share:.1%} ({v})",
                stroke="#fff",
            )
            if share >= 0.08:
                svg.text(round(x + w / 2, 1), y + 16, f"{share * 100:.0f}%", size=10.5, anchor="middle", cls="pct")
            x += w
        n = int(total) if total == int(total) else total
        svg.text(width - 4, y + 16, f"n={n}", anchor="end", fill=MUTED, cls="val")
        if bar.is_reference:
            svg.line(label_w, y + 24.5, label_w + plot_w, y + 24.5, "#c5ccd8", cls="sep", stroke_dasharray="2 2")
    return svg


# -------------------------------------------------------------------------------------- scatter

JITTER = 0.18
"""Whole-number values are spread by up to this much (deterministically, per document) so that
equal points stay visible; the exact values are in each point's tooltip."""


def _jitter(key: str) -> float:
    """In [-JITTER, JITTER], from a hash of the key salted apart from any other use of the key's
    hash (data sets ordered by the hash of their ids would otherwise jitter a prefix one way)."""
    return (int(hashlib.sha256(f"jitter|{key}".encode()).hexdigest()[:8], 16) / 0xFFFFFFFF - 0.5) * 2 * JITTER


def scatter(
    points: Sequence[tuple[float, float, str]], *, x_label: str = "gold", label: str = "judge against gold"
) -> Svg:
    """``points``: (x, y, name) — in the run report, the gold number, the judge's number and the
    document id; whole-number y values are jittered."""
    width, height, pad_l, pad_r, pad_t, pad_b = 560, 360, 48, 16, 14, 42
    xs, ys = [float(x) for x, _, _ in points], [float(y) for _, y, _ in points]
    whole = all(y.is_integer() for y in ys)
    x_lo, x_hi, y_lo, y_hi = min(xs), max(xs), min(ys), max(ys)
    if whole:
        y_lo, y_hi = y_lo - 0.5, y_hi + 0.5
    if x_hi == x_lo:
        x_lo, x_hi = x_lo - 1, x_hi + 1
    if y_hi == y_lo:
        y_lo, y_hi = y_lo - 1, y_hi + 1
    plot_w, plot_h = width - pad_l - pad_r, height - pad_t - pad_b

    def px(x: float) -> float:
        return round(pad_l + (x - x_lo) / (x_hi - x_lo) * plot_w, 1)

    def py(y: float) -> float:
        return round(pad_t + (y_hi - y) / (y_hi - y_lo) * plot_h, 1)

    svg = Svg(width, height, label=label)
    x1, y1 = width - pad_r, height - pad_b
    svg.rect(pad_l, pad_t, x1 - pad_l, y1 - pad_t, "#fcfcfe", stroke="#e3e7ee")
    for t in nice_ticks(x_lo, x_hi):
        svg.line(px(t), pad_t, px(t), y1, "#eef0f4")
        svg.text(px(t), y1 + 14, f"{t:g}", anchor="middle", fill=MUTED)
    for t in nice_ticks(y_lo, y_hi):
        svg.line(pad_l, py(t), x1, py(t), "#eef0f4")
        svg.text(pad_l - 6, py(t) + 4, f"{t:g}", anchor="end", fill=MUTED)
    svg.text((pad_l + x1) / 2, height - 6, x_label, anchor="middle", fill=MUTED)
    svg.parts.append('<g class="points" fill="#3056d3" fill-opacity="0.45">')
    for (x, y, name), yv in zip(points, ys, strict=True):
        svg.parts.append(
            f'<circle cx="{px(float(x))}" cy="{py(yv + (_jitter(name) if whole else 0.0))}" '
            f'r="3.2">{tooltip(f"{name}: gold {float(x):.3g}, judge {y}")}</circle>'
        )
    svg.parts.append("</g>")
    return svg
