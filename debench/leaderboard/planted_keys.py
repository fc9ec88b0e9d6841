"""Refusing a submission that carries a key: a string shaped like a provider's API key, anywhere
(also with spaces inside it or base64-encoded), or a secret-looking value under a key / token /
secret / password name (``identity.extra.api_key`` …), wherever it sits.

debench redacts keys from everything it writes, so a key in a submission was put there by hand or
by a model echoing one; either way it must not be published. The refusal names the file, the line
(samples logs) and the field, and shows only the key's first characters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from debench.errors import UserError
from debench.redact import find_key_shaped, secret_under_name


def _find(value: Any, where: list[str]) -> tuple[str, str, str] | None:
    """(dotted field, what it looks like, masked excerpt) of the first key in ``value``."""
    if isinstance(value, str):
        shape = find_key_shaped(value)
        return (".".join(where), f"a {shape[0]} API key", shape[1]) if shape else None
    if isinstance(value, dict):
        for k, v in value.items():
            name = str(k)
            if secret_under_name(name, v):
                return ".".join([*where, name]), f"a secret (a {len(v)}-character value under the name '{name}')", v[:3] + "…"
            hit = _find(name, [*where, name]) or _find(v, [*where, name])
            if hit:
                return hit
    elif isinstance(value, list):
        for i, v in enumerate(value):
            hit = _find(v, [*where, str(i)])
            if hit:
                return hit
    return None


def refuse_planted_keys(value: Any, path: Path, *, line: int | None = None) -> None:
    """Raise ``UserError`` naming the file, line and field when ``value`` holds a key."""
    hit = _find(value, [])
    if hit is None:
        return
    field, what, excerpt = hit
    at = f"line {line}: " if line is not None else ""
    raise UserError(
        f"{at}holds a string shaped like {what} ({excerpt}); a submission must carry no key: remove it and resubmit",
        path=str(path),
        field=field or None,
    )
