"""Refusing a submission that carries a string shaped like a provider's API key.

debench redacts keys from everything it writes, so a key-shaped string in a submission was put
there by hand or by a model echoing one; either way it must not be published. The refusal names
the file, the line (samples logs) and the field, and shows only the key's first characters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from debench.errors import UserError
from debench.redact import find_key_shaped


def _find(value: Any, where: list[str]) -> tuple[str, str, str] | None:
    """(dotted field, provider, masked excerpt) of the first key-shaped string in ``value``."""
    if isinstance(value, str):
        shape = find_key_shaped(value)
        return (".".join(where), shape[0], shape[1]) if shape else None
    if isinstance(value, dict):
        for k, v in value.items():
            hit = _find(str(k), [*where, str(k)]) or _find(v, [*where, str(k)])
            if hit:
                return hit
    elif isinstance(value, list):
        for i, v in enumerate(value):
            hit = _find(v, [*where, str(i)])
            if hit:
                return hit
    return None


def refuse_planted_keys(value: Any, path: Path, *, line: int | None = None) -> None:
    """Raise ``UserError`` naming the file, line and field when ``value`` holds a key-shaped string."""
    hit = _find(value, [])
    if hit is None:
        return
    field, provider, excerpt = hit
    at = f"line {line}: " if line is not None else ""
    raise UserError(
        f"{at}holds a string shaped like a {provider} API key ({excerpt}); a submission must carry no key: remove it and resubmit",
        path=str(path),
        field=field or None,
    )
