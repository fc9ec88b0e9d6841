"""Rendering the run report and the arena report (``debench.view.pages``: one offline HTML file each,
templates ``run_report.html.j2`` and ``arena_report.html.j2``). Everything they show passes through
``debench.core.redact.Redactor`` first: a key echoed in a judge's answer or an error message never
reaches the page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from markupsafe import Markup

from debench.core.atomic import write_atomic
from debench.core.charts import scatter
from debench.core.redact import Redactor
from debench.view.model import build_view
from debench.view.pages import render


def render_view(view: dict[str, Any], template: str = "run_report.html.j2") -> str:
    chart = view.get("chart")
    if (
        chart and chart["kind"] == "scatter"
    ):  # drawn here, from the redacted points (``debench.core.charts`` escapes every text)
        chart = {**chart, "svg": Markup(scatter([(g, p, d) for g, p, d in chart["points"]]).markup())}
    return render(template, **{**view, "chart": chart})


def default_output(results_path: Path) -> Path:
    return Path(results_path).with_suffix(".html")


def write_view(results_path: Path, output: Path | None = None, *, data_dir: str | None = None) -> Path:
    """Write the report of the run in ``results_path`` (default: beside it, ``.html``)."""
    view = Redactor().value(build_view(Path(results_path), data_dir=data_dir))
    return write_atomic(output or default_output(results_path), render_view(view))


def write_arena_view(folder: Path, output: Path | None = None) -> Path:
    """Write the report of an arena run's folder (default: ``arena.html`` in it)."""
    from debench.view.arena import build_arena_view

    view = Redactor().value(build_arena_view(Path(folder)))
    return write_atomic(output or Path(folder) / "arena.html", render_view(view, "arena_report.html.j2"))
