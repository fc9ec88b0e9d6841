"""debench's HTML pages — the leaderboard (``leaderboard.page``), the run report and the arena
report (``view``) — rendered by one Jinja2 environment from ``debench/templates/`` with one
stylesheet (``templates/style.css``, inlined into every page as ``css``).

Each page is one self-contained file: inline CSS and JS, charts as inline SVG (``debench.core.charts``),
no external asset, and a Content-Security-Policy that forbids any load. Autoescape is on for every
template (``.j2`` included), so a name, an answer or a reason taken from a run or a submission is
escaped wherever it lands; an undefined variable is an error, not an empty string.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )


def asset(name: str) -> Markup:
    """A file of ``templates/`` (the stylesheet, a page's script) to inline into a page as it is."""
    return Markup((TEMPLATES / name).read_text(encoding="utf-8"))


def render(template: str, **values: Any) -> str:
    """``template`` rendered with ``values`` and the stylesheet (``css``)."""
    return environment().get_template(template).render(css=asset("style.css"), **values)
