"""What a submission folder may hold, and how its files are read and copied.

A submission is one folder directly under ``leaderboard/submissions/`` holding **regular files
only** (no symbolic link, no sub-folder, no other file type):

* ``results_<task>_<fingerprint>.json`` files, each at most ``MAX_RESULTS_BYTES``;
* the ``samples_*.jsonl`` log each of them names (``samples_file``), at most ``MAX_SAMPLES_BYTES``,
  no line longer than ``MAX_LINE_BYTES``;
* ``spotcheck_<task>_<fingerprint>.json``, at most ``MAX_RESULTS_BYTES``: a record of the spot check
  of 8 documents that ranked entries before the leaderboard ran every document itself. Nothing
  writes or reads one any more; it is tolerated beside its results file because a committed
  submission holds one (``leaderboard/submissions/local__smollm2/``), never published, and a pull
  request may not add one;
* the SVG plots a results file names (``plots``), at most ``MAX_PLOT_BYTES``, and the hidden lock
  and claims files ``debench eval`` leaves beside a samples log: older seeded baselines carry
  plots, an output folder carries both; they are never published and a pull request may not add
  them (``debench.leaderboard.pull_request``).

Every file of the folder, referenced or not, is scanned for key-shaped strings
(``debench.core.redact.find_key_shaped``). Sizes are checked before anything is read, a samples log is
read line by line (bounded memory), and files are opened without following links.

``refuse_planted_keys`` refuses a submission that carries a key: a string shaped like a provider's
API key, anywhere (also with spaces inside it or base64-encoded), or a secret-looking value under a
key / token / secret / password name (``identity.extra.api_key`` …), wherever it sits. debench
redacts keys from everything it writes, so a key in a submission was put there by hand or by a
model echoing one; either way it must not be published. The refusal names the file, the line
(samples logs) and the field, and shows only the key's first characters.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

from debench.core.errors import UserError
from debench.core.redact import find_key_shaped, secret_under_name

MAX_RESULTS_BYTES = 1_000_000
"""A results file (a full run's results file is about 5 KB)."""
MAX_SAMPLES_BYTES = 50_000_000
"""A samples log (GitHub warns above 50 MB; the embedded model's 631 IBM speeches with their
prompts are 2.9 MB, a DebateBench run with 32k-token prompts about 4 MB)."""
MAX_LINE_BYTES = 4_000_000
"""One line of a samples log (one document's record, its prompt and Debatrix steps included)."""
MAX_PLOT_BYTES = 1_000_000
MAX_LINES = 100_000
"""Lines of any file of a submission (a samples log holds one per document: the largest task has 631)."""
MAX_BLANK_LINES = 16
"""Blank lines of any file of a submission (debench writes none inside a log): a log padded with
millions of them under the size cap would cost the gate and every refresh minutes to read."""
MAX_JSON_DEPTH = 32
"""Nesting of a results file or a samples-log record (debench's are at most 6 deep)."""

RESULTS_PREFIX, SAMPLES_PREFIX = "results_", "samples_"
_CHUNK = 1 << 20


def _err(path: Path, message: str, field: str | None = None) -> UserError:
    return UserError(message, path=str(path), field=field)


def refusal(path: Path, field: str | None, message: str) -> UserError:
    """A submission refused: one line naming the file, the field (when there is one) and why."""
    return UserError(message, path=str(path), field=field)


def regular_file(path: Path, cap: int, what: str) -> int:
    """The size of ``path``, a regular file (not a link) of at most ``cap`` bytes; ``UserError`` otherwise."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        raise _err(path, f"{what} not found") from None
    except OSError as exc:
        raise _err(path, f"cannot read the {what} ({exc.strerror or type(exc).__name__})") from None
    if stat.S_ISLNK(st.st_mode):
        raise _err(path, f"the {what} is a symbolic link: a submission holds regular files only")
    if not stat.S_ISREG(st.st_mode):
        raise _err(path, f"the {what} is not a regular file: a submission holds regular files only")
    if st.st_size > cap:
        raise _err(
            path,
            f"the {what} is {st.st_size:,} bytes, above the {cap:,}-byte cap of a "
            f"submission's {what}s (docs/leaderboard.md)",
        )
    return st.st_size


def open_regular(path: Path) -> BinaryIO:
    """A binary file object for ``path``, refusing to follow a symbolic link at the last component."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    return os.fdopen(fd, "rb")


def read_small(path: Path, cap: int, what: str) -> bytes:
    """The whole of a small regular file (a results file), size checked first."""
    regular_file(path, cap, what)
    try:
        with open_regular(path) as fh:
            data: bytes = fh.read(cap + 1)
    except OSError as exc:
        raise _err(path, f"cannot read the {what} ({exc.strerror or type(exc).__name__})") from None
    if len(data) > cap:
        raise _err(path, f"the {what} grew above the {cap:,}-byte cap while it was read")
    return data


def _depth_above(value: Any, ceiling: int) -> bool:
    """Whether ``value`` nests more than ``ceiling`` levels of lists and objects (stops as soon as it does)."""
    stack = [(value, 1)]
    while stack:
        v, depth = stack.pop()
        if isinstance(v, dict | list):
            if depth > ceiling:
                return True
            stack.extend((c, depth + 1) for c in (v.values() if isinstance(v, dict) else v))
    return False


def parse_json(data: bytes, path: Path, line: int | None = None) -> Any:
    """A submission file's JSON (``line``: one line of a log), read as every user file is
    (``core.user_files.parse_json``: not UTF-8, not JSON or a key given twice is one line naming the
    file and where) and at most ``MAX_JSON_DEPTH`` deep — never a traceback."""
    from debench.core.ceilings import MAX_NESTING
    from debench.core.user_files import parse_json as parse_user_json

    at = f"line {line}" if line is not None else None
    too_deep = _err(
        path, f"{at + ': ' if at else ''}nested more than {MAX_JSON_DEPTH} levels deep (debench writes at most 6)"
    )
    try:
        value = parse_user_json(data, path, at=at)
    except UserError as exc:
        if f"nested more than {MAX_NESTING} levels deep" in str(exc):  # past the parser's own bound
            raise too_deep from None
        raise
    if _depth_above(value, MAX_JSON_DEPTH):
        raise too_deep
    return value


def read_json_object(path: Path, cap: int, what: str) -> dict[str, Any]:
    """A small JSON document (a results file): a regular file within ``cap``, a JSON
    object at most ``MAX_JSON_DEPTH`` deep, holding no key (``refuse_planted_keys``); one-line
    ``UserError`` otherwise."""
    data = parse_json(read_small(path, cap, what), path)
    if not isinstance(data, dict):
        raise _err(path, f"malformed {what}: expected a JSON object")
    refuse_planted_keys(data, path)
    return data


def iter_lines(
    path: Path, what: str, cap: int = MAX_SAMPLES_BYTES, max_line: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, bytes]]:
    """(line number, line) of a regular file read line by line: at most ``cap`` bytes in all,
    ``max_line`` per line, ``MAX_LINES`` lines and ``MAX_BLANK_LINES`` blank ones, so memory and
    time stay bounded whatever the file holds."""
    regular_file(path, cap, what)
    total = blank = 0
    try:
        with open_regular(path) as fh:
            n = 0
            while True:
                line = fh.readline(max_line + 1)
                if not line:
                    return
                n += 1
                total += len(line)
                blank += not line.strip()
                if len(line) > max_line:
                    raise _err(path, f"line {n} is longer than {max_line:,} bytes, the cap of one record")
                if total > cap:
                    raise _err(path, f"the {what} grew above the {cap:,}-byte cap while it was read")
                if n > MAX_LINES or blank > MAX_BLANK_LINES:
                    kind, most = ("blank lines", MAX_BLANK_LINES) if blank > MAX_BLANK_LINES else ("lines", MAX_LINES)
                    raise _err(path, f"line {n}: more than {most:,} {kind}, the ceiling of a submission's {what}")
                yield n, line
    except OSError as exc:
        raise _err(path, f"cannot read the {what} ({exc.strerror or type(exc).__name__})") from None


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open_regular(path) as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def scan_for_keys(path: Path, cap: int) -> None:
    """Refuse a file holding a key-shaped string anywhere (``UserError`` naming the line)."""
    for n, line in iter_lines(path, "file", cap=cap):
        hit = find_key_shaped(line.decode("utf-8", errors="replace"))
        if hit is not None:
            provider, excerpt = hit
            raise _err(
                path,
                f"line {n}: holds a string shaped like a {provider} API key ({excerpt}); a submission must carry "
                "no key: remove it and resubmit",
            )


