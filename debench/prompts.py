"""Prompt building: task templates (sandboxed Jinja2) + a document -> chat messages."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from jinja2 import StrictUndefined, TemplateSyntaxError
from jinja2.sandbox import ImmutableSandboxedEnvironment

from debench.data.base import Doc

Message = dict[str, str]

_ENV = ImmutableSandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False)


def check_template(text: str) -> str | None:
    """Return an error message if ``text`` is not a valid template, else None."""
    try:
        _ENV.parse(text)
    except TemplateSyntaxError as exc:
        return f"template syntax error at line {exc.lineno}: {exc.message}"
    return None


@lru_cache(maxsize=256)
def _compile(text: str):  # type: ignore[no-untyped-def]
    return _ENV.from_string(text)


def template_context(doc: Doc, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    ctx: dict[str, Any] = dict(doc.fields)
    ctx["doc_id"] = doc.doc_id
    ctx["speeches"] = [s.model_dump() for s in doc.speeches]
    ctx["meta"] = dict(doc.meta)
    if extra:
        ctx.update(extra)
    return ctx


def render(text: str, doc: Doc, extra: dict[str, Any] | None = None) -> str:
    return _compile(text).render(**template_context(doc, extra)).strip()


def build_messages(system: str | None, user: str, doc: Doc, extra: dict[str, Any] | None = None) -> list[Message]:
    messages: list[Message] = []
    if system:
        messages.append({"role": "system", "content": render(system, doc, extra)})
    messages.append({"role": "user", "content": render(user, doc, extra)})
    return messages
