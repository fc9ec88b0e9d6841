"""The per-task answer parser: ordered regexes, a value map, allowed choices.

A parse never reads a verdict out of the prompt or the debate: it sees only the model's answer,
and with ``source`` (the debate text) any passage the answer quotes from the debate is blanked
first (see ``debench.task.quotes``). A failed parse returns ``ParseResult(ok=False)``; it is counted,
never scored as a wrong answer.

Patterns are task data, so a pattern may backtrack catastrophically (``^(a+)+$``): they run on the
``regex`` package (``re``'s syntax) with a time bound, ``MATCH_TIMEOUT_S`` per parse, on at most
``MAX_ANSWER_CHARS`` of the answer (its start when the parser takes the first match, its end when
it takes the last). A parse that runs out of time is a parse failure saying so, never a hang
(docs/errors.md, "Ceilings").
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import regex

from debench.task.config import ParserConfig
from debench.task.quotes import mask_quoted
from debench.task.transforms import TRANSFORMS, ParseFailure, group_read


@dataclass(frozen=True)
class ParseResult:
    ok: bool
    value: Any = None
    reason: str | None = None


MATCH_TIMEOUT_S = 1.0
"""Seconds one pattern may take on one answer."""
MAX_ANSWER_CHARS = 20_000
"""Characters of an answer the patterns see."""
_FLAGS = {"IGNORECASE": regex.IGNORECASE, "MULTILINE": regex.MULTILINE, "DOTALL": regex.DOTALL}


@lru_cache(maxsize=128)
def _compiled(patterns: tuple[str, ...], flags: tuple[str, ...]) -> tuple[Any, ...]:
    f = regex.VERSION0  # re's syntax and behaviour
    for name in flags:
        f |= _FLAGS[name]
    return tuple(regex.compile(p, f) for p in patterns)


def group_problem(cfg: ParserConfig) -> tuple[str, str] | None:
    """A group the parser reads that a pattern does not have (every answer would be a parse
    failure): (the field, why), or None. Checked when a task file is loaded."""
    need, field = group_read(cfg.transform, cfg.transform_args) if cfg.transform else (cfg.group, "group")
    if isinstance(need, bool) or not isinstance(need, (int, str)) or (isinstance(need, int) and need < 0):
        return field, f"{need!r} is not a group: a group is 0 (the whole match), 1, 2, ... or a group's name"
    for i, pattern in enumerate(_compiled(tuple(cfg.patterns), tuple(cfg.flags))):
        has = need in pattern.groupindex if isinstance(need, str) else need <= pattern.groups
        if not has:
            return field, (
                f"pattern {i} has {pattern.groups} group(s) and no group {need!r}: "
                "every answer would be a parse failure"
            )
    return None


def _convert(value: Any, type_: str) -> Any:
    if type_ == "int":
        f = float(value)
        if not f.is_integer():
            raise ParseFailure(f"{value!r} is not a whole number")
        return int(f)
    if type_ == "float":
        return float(value)
    if type_ == "str":
        return str(value).strip()
    return value


def _mapped(value: Any, mapping: dict[str, Any]) -> Any:
    if not mapping or not isinstance(value, str):
        return value
    key = value.strip().lower()
    for k, v in mapping.items():
        if k.strip().lower() == key:
            return v
    return value


def normalize_choice(value: Any, choices: list[Any]) -> Any:
    if value in choices:
        return value
    if isinstance(value, str):
        for c in choices:
            if isinstance(c, str) and c.lower() == value.lower():
                return c
    raise ParseFailure(f"{value!r} is not one of {choices}")


def check_shape(value: Any, cfg: ParserConfig) -> Any:
    """Choices, list length/uniqueness, object keys/ranges; raises ParseFailure; returns normalized."""
    if cfg.type == "list" and not isinstance(value, list):
        raise ParseFailure("expected a list")
    if cfg.type == "dict" and not isinstance(value, dict):
        raise ParseFailure("expected an object")
    if cfg.choices is not None and not isinstance(value, dict):
        value = (
            [normalize_choice(v, cfg.choices) for v in value]
            if isinstance(value, list)
            else normalize_choice(value, cfg.choices)
        )
    if isinstance(value, list):
        _check_list(value, cfg)
    if isinstance(value, dict):
        value = _checked_object(value, cfg)
    return value


def _check_list(value: list[Any], cfg: ParserConfig) -> None:
    """The list's length, and that no item repeats (compared as text), when the parser asks."""
    if cfg.length is not None and len(value) != cfg.length:
        raise ParseFailure(f"expected {cfg.length} items, got {len(value)}")
    if cfg.unique and len(set(map(str, value))) != len(value):
        raise ParseFailure("items repeat")


def _checked_object(value: dict[Any, Any], cfg: ParserConfig) -> dict[str, Any]:
    """The object with its keys stripped and lower-cased: exactly the parser's keys, each value a
    number in its range, when the parser asks."""
    value = {str(k).strip().lower(): v for k, v in value.items()}
    if cfg.keys is not None and set(value) != {k.lower() for k in cfg.keys}:
        missing = sorted({k.lower() for k in cfg.keys} - set(value))
        raise ParseFailure(f"keys differ from {cfg.keys}" + (f" (missing {missing})" if missing else ""))
    if cfg.value_range is not None:
        lo, hi = cfg.value_range
        for k, v in value.items():
            if isinstance(v, bool) or not isinstance(v, (int, float)) or not lo <= v <= hi:
                raise ParseFailure(f"{k}: {v!r} is not a number in [{lo}, {hi}]")
    return value


def parse_answer(text: str | None, cfg: ParserConfig, source: str | None = None) -> ParseResult:
    """Parse the model's answer ``text``. ``source``: the debate text the judge was shown; what
    the answer quotes from it is not read (a quoted "Winner: con" is not a verdict)."""
    if text is None or not text.strip():
        return ParseResult(ok=False, reason="empty answer")
    if source:
        own = mask_quoted(text, source)
        result = _parse(own, cfg)
        if not result.ok and result.reason == "no pattern matched" and own != text and _parse(text, cfg).ok:
            return ParseResult(ok=False, reason="the only answer found is quoted from the debate text")
        return result
    return _parse(text, cfg)


def _parse(text: str, cfg: ParserConfig) -> ParseResult:
    if len(text) > MAX_ANSWER_CHARS:
        text = text[:MAX_ANSWER_CHARS] if cfg.match == "first" else text[-MAX_ANSWER_CHARS:]
    for i, pattern in enumerate(_compiled(tuple(cfg.patterns), tuple(cfg.flags))):
        try:
            matches = list(pattern.finditer(text, timeout=MATCH_TIMEOUT_S))
        except TimeoutError:
            return ParseResult(
                ok=False,
                reason=f"parser pattern {i} ran out of its {MATCH_TIMEOUT_S:g} s time bound on this "
                "answer (it backtracks too much)",
            )
        if not matches:
            continue
        m = matches[0] if cfg.match == "first" else matches[-1]
        try:
            if cfg.transform:
                value = TRANSFORMS.get(cfg.transform)(m, cfg.transform_args)
            else:
                value = m.group(cfg.group)
                value = _mapped(value, cfg.map)
                value = _convert(value, cfg.type)
            if isinstance(value, list) and cfg.map:
                value = [_mapped(v, cfg.map) for v in value]
            value = check_shape(value, cfg)
        except (ParseFailure, ValueError, TypeError, IndexError) as exc:
            return ParseResult(ok=False, reason=str(exc))
        return ParseResult(ok=True, value=value)
    return ParseResult(ok=False, reason="no pattern matched")
