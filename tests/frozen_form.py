"""How ``tests/frozen_outputs.py`` freezes an output: plain JSON, without what changes from one run to
the next (the time, package versions, temporary folders), a long text as its length and SHA-256."""

from __future__ import annotations

import dataclasses
import hashlib
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from debench.core.errors import UserError
from debench.core.paths import portable_path
from debench.task.transforms import ParseFailure

LONG = 400
"""Texts longer than this are frozen as their length and SHA-256."""
VARYING = frozenset({"created_at", "versions", "elapsed_s", "duration_s"})
"""Keys whose values change from one run to the next."""


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def frozen_form(value: Any, replace: dict[str, str] | None = None) -> Any:
    """``value`` as plain JSON: run-dependent strings replaced, long texts as length and hash,
    keys in ``VARYING`` left out."""
    replace = replace or {}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        value = dataclasses.asdict(value)
    if hasattr(value, "model_dump"):
        value = value.model_dump(mode="json")
    if isinstance(value, dict):
        return {str(k): frozen_form(v, replace) for k, v in value.items() if k not in VARYING}
    if isinstance(value, (list, tuple)):
        return [frozen_form(v, replace) for v in value]
    if isinstance(value, Path):
        value = str(value)
    if isinstance(value, str):
        for old, new in replace.items():
            value = value.replace(old, new)
        return value if len(value) <= LONG else f"<{len(value)} chars, sha256 {sha(value)}>"
    if hasattr(value, "item"):  # a numpy scalar
        return value.item()
    return value


def failure(fn: Callable[[], Any]) -> Any:
    """``fn()``, or the message of the ``ParseFailure`` / ``UserError`` it raises."""
    try:
        return fn()
    except (ParseFailure, UserError) as exc:
        return {"raises": f"{type(exc).__name__}: {exc}"}


@contextmanager
def temporary_folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="debench-frozen-") as d:
        yield Path(d)


def places(**folders: Path) -> dict[str, str]:
    """Each folder, as written and as a recorded file shows it (relative to here) -> ``<name>``."""
    out = {portable_path(str(path)): f"<{name}>" for name, path in folders.items()}
    return {**out, **{str(path): f"<{name}>" for name, path in folders.items()}}


def ok(proc: Any) -> None:
    assert proc.returncode == 0, proc.stderr
