"""Writing a whole file so that readers see the old version or the new one, never half of it."""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tempfile
from pathlib import Path
from typing import Any

from debench.core.errors import UserError


def write_atomic(path: Path, data: str | bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file beside it, then rename it into place.

    Only a regular file is ever replaced: a FIFO, a device (``/dev/full``), a socket or a folder at
    ``path`` is a one-line refusal, and stays what it is.

    The temporary file's name is unique (``tempfile.mkstemp`` in the destination folder): two
    processes writing the same file at once (two runs of one eval sharing an output folder) each
    rename their own whole file into place, and the last one wins; neither finds its temporary
    file gone. A folder that cannot be created or written is a user error (one line, exit code 2).
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    check_replaceable(path)
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide a results file from the user's other tools
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise UserError(f"cannot write the file ({exc.strerror or type(exc).__name__})", path=str(path)) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return path


def check_replaceable(path: Path) -> None:
    """``path`` holds nothing, or a regular file that may be replaced; a FIFO, a device, a socket
    or a folder there is a one-line ``UserError`` (a command checks its ``--output`` with it before
    it starts, and ``write_atomic`` before it writes)."""
    try:
        st = os.stat(path)
    except OSError:
        return  # nothing there (or a dangling link): the file is created
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file (a FIFO, a device or a socket)"
        raise UserError(
            f"cannot write the file: {kind} is there, and debench replaces only a regular file", path=str(path)
        )


def write_json_record(path: Path, document: Any) -> Path:
    """A results file, report or metadata file: a pydantic model or a JSON-able value, with every
    secret masked (``debench.core.redact``: the one redaction step for what debench records), written
    atomically."""
    from debench.core.redact import Redactor

    data = document.model_dump(mode="json") if hasattr(document, "model_dump") else document
    return write_atomic(path, json.dumps(Redactor().value(data), indent=2, ensure_ascii=False) + "\n")
