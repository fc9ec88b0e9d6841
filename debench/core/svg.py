"""The SVG canvas the charts of ``debench.core.charts`` draw on: rectangles, lines, circles and text in
pixels from the top left, written as plain SVG markup.

Every element carries a class (what the page stylesheet, ``debench/templates/style.css``, styles
inside a page) and presentation attributes (what a chart written to its own file shows). Text is
escaped here: a model name or a document id is never markup.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any

from debench.core.atomic import write_atomic

INK = "#222222"
FONT = "Helvetica, Arial, sans-serif"


def _num(x: float) -> str:
    return f"{x:.1f}"


def _attrs(**attrs: Any) -> str:
    """``key="value"`` pairs (``_`` in a name written ``-``; None left out), values escaped."""
    return "".join(f' {k.rstrip("_").replace("_", "-")}="{escape(str(v))}"' for k, v in attrs.items() if v is not None)


def tooltip(title: str) -> str:
    """An element's ``<title>`` child (the tooltip a browser shows); nothing for no title."""
    return f"<title>{escape(title)}</title>" if title else ""


class Svg:
    """An SVG canvas in pixels from the top left: rectangles, lines, circles and text."""

    def __init__(self, width: float, height: float, *, cls: str | None = None, label: str = ""):
        self.width, self.height = width, height
        self.cls, self.label = cls, label
        self.parts: list[str] = []

    def rect(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        fill: str | None,
        *,
        cls: str | None = None,
        title: str = "",
        **extra: Any,
    ) -> None:
        a = _attrs(class_=cls, x=_num(x), y=_num(y), width=_num(max(w, 0)), height=_num(max(h, 0)), fill=fill, **extra)
        self.parts.append(f"<rect{a}>{tooltip(title)}</rect>")

    def line(
        self,
        x1: float,
        y1: float,
        x2: float,
        y2: float,
        stroke: str = INK,
        width: float = 1.0,
        *,
        cls: str | None = None,
        title: str = "",
        **extra: Any,
    ) -> None:
        a = _attrs(
            class_=cls, x1=_num(x1), y1=_num(y1), x2=_num(x2), y2=_num(y2), stroke=stroke, stroke_width=width, **extra
        )
        self.parts.append(f"<line{a}>{tooltip(title)}</line>" if title else f"<line{a}/>")

    def circle(
        self, cx: float, cy: float, r: float, fill: str, *, cls: str | None = None, title: str = "", **extra: Any
    ) -> None:
        self.parts.append(
            f"<circle{_attrs(class_=cls, cx=_num(cx), cy=_num(cy), r=r, fill=fill, **extra)}>{tooltip(title)}</circle>"
        )

    def text(
        self,
        x: float,
        y: float,
        text: str,
        *,
        size: float = 11,
        anchor: str = "start",
        bold: bool = False,
        rotate: bool = False,
        cls: str | None = None,
        fill: str = INK,
        italic: bool = False,
    ) -> None:
        a = _attrs(
            class_=cls,
            x=_num(x),
            y=_num(y),
            font_size=size,
            text_anchor=anchor,
            fill=fill,
            font_weight="bold" if bold else None,
            font_style="italic" if italic else None,
            transform=f"rotate(-90 {_num(x)} {_num(y)})" if rotate else None,
        )
        self.parts.append(f"<text{a}>{escape(text)}</text>")

    def title(self, lines: Sequence[str]) -> float:
        """Centred title lines at the top; returns the y below them."""
        y = 18.0
        for i, line in enumerate(lines):
            self.text(
                self.width / 2,
                y,
                line,
                size=13 if i == 0 else 11,
                anchor="middle",
                bold=i == 0,
                cls="ptitle" if i == 0 else "subtitle",
            )
            y += 16
        return y

    def legend(self, x: float, y: float, entries: Sequence[tuple[str, str]]) -> None:
        for colour, label in entries:
            self.rect(x, y - 9, 10, 10, colour, rx=2)
            self.text(x + 14, y, label, size=10, cls="legend")
            x += 22 + 6.2 * len(label)

    def markup(self, *, standalone: bool = False) -> str:
        """The ``<svg>`` element; ``standalone`` (a file of its own) adds the namespace, a font and
        a white background."""
        if standalone:  # a margin of 10 px around the drawing
            w, h = self.width + 20, self.height + 20
            head = (
                f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" viewBox="-10 -10 {w:.0f} '
                f'{h:.0f}" font-family="{FONT}">'
            )
            body = f'<rect x="-10" y="-10" width="{w:.0f}" height="{h:.0f}" fill="white"/>\n' + "\n".join(self.parts)
        else:
            size = (
                f'width="{self.width:.0f}" height="{self.height:.0f}" viewBox="0 0 {self.width:.0f} {self.height:.0f}"'
            )
            head = f'<svg{_attrs(class_=self.cls)} {size} role="img"{_attrs(aria_label=self.label)}>'
            body = "\n".join(self.parts)
        return f"{head}\n{body}\n</svg>\n"

    def save(self, path: Path) -> Path:
        return write_atomic(path, self.markup(standalone=True))