def _old_record_name(results_name: str) -> str:
    """``results_<task>_<fp>.json`` -> ``spotcheck_<task>_<fp>.json``: the spot-check record of the
    previous version (see the module docstring), tolerated because a committed submission holds one."""
    return "spotcheck_" + results_name.removeprefix(RESULTS_PREFIX)


def _names(results: Path) -> tuple[str | None, list[str]]:
    """(samples file, plots) a results file names, when it can be read; (None, []) otherwise
    (validation then says what is wrong with it)."""
    try:
        data = parse_json(read_small(results, MAX_RESULTS_BYTES, "results file"), results)
    except UserError:
        return None, []
    if not isinstance(data, dict):
        return None, []
    samples = data.get("samples_file")
    plots = data.get("plots")

    def ok(v: object) -> bool:
        return isinstance(v, str) and Path(v).name == v and v not in (".", "..")

    return (samples if ok(samples) else None), [p for p in plots if ok(p)] if isinstance(plots, list) else []


def referenced(folder: Path) -> dict[str, tuple[str, int]]:
    """File name -> (what it is, its size cap): the files the folder's results files account for."""
    out: dict[str, tuple[str, int]] = {}
    for results in sorted(folder.glob(RESULTS_PREFIX + "*.json")):
        out[results.name] = ("results file", MAX_RESULTS_BYTES)
        samples, plots = _names(results)
        # a results file that cannot be read names nothing: its run's samples log (named after it)
        # is its own, so one bad results file is one problem, not one per file of its run
        samples = samples or "samples_" + results.name.removeprefix(RESULTS_PREFIX).removesuffix(".json") + ".jsonl"
        if samples:
            out[samples] = ("samples file", MAX_SAMPLES_BYTES)
            for side in (
                ".lock",
                ".claims",
            ):  # the run's lock and claims files (debench.core.record_log): never published
                out[f".{samples}{side}"] = ("run lock file", MAX_PLOT_BYTES)
        for p in plots:
            out[p] = ("plot", MAX_PLOT_BYTES)
        out[_old_record_name(results.name)] = ("spot-check record", MAX_RESULTS_BYTES)
    return out


