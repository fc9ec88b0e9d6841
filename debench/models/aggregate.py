"""Combining several judges' parsed predictions into one (Debatable Intelligence, appendix E).

``mean`` / ``median`` — numeric predictions (a Likert score, a score per speaker). For a task
whose answers are whole numbers (``parser.type: int``) the result is rounded to the nearest
whole number, halves to the even one (2.5 -> 2, 3.5 -> 4; unbiased over many documents), then
kept inside the task's choices, so agreement metrics that need categories (weighted kappa) see
an answer the task allows. The unrounded value is kept in the sample log. Objects of numbers
(speaker scores) are combined key by key, unrounded.

``majority`` — the most frequent prediction (labels, rankings compared whole, or numbers). Tie
rule: among the tied predictions, the one given by the member listed first in ``--model``
(list the judge you trust most first).

Only members whose answer parsed take part; when none did, the ensemble's answer is a parse
failure.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from debench.core.errors import UserError
from debench.task.config import TaskConfig

AGGREGATES = ("mean", "median", "majority")


def check_aggregate(name: str, task: TaskConfig) -> None:
    """A one-line error when ``name`` cannot combine this task's predictions."""
    if name not in AGGREGATES:
        raise UserError(f"unknown ensemble rule '{name}' (known: {', '.join(AGGREGATES)})", field="--ensemble")
    kind = task.parser.type
    if name in ("mean", "median") and kind not in ("int", "float", "dict"):
        raise UserError(
            f"{name} needs numeric predictions, but task '{task.name}' predicts {kind} values: use --ensemble majority",
            field="--ensemble",
        )
    if name == "majority" and kind == "dict":
        raise UserError(
            f"majority cannot vote on task '{task.name}''s score objects: use mean or median", field="--ensemble"
        )


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def majority(values: Sequence[Any]) -> Any:
    """Most frequent value; ties go to the earliest member's value among the tied."""
    counts = Counter(_key(v) for v in values)
    best = max(counts.values())
    return next(v for v in values if counts[_key(v)] == best)


def round_half_even(x: float) -> int:
    return round(x)


def _nearest_choice(x: float, choices: list[Any] | None) -> Any:
    value = round_half_even(x)
    numeric = sorted(c for c in choices or [] if isinstance(c, (int, float)) and not isinstance(c, bool))
    if not numeric:
        return value
    if value in numeric:
        return value
    return min(numeric, key=lambda c: (abs(c - value), c))


def combine(name: str, values: Sequence[Any], task: TaskConfig) -> tuple[Any, Any]:
    """(prediction, unrounded aggregate) of the parsed ``values`` (non-empty, member order)."""
    if name == "majority":
        v = majority(values)
        return v, v
    fn: Callable[[list[float]], float] = statistics.fmean if name == "mean" else statistics.median
    if task.parser.type == "dict":
        keys = list(values[0])
        raw = {k: float(fn([float(v[k]) for v in values])) for k in keys}
        return raw, raw
    raw_value = float(fn([float(v) for v in values]))
    if task.parser.type == "int":
        return _nearest_choice(raw_value, task.parser.choices), raw_value
    return raw_value, raw_value
