"""The per-sample record and its append-only JSONL log (the resume log).

Each finished sample is appended as one line and flushed at once, so a crash or a kill loses at
most the line being written. On resume the log is read back (a torn last line is dropped and the
file truncated to the last complete line) and finished documents are skipped. Samples that ended
in an error are retried on resume. At the end of a run the log is compacted to one line per
document, in data set order.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

Status = Literal["ok", "parse_failure", "error", "not_completed"]
FINISHED: frozenset[str] = frozenset({"ok", "parse_failure", "not_completed"})


class SampleRecord(BaseModel):
    doc_id: str
    status: Status
    prediction: Any = None
    response: str | None = None
    parse_error: str | None = None
    error: str | None = None
    target: Any = None
    messages: list[dict[str, str]] | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    cached: bool = False
    attempts: int = 0
    latency_s: float | None = None
    steps: list[dict[str, Any]] = Field(default_factory=list)
    """Intermediate calls of multi-step judge methods (e.g. Debatrix analyses)."""


def _complete_lines(path: Path) -> Iterator[tuple[int, bytes]]:
    """(offset, line) of every newline-terminated line, read in chunks; a torn last line is left out."""
    with open(path, "rb") as fh:
        offset = 0
        for line in fh:
            if not line.endswith(b"\n"):
                return  # torn last line: it was being written when the process died
            yield offset, line
            offset += len(line)


def _scan(path: Path) -> Iterator[tuple[int, int, SampleRecord]]:
    """(offset, length, record) of each good line, stopping at the first corrupt one."""
    if not path.exists():
        return
    for offset, line in _complete_lines(path):
        if not line.strip():
            continue
        try:
            record = SampleRecord.model_validate_json(line)
        except ValueError:
            return  # a corrupt line: keep everything before it
        yield offset, len(line), record


def read_records(path: Path, *, repair: bool = False) -> list[SampleRecord]:
    """All complete records in file order. With ``repair``, a torn or corrupt tail is cut off."""
    records: list[SampleRecord] = []
    good_end = 0
    for offset, length, record in _scan(path):
        records.append(record)
        good_end = offset + length
    if repair:
        _truncate_after(path, good_end)
    return records


def _truncate_after(path: Path, good_end: int) -> None:
    if path.exists() and path.stat().st_size > good_end:
        with open(path, "r+b") as fh:
            fh.truncate(good_end)


def latest_by_doc(records: Iterable[SampleRecord]) -> dict[str, SampleRecord]:
    out: dict[str, SampleRecord] = {}
    for r in records:
        out[r.doc_id] = r
    return out


def slim(record: SampleRecord) -> SampleRecord:
    """The record without its prompt messages and intermediate steps: what scoring needs, kept in
    memory (the full record is in the log), so memory does not grow with prompt sizes."""
    if record.messages is None and not record.steps:
        return record
    return record.model_copy(update={"messages": None, "steps": []})


class SampleLog:
    """The append-only log of one run. ``existing`` maps doc_id to its latest record, slimmed."""

    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.existing: dict[str, SampleRecord] = {}
        good_end = 0
        for offset, length, record in _scan(path):
            self.existing[record.doc_id] = slim(record)
            good_end = offset + length
        _truncate_after(path, good_end)
        self._fh = open(path, "a", encoding="utf-8")

    def finished_ids(self) -> set[str]:
        return {d for d, r in self.existing.items() if r.status in FINISHED}

    def append(self, record: SampleRecord) -> None:
        self._fh.write(record.model_dump_json() + "\n")
        self._fh.flush()
        self.existing[record.doc_id] = slim(record)

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def compact(self, order: list[str]) -> None:
        """Rewrite as one line per document (its latest line, bytes unchanged), in ``order``; atomic.

        Streams: only the offset of each document's latest line is held in memory.
        """
        self.close()
        latest: dict[str, tuple[int, int]] = {}
        for offset, length, record in _scan(self.path):
            latest[record.doc_id] = (offset, length)
        in_order = set(order)
        ids = [d for d in order if d in latest] + [d for d in latest if d not in in_order]
        if ids == list(latest) and len(latest) == sum(1 for _ in _complete_lines(self.path)):
            with open(self.path, "rb+") as fh:  # already one line per document, in order
                os.fsync(fh.fileno())
            return
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        with open(self.path, "rb") as src, open(tmp, "wb") as dst:
            for doc_id in ids:
                offset, length = latest[doc_id]
                src.seek(offset)
                dst.write(src.read(length))
            dst.flush()
            os.fsync(dst.fileno())
        os.replace(tmp, self.path)
