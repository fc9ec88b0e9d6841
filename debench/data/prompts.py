"""Prompt building: task templates (sandboxed Jinja2) + a document -> chat messages."""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Any

from jinja2 import TemplateError, UndefinedError

from debench.core.errors import UserError
from debench.data.base import Doc
from debench.task.bounded_render import render as render_bounded
from debench.task.prompt_sandbox import TemplateBoundError

Message = dict[str, str]


def template_context(doc: Doc, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    ctx: dict[str, Any] = dict(doc.fields)
    ctx["doc_id"] = doc.doc_id
    ctx["speeches"] = [s.model_dump() for s in doc.speeches]
    ctx["meta"] = dict(doc.meta)
    if extra:
        ctx.update(extra)
    return ctx


def render(text: str, doc: Doc, extra: dict[str, Any] | None = None) -> str:
    return render_bounded(text, template_context(doc, extra)).strip()


def build_messages(system: str | None, user: str, doc: Doc, extra: dict[str, Any] | None = None) -> list[Message]:
    ctx = template_context(doc, extra)  # once for both templates: it copies the speeches
    messages: list[Message] = []
    if system:
        messages.append({"role": "system", "content": _rendered(system, ctx)})
    messages.append({"role": "user", "content": _rendered(user, ctx)})
    return messages


def _rendered(text: str, ctx: dict[str, Any]) -> str:
    """``text`` rendered and stripped; a template without ``{`` (no Jinja tag: the same text for
    every document, a system prompt's usual case) is rendered once."""
    return _constant(text) if "{" not in text else render_bounded(text, ctx).strip()


@lru_cache(maxsize=64)
def _constant(text: str) -> str:
    return render_bounded(text, {}).strip()


def messages_sha256(messages: list[Message]) -> str:
    """A hash of the exact messages a model was asked (what a multi-step record keeps of each prompt,
    so that validation can re-render it and compare)."""
    return hashlib.sha256(json.dumps(messages, ensure_ascii=False, separators=(",", ":")).encode("utf-8")).hexdigest()


def check_templates(task: Any, task_path: Any, doc: Doc) -> None:
    """Render the task's templates against ``doc``; an undefined variable (or any other template
    error) is a ``UserError`` naming the task file, the template and the variable."""
    fields = sorted({*doc.fields, "doc_id", "speeches", "meta", *task.prompt.variables})
    for key in ("system", "user"):
        text = getattr(task.prompt, key)
        if not text:
            continue
        try:
            render(text, doc, task.prompt.variables)
        except TemplateBoundError as exc:
            raise UserError(str(exc), path=str(task_path), field=f"prompt.{key}") from None
        except UndefinedError as exc:
            raise UserError(
                f"{exc.message or exc} in document '{doc.doc_id}' (variables: {', '.join(fields)})",
                path=str(task_path),
                field=f"prompt.{key}",
            ) from None
        except (TemplateError, TypeError, ValueError, ArithmeticError) as exc:
            raise UserError(
                f"the template cannot be rendered: {type(exc).__name__}: {exc}",
                path=str(task_path),
                field=f"prompt.{key}",
            ) from None
