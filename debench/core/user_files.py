"""The one reader of every file a user points debench at: task files and the files they include,
prompt files and judging manuals, topics, reference rankings, predictions, judgments, results files,
samples logs and data files. Whatever a path names, it is read within bounds (docs/errors.md,
"Ceilings"):

* **regular files only**: a FIFO, a device, a socket or a folder is refused in one line. The path
  is checked with ``os.stat`` before it is opened, opened with ``O_NONBLOCK`` (a file swapped for a
  FIFO in between cannot block the open) and checked again on the open descriptor;
* **a size ceiling per kind of file** (``Kind``), checked before reading and while reading (a file
  that grows), and a ceiling on each line of a file read line by line;
* **UTF-8 text**; a byte-order mark at the start of a file is accepted, and left out, everywhere;
* **YAML** with no alias (a few hundred bytes of aliases of aliases expand to gigabytes), no key
  given twice in a mapping, at most ``MAX_NESTING`` levels deep, checked on the parsed nodes before
  any value is built;
* **JSON** (jiter, the parser pydantic uses) with no key given twice in an object, at most
  ``MAX_NESTING`` levels deep.

Every problem is one ``UserError`` (or the kind's subclass of it) naming the file, and the line
and the field where there is one.
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import chain
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from debench.core.ceilings import (
    MAX_LINE_BYTES,
    MAX_NESTING,
    MAX_RESULTS_BYTES,
    MAX_TABLE_BYTES,
    MAX_TASK_FILE_BYTES,
    MAX_TEXT_FILE_BYTES,
)
from debench.core.errors import DataError, UserError

BOM = b"\xef\xbb\xbf"
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # POSIX; elsewhere a FIFO cannot be named like a file


@dataclass(frozen=True)
class Kind:
    """A kind of file: what messages call it, its ceilings, and the class of its refusals."""

    what: str
    max_bytes: int
    error: type[UserError] = UserError
    max_line: int = MAX_LINE_BYTES

    def refuse(self, path: Path | str, message: str, field: str | None = None) -> UserError:
        return self.error(message, path=str(path), field=field)


TASK_FILE = Kind("task file", MAX_TASK_FILE_BYTES)
PROMPT_FILE = Kind("prompt file", MAX_TEXT_FILE_BYTES)
JUDGING_MANUAL = Kind("judging manual", MAX_TEXT_FILE_BYTES)
TOPICS_FILE = Kind("topics file", MAX_TEXT_FILE_BYTES)
REFERENCE_RANKING = Kind("reference ranking", MAX_TEXT_FILE_BYTES)
RESULTS_FILE = Kind("results file", MAX_RESULTS_BYTES)
RUN_CONFIG = Kind("run configuration", MAX_RESULTS_BYTES)
"""An arena run's ``arena_config.json``."""
LOG = Kind("log", MAX_TABLE_BYTES)
"""A log debench writes (a samples log, an arena run's debates): read line by line."""
JUDGMENTS_FILE = Kind("judgments file", MAX_TABLE_BYTES)
DATA_FILE = Kind("data file", MAX_TABLE_BYTES, DataError)
"""A data set's table: a generic task's JSONL, CSV or Parquet file, a published CSV, workbook or archive."""
DEBATE_FILE = Kind("data file", MAX_TEXT_FILE_BYTES, DataError)
"""One debate's file of a published data set (a PanelBench YAML file, a DebateBench transcript)."""


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def _file_type(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISFIFO, "a FIFO (a named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def _checked(st: os.stat_result, path: Path | str, kind: Kind) -> int:
    """The size of a regular file within the kind's ceiling; a refusal otherwise."""
    if not stat.S_ISREG(st.st_mode):
        raise kind.refuse(path, f"the {kind.what} is {_file_type(st.st_mode)}, not a regular file")
    if st.st_size > kind.max_bytes:
        raise kind.refuse(
            path,
            f"the {kind.what} is {st.st_size:,} bytes, above the ceiling of {kind.max_bytes:,} bytes "
            f"for a {kind.what} (docs/errors.md, Ceilings)",
        )
    return st.st_size


def check_regular(path: Path | str, kind: Kind) -> int:
    """The size of ``path``, a regular file within the kind's ceiling (for a library that opens
    the file itself); a one-line refusal otherwise."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise kind.refuse(path, f"{kind.what} not found") from None
    except OSError as exc:
        raise kind.refuse(path, f"cannot read the {kind.what} ({_why(exc)})") from None
    return _checked(st, path, kind)


def _open(path: Path | str, kind: Kind) -> tuple[BinaryIO, int]:
    """``path`` opened for reading in binary once it is known to be a regular file within the kind's
    ceiling, and its size (checked again on the open file: not a FIFO put in its place)."""
    check_regular(path, kind)
    try:
        fd = os.open(path, os.O_RDONLY | _NONBLOCK)
    except OSError as exc:
        raise kind.refuse(path, f"cannot read the {kind.what} ({_why(exc)})") from None
    fh = os.fdopen(fd, "rb")
    try:
        return fh, _checked(os.fstat(fd), path, kind)
    except UserError:
        fh.close()
        raise


@contextmanager
def open_bounded(path: Path | str, kind: Kind) -> Iterator[BinaryIO]:
    """``path`` opened for reading in binary, once it is known to be a regular file within the
    kind's ceiling (the size is checked again on the open file)."""
    fh, _ = _open(path, kind)
    with fh:
        yield fh


def _grew(path: Path | str, kind: Kind) -> UserError:
    return kind.refuse(path, f"the {kind.what} grew above the ceiling of {kind.max_bytes:,} bytes while it was read")


def read_bytes(path: Path | str, kind: Kind) -> bytes:
    """The whole file, a byte-order mark at its start left out. Read in one call of its size (a
    file that grows meanwhile is read on, to its ceiling)."""
    fh, size = _open(path, kind)
    with fh:
        try:
            data = fh.read(size + 1)
            if len(data) > size:
                data += fh.read(kind.max_bytes + 1 - len(data))
        except OSError as exc:
            raise kind.refuse(path, f"cannot read the {kind.what} ({_why(exc)})") from None
    if len(data) > kind.max_bytes:
        raise _grew(path, kind)
    return data[len(BOM) :] if data.startswith(BOM) else data


def read_text(path: Path | str, kind: Kind) -> str:
    """The whole file as UTF-8 text (a byte-order mark at its start left out)."""
    data = read_bytes(path, kind)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise kind.refuse(path, f"line {line}: not UTF-8 text") from None


class Line(NamedTuple):
    number: int
    """Counting every line of the file from 1 (from ``start`` when reading from an offset)."""
    offset: int
    """Where the line starts in the file."""
    data: bytes
    """The line, with its newline when it has one (a file's last line may have none)."""


def read_lines(path: Path | str, kind: Kind, start: int = 0) -> Iterator[Line]:
    """The lines of a file from byte ``start``, one at a time (memory bounded by the longest line,
    at most ``kind.max_line``); a byte-order mark at the start of the file is left out."""
    with open_bounded(path, kind) as fh:
        fh.seek(start)
        number, offset = 0, start
        while True:
            try:
                data = fh.readline(kind.max_line + 1)
            except OSError as exc:
                raise kind.refuse(path, f"cannot read the {kind.what} ({_why(exc)})") from None
            if not data:
                return
            number += 1
            if len(data) > kind.max_line:
                raise kind.refuse(
                    path, f"line {number} is longer than {kind.max_line:,} bytes, the ceiling of one line"
                )
            if offset == 0 and data.startswith(BOM):
                data, offset = data[len(BOM) :], len(BOM)
            yield Line(number, offset, data)
            offset += len(data)
            if offset > kind.max_bytes:
                raise _grew(path, kind)


# -- YAML ------------------------------------------------------------------------------------------


def _safe_loader() -> Any:
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's (~20-30x faster, the same values)


def parse_yaml(text: str, path: Path | str, error: type[UserError] = UserError) -> Any:
    """A YAML document's value, built only once its nodes are checked (``check_yaml_nodes``):
    ``yaml.safe_load`` otherwise. Any problem is one ``error`` naming the file and the line."""
    import yaml

    loader = _safe_loader()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        check_yaml_nodes(node, path, error)
        return loader.construct_document(node)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or type(exc).__name__
        raise error(f"invalid YAML{where}: {problem}", path=str(path)) from None
    except RecursionError:  # the pure-Python parser (without libyaml) composes nodes recursively
        raise error(f"nested more than {MAX_NESTING} levels deep", path=str(path)) from None
    finally:
        loader.dispose()


def load_yaml(path: Path | str, kind: Kind) -> Any:
    """``read_text`` then ``parse_yaml``."""
    return parse_yaml(read_text(path, kind), path, kind.error)


def check_yaml_nodes(root: Any, path: Path | str, error: type[UserError] = UserError) -> None:
    """A parsed document's nodes, before a value is built from them: a node reached twice is an
    alias (refused: aliases of aliases expand a few hundred bytes into gigabytes, and no task needs
    one), a key given twice in a mapping is refused (YAML would keep the last silently), and nothing
    is nested more than ``MAX_NESTING`` levels. Where a problem sits (its field) is worked out only
    once there is one."""
    seen = {id(root)}
    stack: list[tuple[Any, int]] = [(root, 0)]
    while stack:
        node, depth = stack.pop()
        if node.id == "scalar":
            continue
        if depth > MAX_NESTING:
            raise error(f"line {node.start_mark.line + 1}: nested more than {MAX_NESTING} levels deep", path=str(path))
        children = node.value if node.id == "sequence" else list(chain.from_iterable(node.value))
        if node.id == "mapping":
            keys = [(key.tag, key.value) for key in children[::2] if key.id == "scalar"]
            if len(set(keys)) != len(keys):
                _refuse_duplicate_keys(root, node, path, error)
        before = len(seen)
        seen.update(map(id, children))
        if len(seen) - before != len(children):  # a node met before: an alias
            _refuse_alias(root, path, error)
        stack.extend((child, depth + 1) for child in reversed(children) if child.id != "scalar")  # document order


def _refuse_alias(root: Any, path: Path | str, error: type[UserError]) -> None:
    """One line naming the first node reached twice in document order (every node before it is
    reached once, so the walk is as long as the file)."""
    seen: set[int] = set()
    for node, where in _walk(root):
        if id(node) in seen:
            raise error(
                f"the value anchored (&) at line {node.start_mark.line + 1} is used again through an alias (*): "
                "debench reads no YAML aliases; write the value out",
                path=str(path),
                field=".".join(where) or None,
            )
        seen.add(id(node))


def _refuse_duplicate_keys(root: Any, mapping: Any, path: Path | str, error: type[UserError]) -> None:
    """A key given twice in one mapping (the same text and type) is one line naming it and both lines."""
    first: dict[tuple[str, str], int] = {}
    for key, _ in mapping.value:
        if key.id != "scalar":
            continue
        line = key.start_mark.line + 1
        if (key.tag, key.value) in first:
            where = next(".".join(w) for node, w in _walk(root) if node is mapping)
            raise error(
                f"line {line}: the key is given twice in one mapping (first at line {first[key.tag, key.value]})",
                path=str(path),
                field=f"{where}.{key.value}" if where else str(key.value),
            )
        first[key.tag, key.value] = line


def _walk(root: Any) -> Iterator[tuple[Any, tuple[str, ...]]]:
    """Every node in document order with the fields that lead to it (an alias's node again where
    the alias is: walk it only until the first repeat)."""
    stack: list[tuple[Any, tuple[str, ...]]] = [(root, ())]
    while stack:
        node, where = stack.pop()
        yield node, where
        if node.id == "sequence":
            stack.extend((item, (*where, str(i))) for i, item in reversed(list(enumerate(node.value))))
        elif node.id == "mapping":
            for key, value in reversed(node.value):
                name = str(key.value) if key.id == "scalar" else "?"
                stack += [(value, (*where, name)), (key, (*where, name))]


# -- JSON ------------------------------------------------------------------------------------------

_JITER_AT = re.compile(r"^(?P<what>.*) at line (?P<line>\d+) column (?P<column>\d+)$", re.DOTALL)


def parse_json(data: bytes, path: Path | str, error: type[UserError] = UserError, *, at: str | None = None) -> Any:
    """One JSON value: a whole file, or the part of a file ``at`` says (``line 4`` of a JSON-lines
    file, ``record 3's speeches cell``). A key given twice in an object, nesting past
    ``MAX_NESTING`` levels, text that is not UTF-8 or not JSON: one ``error`` naming the file,
    where (and the key)."""
    import jiter

    try:
        return jiter.from_json(data, catch_duplicate_keys=True)
    except ValueError as exc:
        raise json_problem(str(exc), data, path, error, at) from None


def json_problem(
    message: str, data: bytes, path: Path | str, error: type[UserError] = UserError, at: str | None = None
) -> UserError:
    """jiter's ``message`` about ``data`` as one line naming the file, where (``at``, else the
    line jiter names) and the key."""
    m = _JITER_AT.match(message)
    what, at_line, column = (m["what"], m["line"], m["column"]) if m else (message, "1", "?")
    where = at or f"line {at_line}"
    duplicate = re.fullmatch(r'Detected duplicate key "(.*)"', what, re.DOTALL)
    if duplicate:
        return error(f"{where}: the key is given twice in one object", path=str(path), field=duplicate[1])
    if what.startswith("recursion limit exceeded"):
        return error(f"{where}: nested more than {MAX_NESTING} levels deep", path=str(path))
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return error(f"{where}: not UTF-8 text", path=str(path))
    return error(f"{where}: not valid JSON ({what} at column {column})", path=str(path))


def load_json(path: Path | str, kind: Kind) -> Any:
    """``read_bytes`` then ``parse_json``."""
    return parse_json(read_bytes(path, kind), path, kind.error)
