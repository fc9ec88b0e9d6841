"""Reading user-supplied JSONL files: line numbers in every error, one line each, exit code 2."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from debench.errors import UserError


def iter_jsonl_objects(path: Path, what: str) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line; malformed lines are UserErrors."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise UserError(f"{what} file not found", path=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read {what} ({exc.__class__.__name__})", path=str(path)) from None
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise UserError(f"line {n}: not valid JSON ({exc.msg})", path=str(path)) from None
        if not isinstance(obj, dict):
            raise UserError(f"line {n}: expected a JSON object", path=str(path))
        yield n, obj
