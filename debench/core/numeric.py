"""Numbers as debench shows them (terminal tables, the run report, the leaderboard page, error
messages) and compares them (a submitted value against the one recomputed from its samples).

``fmt`` is the one formatter: ``—`` for an undefined value, then a format spec (``.4f`` in terminal
tables and the run report), or ``auto`` (3 decimals below 10, 2 below 100, 1 above: the leaderboard
page), with a typographic minus sign (−) on pages. ``fmt_ci`` and ``fmt_estimate`` write an interval
and a value with its interval through it.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

REL_TOL = 1e-9
ABS_TOL = 1e-9
"""A recomputed number equals a submitted one within these (``close``)."""


def fmt(x: float | None, spec: str = ".4f", *, typographic: bool = False) -> str:
    """A number as a table or a page shows it; ``—`` when it is undefined."""
    if x is None:
        return "—"
    if spec == "auto":
        ax = abs(x)
        spec = ".1f" if ax >= 100 else ".2f" if ax >= 10 else ".3f"
    text = format(x, spec)
    return text.replace("-", "−") if typographic else text


def fmt_ci(ci: Sequence[float] | None, spec: str = ".4f", *, none: str = "—") -> str:
    """``[lo, hi]``; ``none`` without an interval."""
    return none if not ci else f"[{fmt(ci[0], spec)}, {fmt(ci[1], spec)}]"


def fmt_estimate(value: float | None, ci: Sequence[float] | None, spec: str = ".2f") -> str:
    """``0.42 [0.31, 0.55]``: a value and its interval when it has one; ``—`` when undefined."""
    if value is None:
        return "—"
    return fmt(value, spec) + (f" {fmt_ci(ci, spec)}" if ci else "")


def shown(x: Any) -> str:
    """A value as an error message shows it (numbers to 10 significant digits, else JSON)."""
    return "null" if x is None else (f"{x:.10g}" if isinstance(x, float) else json.dumps(x))


def close(a: float | None, b: float | None) -> bool:
    """Equal numbers (within ``REL_TOL`` / ``ABS_TOL``), or both null."""
    if a is None or b is None:
        return a is None and b is None
    return math.isclose(a, b, rel_tol=REL_TOL, abs_tol=ABS_TOL)


def same(a: Any, b: Any) -> bool:
    """Equal JSON values, numbers compared with ``close``; a bool never equals a number."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return close(float(a), float(b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
