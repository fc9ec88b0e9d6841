"""The sandboxed Jinja2 environment task prompts are rendered in, and the syntax check task files
get. Task templates are data: Jinja's immutable sandbox refuses unsafe attributes and mutation, and
without a loader a template can include no file. (The HTML pages' templates are
``debench/templates/``, rendered by ``debench.pages``.)"""

from __future__ import annotations

from functools import lru_cache

from jinja2 import StrictUndefined, Template, TemplateSyntaxError
from jinja2.sandbox import ImmutableSandboxedEnvironment

ENV = ImmutableSandboxedEnvironment(undefined=StrictUndefined, keep_trailing_newline=False, autoescape=False)


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
