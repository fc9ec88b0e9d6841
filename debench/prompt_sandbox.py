"""The sandboxed Jinja2 environment task prompts are rendered in, and the syntax check task files
get. Task templates are data: Jinja's immutable sandbox refuses unsafe attributes and mutation, and
without a loader a template can include no file. (The HTML pages' templates are
``debench/templates/``, rendered by ``debench.pages``.)

A template is also bounded (docs/errors.md, "Ceilings"): its ``range`` calls together yield at
most ``MAX_RANGE_ITEMS`` numbers per rendering, a text or list repeated with ``*`` (or a power
``**``) may not exceed ``MAX_OUTPUT_CHARS``, and a rendering stops past ``MAX_OUTPUT_CHARS``
characters or ``MAX_RENDER_S`` seconds. Past a bound the rendering raises ``TemplateBoundError``
(a ``UserError``: one line, exit code 2) instead of holding the machine."""

from __future__ import annotations

import time
from contextvars import ContextVar
from functools import lru_cache
from typing import Any

from jinja2 import StrictUndefined, Template, TemplateSyntaxError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from debench.errors import UserError

MAX_RANGE_ITEMS = 100_000
MAX_OUTPUT_CHARS = 2_000_000
MAX_RENDER_S = 5.0
MAX_EXPONENT = 1000


class TemplateBoundError(UserError):
    """A prompt template went past one of the sandbox's bounds."""


_range_used: ContextVar[int] = ContextVar("range_used", default=0)


def _bounded_range(*args: int) -> range:
    numbers = range(*args)
    used = _range_used.get() + len(numbers)
    if used > MAX_RANGE_ITEMS:
        raise TemplateBoundError(f"the prompt template's range() calls yield more than {MAX_RANGE_ITEMS} numbers")
    _range_used.set(used)
    return numbers


def _size(value: Any) -> int | None:
    return len(value) if isinstance(value, (str, list, tuple)) else None


class BoundedSandbox(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                size = _size(seq)
                if size is not None and isinstance(times, int) and size * times > MAX_OUTPUT_CHARS:
                    raise TemplateBoundError(f"the prompt template repeats a value past {MAX_OUTPUT_CHARS} items")
        if operator == "**" and isinstance(right, (int, float)) and abs(right) > MAX_EXPONENT:
            raise TemplateBoundError(f"the prompt template raises a number to a power above {MAX_EXPONENT}")
        return super().call_binop(context, operator, left, right)


ENV = BoundedSandbox(undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False)
ENV.globals["range"] = _bounded_range


def check_template(text: str) -> str | None:
    """An error message if ``text`` is not a valid template, else None."""
    try:
        ENV.parse(text)
    except TemplateSyntaxError as exc:
        return f"template syntax error at line {exc.lineno}: {exc.message}"
    return None


@lru_cache(maxsize=256)
def compiled(text: str) -> Template:
    return ENV.from_string(text)


def render(text: str, context: dict[str, Any]) -> str:
    """``text`` rendered with ``context`` within the bounds above."""
    token = _range_used.set(0)
    try:
        parts: list[str] = []
        size = 0
        stop_at = time.monotonic() + MAX_RENDER_S
        for chunk in compiled(text).generate(**context):
            parts.append(chunk)
            size += len(chunk)
            if size > MAX_OUTPUT_CHARS:
                raise TemplateBoundError(f"the prompt template renders more than {MAX_OUTPUT_CHARS} characters")
            if time.monotonic() > stop_at:
                raise TemplateBoundError(f"the prompt template takes more than {MAX_RENDER_S:g} s to render")
        return "".join(parts)
    except RecursionError:
        raise TemplateBoundError("the prompt template recurses too deeply") from None
    finally:
        _range_used.reset(token)
