"""Writing a whole file so that readers see the old version or the new one, never half of it."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from debench.errors import UserError


def write_atomic(path: Path, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file beside it, then rename it into place.

    A folder that cannot be created or written is a user error (one line, exit code 2).
    """
    path = Path(path)
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, str):
            tmp.write_text(data, encoding="utf-8")
        else:
            tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError as exc:
        raise UserError(f"cannot write the file ({exc.strerror or type(exc).__name__})", path=str(path)) from None
    return path


def write_json_record(path: Path, document: Any) -> Path:
    """A results file, report or metadata file: a pydantic model or a JSON-able value, with every
    secret masked (``debench.redact``: the one redaction step for what debench records), written
    atomically."""
    from debench.redact import Redactor

    data = document.model_dump(mode="json") if hasattr(document, "model_dump") else document
    return write_atomic(path, json.dumps(Redactor().value(data), indent=2, ensure_ascii=False) + "\n")
