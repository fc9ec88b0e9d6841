"""The append-only JSONL log every command resumes from: one line per finished job.

One format for every kind of record (judged documents, debates, generated speeches): a pydantic
record with a key field and a ``status``. Guarantees:

* **Durable:** a record is written and flushed as its job finishes: by the runner, a turn of its
  event loop later, with the others finished in that turn (``append_many``: one write), and always
  before the run returns or raises. A crash or a kill loses at most the records of that turn; a
  write that fails (a full disk) keeps the lines that reached the file whole and cuts the rest, and
  is one line naming the log (``UserError``). On open, a torn last line (no newline) is cut off; a
  damaged line elsewhere is skipped and reported, and every record after it is kept (the job it
  held runs again).
* **Resumable:** records whose status is finished are skipped on the next run; the others
  (errors) are retried. The latest line of a key wins.
* **Shared safely between processes:** appends and compaction hold an exclusive ``flock`` on a
  lock file beside the log (``.NAME.lock``), and an appender whose file was replaced by another
  process's compaction reopens the new file before writing, so no line is lost. Before a job
  starts, the runner *claims* it (``.NAME.claims``): a job claimed by another live process is
  left to it, so two processes on the same command do not both pay for a document (only the
  jobs both had already started can overlap). A process that ends takes its claims out of the
  file, and the last one removes it: no hidden file is left.
* **Redacted:** every record is redacted (``debench.core.redact.Redactor.json_text``) before it is
  written: a secret of this process, or a string shaped like a provider's key, never reaches the
  disk, even inside a successful answer.
* **Compact:** at the end of a run the log is rewritten as one line per key, in job order, by
  copying lines by offset (the records are never re-encoded).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import socket
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel

from debench.core.errors import UserError
from debench.core.redact import Redactor
from debench.core.user_files import LOG, open_bounded, read_lines

try:  # POSIX; elsewhere the log works for one process at a time
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]  # no locking module here: callers test `fcntl is None`

R = TypeVar("R", bound=BaseModel)

FINISHED: frozenset[str] = frozenset({"ok", "parse_failure", "not_completed"})
"""Statuses that end a job for good; anything else (``error``) is retried on resume."""

HOST = socket.gethostname()


def complete_lines(path: Path, start: int = 0) -> Iterator[tuple[int, bytes]]:
    """(offset, line) of every newline-terminated line from ``start``, read through
    ``debench.core.user_files`` (a regular file, each line within its ceiling); a torn last line is
    left out."""
    for line in read_lines(path, LOG, start):
        if not line.data.endswith(b"\n"):
            return
        yield line.offset, line.data


def complete_end(path: Path) -> int:
    """Where the log's complete lines end: just past its last newline (0 without one). Bytes after
    it are a torn last line (a process killed, or a disk full, while writing it)."""
    with open_bounded(path, LOG) as fh:
        pos = fh.seek(0, os.SEEK_END)
        while pos > 0:
            step = min(1 << 16, pos)
            fh.seek(pos - step)
            at = fh.read(step).rfind(b"\n")
            if at >= 0:
                return pos - step + at + 1
            pos -= step
    return 0


def torn_tail(path: Path) -> bool:
    """The log's last line has no newline: it was cut short (the run writing it was killed), so
    the log is incomplete."""
    return Path(path).stat().st_size > complete_end(path)


BadLine = Literal["stop", "skip", "raise"]


def read_log(
    path: Path,
    record_type: type[R],
    *,
    bad_line: BadLine,
    start: int = 0,
    skipped: list[tuple[int, int]] | None = None,
) -> Iterator[tuple[int, int, R]]:
    """(offset, length, record) of every complete line of a log from ``start`` (a torn last line,
    without its newline, is not yet a line; blank lines are passed over): the one reader of every
    log debench writes. ``bad_line`` says what a complete line that is not a record does:

    * ``stop``: the reading ends before it (an arena's adaptive schedule, whose decisions are
      read in order up to the first damaged one);
    * ``skip``: it is passed over (its number and where it ends added to ``skipped`` when given).
      A run resuming its
      own log keeps every good line after a damaged one (the damaged line's job runs again), and
      so does reading what other processes appended while this one runs, and the compaction at
      the end;
    * ``raise``: a one-line ``UserError`` naming the file and the line. A finished log read for
      the user (``debench view``, ``debench compare``) is shown whole or not at all: a finished
      run's log is compacted (no bad line), so one there was damaged or written by another
      debench version, and leaving it out would show a run that was not the one scored.
    """
    for n, (offset, line) in enumerate(complete_lines(path, start), start=1):
        if not line.strip():
            continue
        try:
            record = record_type.model_validate_json(line)
        except ValueError:
            if bad_line == "stop":
                return
            if bad_line == "raise":
                raise UserError(
                    f"line {n} is not a {record_type.__name__} (a damaged line, or a log "
                    "written by another debench version)",
                    path=str(path),
                ) from None
            if skipped is not None:
                skipped.append((n, offset + len(line)))
            continue
        yield offset, len(line), record


def _start_time(pid: int) -> str:
    """When process ``pid`` started (Linux: clock ticks since boot), so a claim by a dead process
    is not mistaken for one by a new process that was given the same pid; '' elsewhere."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[19].decode()
    except (OSError, IndexError):
        return ""


_ME: dict[int, tuple[str, int, str]] = {}


def me() -> tuple[str, int, str]:
    """This process as a claimant (computed per pid, so a forked child is itself)."""
    pid = os.getpid()
    if pid not in _ME:
        _ME[pid] = (HOST, pid, _start_time(pid))
    return _ME[pid]


def _alive(pid: int, started: str) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return not started or _start_time(pid) in ("", started)


class RecordLog(Generic[R]):
    """The log of one run. ``existing`` maps each key to its latest record (``slim``-ed)."""

    def __init__(
        self,
        path: Path,
        record_type: type[R],
        key: str,
        *,
        slim: Callable[[R], R] | None = None,
    ):
        self.path = Path(path)
        self._lock_path = str(self._side(".lock"))  # looked at on every append: built once
        self._path_str = str(self.path)
        self._lock_ino: int | None = None  # the inode of the lock file ``_lock_fd`` holds
        self.record_type = record_type
        self.key = key
        self._slim = slim or (lambda r: r)
        self.existing: dict[str, R] = {}
        self._read_to = 0  # bytes of the current file already read into ``existing``
        self._claims_read_to = 0
        self._claims_ino: int | None = None
        self._claims: dict[str, tuple[str, int, str]] = {}  # key -> (host, pid, start time) of its claimant
        self._fh: Any = None
        self._ino: int | None = None
        self._redactor = Redactor()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(
                f"cannot write the run's log here ({exc.strerror or type(exc).__name__})", path=str(self.path.parent)
            ) from None
        self._lock_fd = self._open_lock()
        with self.locked():
            self._cut_torn_tail()
            self._refresh(report=True)

    # -- files beside the log ------------------------------------------------------------------
    def _side(self, suffix: str) -> Path:
        return self.path.with_name(f".{self.path.name}{suffix}")

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the exclusive lock on ``.NAME.lock``. The lock file is removed when a run closes its
        log (no hidden file is left in an output folder), so a process that waited on a file
        another one removed (or replaced) reopens the file now at the path and locks that: all
        processes always lock the same file."""
        if fcntl is not None:
            while True:
                fcntl.flock(self._lock_fd, fcntl.LOCK_EX)
                try:
                    same = os.stat(self._lock_path).st_ino == self._lock_ino
                except FileNotFoundError:
                    same = False
                if same:
                    break
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
                os.close(self._lock_fd)
                self._lock_fd = self._open_lock()
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    def _open_lock(self) -> int:
        try:
            self.path.parent.mkdir(
                parents=True, exist_ok=True
            )  # again: a run that ended with nothing removes its empty folder
            fd = os.open(self._side(".lock"), os.O_RDWR | os.O_CREAT, 0o644)
            self._lock_ino = os.fstat(fd).st_ino  # an open file keeps its inode: looked up once
            return fd
        except OSError as exc:
            raise UserError(
                f"cannot write the run's log here ({exc.strerror or type(exc).__name__})", path=str(self.path.parent)
            ) from None

    # -- reading -------------------------------------------------------------------------------
    def _cut_torn_tail(self) -> None:
        """Cut a torn last line (the process writing it died, or its disk was full); every complete
        line is kept."""
        if not self.path.exists():
            return
        end = complete_end(self.path)
        if self.path.stat().st_size > end:
            with self._writing(), open(self.path, "r+b") as fh:
                fh.truncate(end)

    def _refresh(self, report: bool = False) -> None:
        """Read what other processes appended (or the compacted file, if it was replaced). A damaged
        line is skipped (``report``: and said on stderr, as a run opens its log)."""
        if not self.path.exists():
            self._read_to = 0
            return
        ino = self.path.stat().st_ino
        if ino != self._ino:  # new file (first read, or replaced by a compaction): read it all
            self._ino, self._read_to = ino, 0
        skipped: list[tuple[int, int]] = []
        for offset, length, rec in read_log(
            self.path, self.record_type, bad_line="skip", start=self._read_to, skipped=skipped
        ):
            self.existing[getattr(rec, self.key)] = self._slim(rec)
            self._read_to = offset + length
        if skipped:
            self._read_to = max(self._read_to, skipped[-1][1])
            if report:
                lines = ", ".join(str(n) for n, _ in skipped[:5]) + (", ..." if len(skipped) > 5 else "")
                logging.getLogger(__name__).warning(
                    "%s: %d damaged line(s) skipped (line %s: not a %s); the jobs they held run again, "
                    "every other record is kept",
                    self.path,
                    len(skipped),
                    lines,
                    self.record_type.__name__,
                )

    @contextmanager
    def _writing(self, path: Path | None = None) -> Iterator[None]:
        """A write to the log (or the file beside it, ``path``) that fails (a full disk, a file
        size limit, a folder made read-only) is one line naming the file; every finished record
        is kept, and a rerun of the same command completes the run."""
        try:
            yield
        except OSError as exc:
            raise UserError(
                f"cannot write the run's log ({exc.strerror or type(exc).__name__}); every finished record is kept: "
                "rerun the same command once the file can be written",
                path=str(path or self.path),
            ) from None

    def finished(self) -> set[str]:
        return {k for k, r in self.existing.items() if getattr(r, "status", None) in FINISHED}

    # -- claims --------------------------------------------------------------------------------
    def _read_claims(self) -> None:
        path = self._side(".claims")
        try:
            st = path.stat()
        except FileNotFoundError:
            self._claims_read_to, self._claims_ino = 0, None
            self._claims.clear()
            return
        if st.st_ino != self._claims_ino or st.st_size < self._claims_read_to:  # new, or rewritten
            self._claims_ino, self._claims_read_to = st.st_ino, 0
            self._claims.clear()
        for offset, line in complete_lines(path, self._claims_read_to):
            try:
                c = json.loads(line)
                self._claims[str(c["k"])] = (str(c["h"]), int(c["p"]), str(c.get("s", "")))
            except (ValueError, KeyError, TypeError):
                pass
            self._claims_read_to = offset + len(line)

    def _claimed_by_other(self, key: str) -> bool:
        who = self._claims.get(key)
        if who is None or who == me():
            return False
        host, pid, started = who
        return host != HOST or _alive(pid, started)

    def _others_state(self, key: str) -> str | None:
        """Under the lock, after ``_refresh`` and ``_read_claims``: 'done' when a finished record
        exists, 'busy' when another live process claimed the job, else None."""
        rec = self.existing.get(key)
        if rec is not None and getattr(rec, "status", None) in FINISHED:
            return "done"
        return "busy" if self._claimed_by_other(key) else None

    def claim(self, key: str) -> str:
        """'mine' (start the job), 'done' (another process finished it) or 'busy' (another live
        process is on it)."""
        return self.claim_many([key])[key]

    def claim_many(self, keys: Iterable[str]) -> dict[str, str]:
        """``claim`` for several jobs at once: one lock, one read of what others did, one write."""
        out: dict[str, str] = {}
        with self.locked():
            self._refresh()
            self._read_claims()
            mine = me()  # one tuple for every claim of this process
            host, pid, started = mine
            lines = []
            for key in keys:
                out[key] = self._others_state(key) or "mine"
                if out[key] == "mine":
                    lines.append(json.dumps({"k": key, "h": host, "p": pid, "s": started}) + "\n")
                    self._claims[key] = mine
            if lines:
                path = self._side(".claims")
                with self._writing(path), open(path, "a", encoding="utf-8") as fh:
                    fh.write("".join(lines))
        return out

    def wait_state(self, key: str) -> str:
        """For a job left to another process: 'done', 'busy' (still running) or 'free' (its
        claimant died or gave up: take it over)."""
        with self.locked():
            self._refresh()
            self._read_claims()
            return self._others_state(key) or "free"

    # -- writing -------------------------------------------------------------------------------
    def _handle(self) -> tuple[Any, int]:
        """The append handle, reopened when another process's compaction replaced the file, and the
        file's size (under the lock: the path's file is the handle's, so one ``stat`` gives both)."""
        try:
            st = os.stat(self._path_str)
            ino: int | None = st.st_ino
            size = st.st_size
        except FileNotFoundError:
            ino, size = None, 0
        if self._fh is None or self._fh.closed or ino != self._ino_of_handle:
            if self._fh is not None and not self._fh.closed:
                self._fh.close()
            self._fh = open(self.path, "ab")  # noqa: SIM115 - kept open across appends; close() closes it
            st = os.fstat(self._fh.fileno())
            self._ino_of_handle, size = st.st_ino, st.st_size
        return self._fh, size

    _ino_of_handle: int | None = None

    def _drop_handle(self, size: int, lengths: Sequence[int]) -> None:
        """After a failed append of lines of ``lengths`` bytes from ``size``: close the handle (its
        buffer cannot be written), keep the lines that reached the file whole and cut the part of
        the next one, so the log ends with a complete line."""
        with contextlib.suppress(OSError):
            self._fh.close()
        self._fh = None
        end = size
        with contextlib.suppress(OSError):
            reached = os.stat(self._path_str).st_size
            for length in lengths:
                if end + length > reached:
                    break
                end += length
            os.truncate(self.path, end)

    def append(self, record: R) -> None:
        """Append one record: ``append_many([record])``."""
        self.append_many([record])

    def append_many(self, records: Sequence[R]) -> None:
        """Append the records' lines, in order, in one write under one lock (the runner's writer
        hands over every record finished in one turn of the event loop: one lock, one ``stat`` and
        one write for them all). Each record is redacted before it is written. A write that fails
        (a full disk, a file size limit) keeps the lines that reached the file whole, cuts the part
        of the next one, and is one line naming the log (``UserError``). ``existing`` holds every
        record written."""
        lines = [self._redacted(record) for record in records]
        if not lines:
            return
        encoded = [text.encode("utf-8") for text, _ in lines]
        data = b"".join(encoded)
        with self.locked(), self._writing():
            fh, size = self._handle()
            alone = self._ino == self._ino_of_handle and size == self._read_to
            try:
                fh.write(data)
                fh.flush()
            except OSError:
                self._drop_handle(size, [len(line) for line in encoded])
                self._refresh()  # the lines kept, read back
                raise
            if alone:  # nobody else appended since we last read: no need to parse our own lines
                self._read_to += len(data)
            else:
                self._refresh()  # what others appended, and our lines, in file order
        for _, record in lines:
            self.existing[getattr(record, self.key)] = self._slim(record)

    def _redacted(self, record: R) -> tuple[str, R]:
        """The record's line, redacted, and the record as written: a secret in it (an answer echoing
        the key) is replaced in both."""
        text = record.model_dump_json()
        redacted = self._redactor.json_text(text)
        if redacted == text:
            return text + "\n", record
        return redacted + "\n", self.record_type.model_validate_json(redacted)

    def close(self) -> None:
        """Close the log and remove its lock file (under the lock: a process still working on the
        log reopens a new one, see ``locked``), so a finished run leaves no hidden file. A log
        with no record (a run refused before its first answer) is removed with its folder when
        nothing else is in it: a refused run leaves no empty ``results/<model>/``."""
        if self._fh is not None and not self._fh.closed:
            self._fh.close()
        if self._lock_fd < 0:
            return
        with contextlib.suppress(OSError), self.locked():
            if self.path.exists() and self.path.stat().st_size == 0:
                self.path.unlink()
            os.unlink(self._side(".lock"))
            if not self.path.exists():
                self.path.parent.rmdir()  # only when empty (OSError otherwise, ignored)
        with contextlib.suppress(OSError):
            os.close(self._lock_fd)
        self._lock_fd = -1

    def release_claims(self) -> None:
        """Take this process's claims out of the claims file, and remove the file once no live
        process holds a claim in it: two runs of one command leave no hidden file, whichever ends
        first. A claims file that cannot be rewritten (a full disk) is left as it is."""
        with self.locked():
            self._read_claims()
            path = self._side(".claims")
            others = {k: who for k, who in self._claims.items() if self._claimed_by_other(k)}
            tmp = path.with_name(path.name + ".tmp")
            try:
                if not others:
                    path.unlink(missing_ok=True)
                elif len(others) < len(self._claims):
                    lines = [json.dumps({"k": k, "h": h, "p": p, "s": s}) + "\n" for k, (h, p, s) in others.items()]
                    tmp.write_text("".join(lines), encoding="utf-8")
                    os.replace(tmp, path)
            except OSError:
                with contextlib.suppress(OSError):
                    tmp.unlink(missing_ok=True)
            self._claims_read_to, self._claims_ino = 0, None
            self._claims.clear()

    def compact(self, order: Iterable[str]) -> None:
        """Rewrite as one line per key (its latest line, bytes unchanged), in ``order`` then the
        rest; atomic, under the lock, so another process's appends are never lost."""
        with self.locked():
            if not self.path.exists():
                return
            latest: dict[str, tuple[int, int]] = {}
            n_lines = sum(1 for _ in complete_lines(self.path))
            for offset, length, rec in read_log(self.path, self.record_type, bad_line="skip"):
                latest[getattr(rec, self.key)] = (offset, length)
            order = list(order)
            wanted = set(order)
            ids = [k for k in order if k in latest] + [k for k in latest if k not in wanted]
            if ids == list(latest) and len(latest) == n_lines:
                return  # already one line per key, in order
            tmp = self.path.with_name(self.path.name + ".tmp")
            with self._writing():
                try:
                    with open(self.path, "rb") as src, open(tmp, "wb") as dst:
                        for k in ids:
                            offset, length = latest[k]
                            src.seek(offset)
                            dst.write(src.read(length))
                        dst.flush()
                        os.fsync(dst.fileno())
                    os.replace(tmp, self.path)
                except OSError:
                    with contextlib.suppress(OSError):
                        tmp.unlink(missing_ok=True)
                    raise
            self._ino = None  # re-read from the start next time
            self._read_to = 0
