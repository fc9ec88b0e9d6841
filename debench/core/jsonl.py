"""Reading user-supplied JSONL files (predictions, a generic data set's records, a submission's
samples log): one object per line, read line by line through ``debench.core.user_files`` (a
regular file, within its ceilings; each line parsed by jiter, a key given twice refused), every
problem one line naming the file and the line (exit code 2)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from debench.core.ceilings import MAX_TABLE_BYTES
from debench.core.errors import UserError
from debench.core.user_files import BOM, Kind, parse_json, read_lines


def iter_jsonl_objects(
    path: Path, what: str, *, lines: Iterable[tuple[int, bytes]] | None = None, error: type[UserError] = UserError
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line of ``path`` (the ``what`` file): a line that
    is not UTF-8, not JSON, or not a JSON object is an ``error`` (a ``UserError``) naming the file
    and the line. ``lines`` gives the numbered lines instead of opening the file
    (``debench.leaderboard.files`` reads a submission's with size caps and without following links)."""
    if lines is None:
        kind = Kind(f"{what} file", MAX_TABLE_BYTES, error)
        lines = ((line.number, line.data) for line in read_lines(path, kind))
    for n, raw in lines:
        line = (raw[len(BOM) :] if n == 1 and raw.startswith(BOM) else raw).rstrip()
        if not line:
            continue
        obj = parse_json(line, path, error, at=f"line {n}")
        if not isinstance(obj, dict):
            raise error(f"line {n}: expected a JSON object", path=str(path))
        yield n, obj
