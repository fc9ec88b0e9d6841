"""Named post-processing of a matched answer (task files refer to them by name).

Each transform turns the regex match into a value, or raises ``ParseFailure``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from debench.core.registries import Registry


class ParseFailure(ValueError):
    """The answer does not hold a valid prediction."""


Transform = Callable[[re.Match[str], dict[str, Any]], Any]
TRANSFORMS: Registry[Transform] = Registry("transform")
register_transform = TRANSFORMS.register


def compare_scores(a: float, b: float, args: dict[str, Any]) -> str:
    """Two sides' scores -> the side with the higher score (``labels``, default ``[pro, con]``);
    a difference within ``tie_band`` (default 0) is a tie (``tie``, default "tie"); scores outside
    ``range`` (default [1, 10]) are a ``ParseFailure``. The one score comparison of debench: the
    ``*_scores`` tasks' answers and Debatrix's score verdict."""
    labels = args.get("labels", ["pro", "con"])
    band = float(args.get("tie_band", 0))
    lo, hi = args.get("range", [1, 10])
    if not (lo <= a <= hi and lo <= b <= hi):
        raise ParseFailure(f"scores outside {lo}-{hi}")
    if abs(a - b) <= band:
        return str(args.get("tie", "tie"))
    return str(labels[0] if a > b else labels[1])


@register_transform("compare_scores")
def _compare_scores(m: re.Match[str], args: dict[str, Any]) -> str:
    """Two numbers (groups ``first``/``second`` or 1/2) -> ``compare_scores``."""
    try:
        a, b = float(m.group(1)), float(m.group(2))
    except (IndexError, TypeError, ValueError):
        raise ParseFailure("expected two scores") from None
    return compare_scores(a, b, args)


def group_read(name: str, args: dict[str, Any]) -> tuple[Any, str]:
    """The highest group of its match the transform ``name`` reads, and the field that says so:
    groups 1 and 2 for ``compare_scores`` and ``number_pair``, ``transform_args.group`` (default 1)
    for ``json`` and ``split_list``; (0, ...) for another transform (the whole match is always there)."""
    if name in ("compare_scores", "number_pair"):
        return 2, "transform"
    if name in ("json", "split_list"):
        return args.get("group", 1), "transform_args.group"
    return 0, "transform"


@register_transform("json")
def _json(m: re.Match[str], args: dict[str, Any]) -> Any:
    """The matched group parsed as JSON (lists of houses, role->score objects)."""
    try:
        return json.loads(m.group(args.get("group", 1)))
    except json.JSONDecodeError:
        raise ParseFailure("matched text is not valid JSON") from None


@register_transform("split_list")
def _split_list(m: re.Match[str], args: dict[str, Any]) -> list[str]:
    """A delimited list such as ``OG > CG > OO > CO`` -> ``["OG", "CG", "OO", "CO"]``."""
    sep = args.get("separator", r"[>,;\s]+")
    parts = [p for p in re.split(sep, m.group(args.get("group", 1))) if p.strip()]
    return [p.strip() for p in parts]


@register_transform("number_pair")
def _number_pair(m: re.Match[str], args: dict[str, Any]) -> dict[str, float]:
    """Groups 1 and 2 as numbers under the names in ``keys`` (e.g. two sides' scores)."""
    keys = args.get("keys", ["first", "second"])
    try:
        return {keys[0]: float(m.group(1)), keys[1]: float(m.group(2))}
    except (TypeError, ValueError, IndexError):
        raise ParseFailure("expected two numbers") from None
