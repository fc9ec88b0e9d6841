"""Rendering the run report: one offline HTML file (inline CSS and JS, no external asset; a
Content-Security-Policy forbids any load), from a Jinja2 template with autoescape. Everything it
shows passes through ``debench.redact.Redactor`` first: a key echoed in a judge's answer or an
error message never reaches the page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from markupsafe import Markup

from debench.atomic import write_atomic
from debench.charts import scatter
from debench.redact import Redactor
from debench.view.model import build_view

TEMPLATES = Path(__file__).resolve().parent / "templates"


def render_view(view: dict[str, Any], template: str = "report.html.j2") -> str:
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=select_autoescape(default=True), undefined=StrictUndefined)
    chart = view.get("chart")
    if chart and chart["kind"] == "scatter":  # drawn here, from the redacted points (``debench.charts`` escapes every text)
        chart = {**chart, "svg": Markup(scatter([(g, p, d) for g, p, d in chart["points"]]).markup())}
    return env.get_template(template).render(**{**view, "chart": chart})


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
    return write_atomic(output or Path(folder) / "arena.html", render_view(view, "arena.html.j2"))
