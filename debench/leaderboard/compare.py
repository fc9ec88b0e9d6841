"""Comparing a submitted value with the one debench recomputes (floats within a tight tolerance)."""

from __future__ import annotations

import json
import math
from typing import Any

REL_TOL = 1e-9
ABS_TOL = 1e-9


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
    return a == b


def shown(x: Any) -> str:
    """A value as an error message shows it."""
    return "null" if x is None else (f"{x:.10g}" if isinstance(x, float) else json.dumps(x))
