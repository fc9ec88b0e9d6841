"""SVG plots of speech-rating behaviour (Debatable Intelligence §5.2–5.3): the judge's score
distribution beside the human annotators', and mean score per speech source, judge beside humans.

Written next to the results of every speech-rating run (``eval`` on an IBM task, ``score``,
``rate-speeches``). Drawn here as plain SVG (a browser, an editor or a paper opens it): no plotting
library is imported, so writing them takes milliseconds after the last answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from debench.atomic import write_atomic

JUDGE_COLOUR = "#1f4e79"
HUMAN_COLOUR = "#d98c2b"
INK = "#222222"
GRID = "#dddddd"
FONT = 'font-family="Helvetica, Arial, sans-serif"'


class Svg:
    """A small SVG canvas: rectangles, lines and text, in pixels from the top left."""

    def __init__(self, width: float, height: float):
        self.width, self.height = width, height
        self.parts: list[str] = []

    def rect(self, x: float, y: float, w: float, h: float, fill: str, title: str = "") -> None:
        tip = f"<title>{escape(title)}</title>" if title else ""
        self.parts.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{max(w, 0):.1f}" height="{max(h, 0):.1f}" fill="{fill}">{tip}</rect>')

    def line(self, x1: float, y1: float, x2: float, y2: float, stroke: str = INK, width: float = 1.0) -> None:
        self.parts.append(f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{stroke}" stroke-width="{width}"/>')

    def text(self, x: float, y: float, text: str, *, size: float = 11, anchor: str = "start", bold: bool = False, rotate: bool = False) -> None:
        weight = ' font-weight="bold"' if bold else ""
        turn = f' transform="rotate(-90 {x:.1f} {y:.1f})"' if rotate else ""
        self.parts.append(f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" fill="{INK}"{weight}{turn}>{escape(text)}</text>')

    def title(self, lines: Sequence[str]) -> float:
        """Centred title lines at the top; returns the y below them."""
        y = 18.0
        for i, line in enumerate(lines):
            self.text(self.width / 2, y, line, size=13 if i == 0 else 11, anchor="middle", bold=i == 0)
            y += 16
        return y

    def legend(self, x: float, y: float, entries: Sequence[tuple[str, str]]) -> None:
        for colour, label in entries:
            self.rect(x, y - 9, 10, 10, colour)
            self.text(x + 14, y, label, size=10)
            x += 22 + 6.2 * len(label)

    def save(self, path: Path) -> Path:
        body = "\n".join(self.parts)
        svg = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{self.width:.0f}" height="{self.height:.0f}" '
            f'viewBox="0 0 {self.width:.0f} {self.height:.0f}" {FONT}>\n'
            f'<rect width="100%" height="100%" fill="white"/>\n{body}\n</svg>\n'
        )
        write_atomic(path, svg)
        return path


def _ticks(top: float) -> list[float]:
    """Round gridline values from 0 to ``top``."""
    step = next(s for s in (0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1.0) if top / s <= 6)
    return [round(i * step, 6) for i in range(int(top / step + 1e-9) + 1)]


def plot_score_distribution(
    judge: Mapping[str, int], human: Mapping[str, int], path: Path, *, n_parse_failures: int = 0, title: str = ""
) -> Path:
    """Share of each score 1-5 for the judge (parse failures as their own bar) and the humans."""
    scores = [str(s) for s in range(1, 6)]
    judge_total = sum(judge.values()) + n_parse_failures
    human_total = sum(human.values())
    labels = [*scores, "parse failure"]
    j = [judge.get(s, 0) / judge_total if judge_total else 0.0 for s in scores] + [n_parse_failures / judge_total if judge_total else 0.0]
    h = [human.get(s, 0) / human_total if human_total else 0.0 for s in scores] + [0.0]
    svg = Svg(620, 380)
    top_y = svg.title((title or "Score distribution: judge vs human annotators").splitlines()) + 22
    left, right, bottom = 60.0, 600.0, 320.0
    top = max(0.05, *j, *h)
    ticks = _ticks(top * 1.1)
    scale = (bottom - top_y) / ticks[-1]
    for t in ticks:
        y = bottom - t * scale
        svg.line(left, y, right, y, GRID)
        svg.text(left - 6, y + 4, f"{t:g}", size=10, anchor="end")
    slot = (right - left) / len(labels)
    for i, label in enumerate(labels):
        x = left + i * slot + slot * 0.1
        w = slot * 0.4
        svg.rect(x, bottom - j[i] * scale, w, j[i] * scale, JUDGE_COLOUR, f"judge, {label}: {j[i]:.1%}")
        svg.rect(x + w, bottom - h[i] * scale, w, h[i] * scale, HUMAN_COLOUR, f"human ratings, {label}: {h[i]:.1%}")
        svg.text(left + (i + 0.5) * slot, bottom + 16, label, size=10, anchor="middle")
    svg.line(left, bottom, right, bottom)
    svg.text(16, (top_y + bottom) / 2, "share of scores", size=11, anchor="middle", rotate=True)
    svg.text((left + right) / 2, bottom + 34, "score", size=11, anchor="middle")
    svg.legend(left, top_y - 8, [(JUDGE_COLOUR, f"judge (n={judge_total})"), (HUMAN_COLOUR, f"human ratings (n={human_total})")])
    return svg.save(path)


def plot_source_means(rows: Mapping[str, Mapping[str, Any]], path: Path, *, title: str = "", subtitle: str = "") -> Path:
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
        svg.line(x, top_y, x, bottom, GRID)
        svg.text(x, bottom + 14, str(t), size=10, anchor="middle")
    with_ci = False
    for i, (name, r) in enumerate(items):
        y0 = top_y + i * row_h
        svg.text(left - 6, y0 + row_h / 2 + 4, name, size=10, anchor="end")
        for k, (key, colour) in enumerate((("judge", JUDGE_COLOUR), ("human", HUMAN_COLOUR))):
            v = r.get(f"{key}_mean")
            if v is None:
                continue
            y = y0 + 4 + k * (row_h - 8) / 2
            bar = (row_h - 8) / 2
            svg.rect(left, y, v * scale, bar, colour, f"{key}, {name}: {v:.3f}")
            ci = r.get(f"{key}_ci95")
            if ci:
                with_ci = True
                lo, hi, mid = left + ci[0] * scale, left + ci[1] * scale, y + bar / 2
                svg.line(lo, mid, hi, mid, "#555555")
                for end in (lo, hi):
                    svg.line(end, mid - 3, end, mid + 3, "#555555")
    svg.line(left, bottom, right, bottom)
    svg.text((left + right) / 2, bottom + 32, "mean score (1-5)" + (" with 95% CI" if with_ci else ""), size=11, anchor="middle")
    if subtitle:
        svg.text((left + right) / 2, bottom + 46, subtitle, size=10, anchor="middle")
    svg.legend(left, svg.height - 10, [(JUDGE_COLOUR, "judge"), (HUMAN_COLOUR, "human annotators")])
    return svg.save(path)


def speech_rating_plots(results: Any, results_path: Path) -> list[Path]:
    """For a speech-rating run (its reports hold both distributions and the per-source means):
    ``<results stem>_scores.svg`` and ``<results stem>_sources.svg`` beside the results file."""
    reports = results.reports
    needed = ("prediction_distribution", "human_rating_distribution", "mean_by_source")
    if not all(k in reports for k in needed):
        return []
    stem = results_path.with_suffix("")
    who = f"{results.task.name} | {results.model.name}"
    paths = [
        plot_score_distribution(
            reports["prediction_distribution"], reports["human_rating_distribution"], Path(f"{stem}_scores.svg"),
            n_parse_failures=results.n_parse_failures, title=f"Scores: judge vs humans\n{who}",
        )
    ]
    if reports["mean_by_source"]:
        r = results.metrics.get("source_pearson")
        sub = f"Pearson r of source means = {r.value:.3f}" if r is not None and r.value is not None else ""
        paths.append(plot_source_means(reports["mean_by_source"], Path(f"{stem}_sources.svg"), title=f"Mean score per source\n{who}", subtitle=sub))
    return paths