def folder_problems(folder: Path, scan: Callable[[Path, int], None] | None = None) -> list[UserError]:
    """Everything wrong with a submission folder's entries (see the module docstring); the
    results files' own contents are ``debench validate``'s. ``scan``: how a file is scanned for
    keys (default ``scan_for_keys``; a build with a validation record scans each content once)."""
    known = referenced(folder)
    errors: list[UserError] = []
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        path = Path(entry.path)
        if entry.is_symlink():
            errors.append(_err(path, "is a symbolic link: a submission holds regular files only"))
        elif entry.is_dir(follow_symlinks=False):
            errors.append(_err(path, "is a folder: a submission is one folder of regular files, without sub-folders"))
        elif not entry.is_file(follow_symlinks=False):
            errors.append(_err(path, "is not a regular file: a submission holds regular files only"))
        elif entry.name not in known:
            errors.append(
                _err(
                    path,
                    "no results file in the folder refers to this file: a submission holds results_*.json files and "
                    "the samples logs they name, nothing else",
                )
            )
        else:
            what, cap = known[entry.name]
            try:
                regular_file(path, cap, what)
                (scan or scan_for_keys)(path, cap)
            except UserError as exc:
                errors.append(exc)
    return errors


def copy_regular(src: Path, dst: Path) -> None:
    """Copy one regular file's bytes without following a link (``UserError`` if ``src`` is one)."""
    regular_file(src, max(MAX_SAMPLES_BYTES, MAX_RESULTS_BYTES), "file")
    dst.parent.mkdir(parents=True, exist_ok=True)
    with open_regular(src) as fi, open(dst, "xb") as fo:
        while chunk := fi.read(_CHUNK):
            fo.write(chunk)


def submission_folders(root: Path) -> tuple[list[Path], list[UserError]]:
    """The submission folders directly under ``root`` (a submissions tree), and what else is there
    (a link, a file, anything but a folder): nothing under ``root`` is followed through a link."""
    if not root.is_dir() or root.is_symlink():
        raise UserError("submissions directory not found", path=str(root))
    folders: list[Path] = []
    errors: list[UserError] = []
    for entry in sorted(os.scandir(root), key=lambda e: e.name):
        path = Path(entry.path)
        if entry.is_symlink():
            errors.append(
                _err(path, "is a symbolic link: the submissions folder holds one plain folder per submission")
            )
        elif entry.is_dir(follow_symlinks=False):
            folders.append(path)
        else:
            errors.append(
                _err(path, "is not a folder: the submissions folder holds one folder per submission, nothing else")
            )
    return folders, errors


def results_files(folder: Path) -> list[Path]:
    """The ``results_*.json`` entries of one submission folder (links included: validation refuses them)."""
    return sorted(
        Path(e.path) for e in os.scandir(folder) if e.name.startswith(RESULTS_PREFIX) and e.name.endswith(".json")
    )


def _planted_key(value: Any, where: list[str]) -> tuple[str, str, str] | None:
    """(dotted field, what it looks like, masked excerpt) of the first key in ``value``."""
    if isinstance(value, str):
        shape = find_key_shaped(value)
        return (".".join(where), f"a {shape[0]} API key", shape[1]) if shape else None
    if isinstance(value, dict):
        for k, v in value.items():
            name = str(k)
            if secret_under_name(name, v):
                return (
                    ".".join([*where, name]),
                    f"a secret (a {len(v)}-character value under the name '{name}')",
                    v[:3] + "…",
                )
            hit = _planted_key(name, [*where, name]) or _planted_key(v, [*where, name])
            if hit:
                return hit
    elif isinstance(value, list):
        for i, v in enumerate(value):
            hit = _planted_key(v, [*where, str(i)])
            if hit:
                return hit
    return None


def refuse_planted_keys(value: Any, path: Path, *, line: int | None = None) -> None:
    """Raise ``UserError`` naming the file, line and field when ``value`` holds a key."""
    hit = _planted_key(value, [])
    if hit is None:
        return
    field, what, excerpt = hit
    at = f"line {line}: " if line is not None else ""
    raise UserError(
        f"{at}holds a string shaped like {what} ({excerpt}); a submission must carry no key: remove it and resubmit",
        path=str(path),
        field=field or None,
    )
