"""Reading user-supplied JSONL files (predictions, a generic data set's records, a submission's
samples log) through ``jsonlines``: one object per line, read line by line (bounded memory), every
problem one line naming the file and the line (exit code 2)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from debench.core.errors import UserError


class _Numbered:
    """The lines handed to ``jsonlines.Reader``, remembering the number of the last one given out
    (the reader skips blank lines and reports a number only with an error)."""

    def __init__(self, lines: Iterable[tuple[int, bytes]]):
        self._lines = lines
        self.n = 0

    def __iter__(self) -> Iterator[bytes]:
        for n, line in self._lines:
            self.n = n
            yield line


def _file_lines(path: Path, what: str, error: type[UserError]) -> Iterator[tuple[int, bytes]]:
    try:
        fh = open(path, "rb")  # noqa: SIM115 - closed below, after the last line is read
    except FileNotFoundError:
        raise error(f"{what} file not found", path=str(path)) from None
    except OSError as exc:
        raise error(f"cannot read {what} ({exc.strerror or exc.__class__.__name__})", path=str(path)) from None
    with fh:
        yield from enumerate(fh, start=1)


def iter_jsonl_objects(
    path: Path, what: str, *, lines: Iterable[tuple[int, bytes]] | None = None, error: type[UserError] = UserError
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, object) for each non-blank line of ``path``: a line that is not UTF-8, not
    JSON, or not a JSON object is an ``error`` (a ``UserError``) naming the file and the line.
    ``lines`` gives the numbered lines instead of opening the file (``debench.leaderboard.files``
    reads a submission's with size caps and without following links)."""
    import jsonlines

    numbered = _Numbered(lines if lines is not None else _file_lines(Path(path), what, error))
    reader = jsonlines.Reader(numbered, loads=json.loads)
    while True:
        try:
            obj = reader.read(skip_empty=True, allow_none=True)
        except EOFError:
            return
        except jsonlines.InvalidLineError as exc:
            cause = exc.__cause__
            why = (
                "not UTF-8 text"
                if isinstance(cause, UnicodeDecodeError)
                else "not valid JSON" + (f" ({cause.msg})" if isinstance(cause, json.JSONDecodeError) else "")
            )
            raise error(f"line {numbered.n}: {why}", path=str(path)) from None
        if not isinstance(obj, dict):
            raise error(f"line {numbered.n}: expected a JSON object", path=str(path))
        yield numbered.n, obj
