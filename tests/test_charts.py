"""The one chart module (``debench.core.charts``): every chart is well-formed SVG, escapes every text it
is given, and puts its points where the numbers say."""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from debench.core.charts import (
    Estimate,
    Forest,
    ForestRow,
    RefBand,
    RefLine,
    StackedBar,
    category_colours,
    forest,
    nice_ticks,
    scatter,
    score_distribution,
    source_means,
    stacked_bars,
)

HOSTILE = '<script>alert("x")</script>&'
SVG = "{http://www.w3.org/2000/svg}"


def _parse(markup: str) -> ET.Element:
    return ET.fromstring(markup)  # raises on anything that is not well-formed XML


def test_every_chart_is_well_formed_and_escapes_its_text() -> None:
    charts = [
        forest(
            Forest(
                HOSTILE,
                [ForestRow(HOSTILE, [Estimate(0.4, [0.1, 0.6], text=HOSTILE, title=HOSTILE)])],
                lines=[RefLine(0.1, HOSTILE, HOSTILE)],
                band=RefBand(0.3, [0.2, 0.35], HOSTILE),
            )
        ),
        stacked_bars(
            HOSTILE,
            [StackedBar(HOSTILE, {"1": 3, HOSTILE: 1}, is_reference=True)],
            ["1", HOSTILE],
            category_colours(["1", HOSTILE], False),
        ),
        scatter([(1.0, 2, HOSTILE), (2.0, 3, "b")]),
        score_distribution({"1": 2, "5": 1}, {"3": 4}, title=HOSTILE),
        source_means({HOSTILE: {"judge_mean": 3.0, "human_mean": 2.5, "judge_ci95": [2.5, 3.5]}}, subtitle=HOSTILE),
    ]
    for chart in charts:
        for standalone in (False, True):
            markup = chart.markup(standalone=standalone)
            root = _parse(markup)
            assert "<script" not in markup and root.find(f".//{SVG}script") is None and root.find(".//script") is None
            texts = [t.text or "" for t in root.iter() if t.tag.endswith(("text", "title"))]
            assert any(HOSTILE in t for t in texts), "the text is shown, as text"


def test_forest_points_sit_at_their_values_on_one_scale() -> None:
    svg = forest(
        Forest(
            "t",
            [ForestRow("a", [Estimate(-0.5, [-1.0, 0.0])]), ForestRow("b", [Estimate(1.0, None), Estimate(None)])],
            series=["x", "y"],
        )
    )
    root = _parse(svg.markup())
    points = [c for c in root.iter() if c.tag.endswith("circle")]
    ticks = {float(t.text.replace("−", "-")): float(t.get("x")) for t in root.iter() if t.get("class") == "tick"}
    scale = ticks[1.0] - ticks[0.0]
    xs = sorted(float(c.get("cx")) for c in points)
    assert len(points) == 2 and xs == pytest.approx([ticks[0.0] - 0.5 * scale, ticks[0.0] + scale], abs=0.11)
    assert min(ticks) <= -1.0 and max(ticks) >= 1.0  # the scale covers every interval


@pytest.mark.parametrize(
    ("lo", "hi", "cover"),
    [(0, 0.55, False), (-0.14, 0.07, True), (1.5, 4.75, False), (-207.3, 131.2, True), (0, 1.1, False)],
)
def test_ticks_are_round_and_inside_or_covering(lo: float, hi: float, cover: bool) -> None:
    ticks = nice_ticks(lo, hi, 5, cover=cover)
    steps = {round(b - a, 9) for a, b in itertools.pairwise(ticks)}
    assert len(steps) == 1 and 2 <= len(ticks) <= 8
    step = steps.pop()
    assert step / 10 ** math.floor(math.log10(step)) in (1, 2, 2.5, 5)
    if cover:
        assert ticks[0] <= lo and ticks[-1] >= hi and ticks[1] > lo and ticks[-2] < hi
    else:
        assert lo <= ticks[0] < lo + step + 1e-9 and hi - step - 1e-9 < ticks[-1] <= hi


@pytest.mark.parametrize(
    ("lo", "hi"), [(0.0, 0.0), (0.0, 1e-13), (-1e-12, 1e-12), (1500.0, 1500.0 + 1e-10), (2.0, 1.0)]
)
def test_a_range_of_no_width_still_gets_a_scale(lo: float, hi: float) -> None:
    """Equal values (or values apart by rounding error only) get distinct ticks, never one repeated."""
    for cover in (False, True):
        ticks = nice_ticks(lo, hi, 5, cover=cover)
        assert len(ticks) >= 2 and ticks == sorted(set(ticks))


def test_a_forest_of_equal_scores_is_drawn() -> None:
    """Two models with identical records in the arena: Elo-like scores ~1e-12 apart, no interval
    width (the chart divided by zero here once)."""
    svg = forest(
        Forest(
            "t",
            [ForestRow("a", [Estimate(1e-12, [1e-12, 1e-12])]), ForestRow("b", [Estimate(-1e-12, [-1e-12, -1e-12])])],
        )
    )
    xs = [float(c.get("cx")) for c in _parse(svg.markup()).iter() if c.tag.endswith("circle")]
    assert len(xs) == 2 and xs[0] == pytest.approx(xs[1], abs=0.1)


def test_a_chart_file_is_a_standalone_svg(tmp_path: Path) -> None:
    path = score_distribution({"4": 3}, {"4": 2, "5": 1}).save(tmp_path / "scores.svg")
    root = _parse(path.read_text())
    assert root.tag == f"{SVG}svg" and root.get("width") and root.get("viewBox", "").startswith("-10 -10")
