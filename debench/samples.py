"""The per-sample record and its append-only JSONL log (the resume log).

Each finished sample is appended as one line and flushed at once, so a crash or a kill loses at
most the line being written. On resume the log is read back (a torn last line is dropped and the
file truncated to the last complete line) and finished documents are skipped. Samples that ended
in an error are retried on resume. At the end of a run the log is compacted to one line per
document, in data set order.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
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


def read_records(path: Path, *, repair: bool = False) -> list[SampleRecord]:
    """All complete records in file order. With ``repair``, a torn final line is cut off."""
    if not path.exists():
        return []
    records: list[SampleRecord] = []
    good_end = 0
    with open(path, "rb") as fh:
        data = fh.read()
    pos = 0
    while pos < len(data):
        nl = data.find(b"\n", pos)
        if nl == -1:
            break  # torn last line: no newline, it was being written when the process died
        line = data[pos:nl].strip()
        if line:
            try:
                records.append(SampleRecord.model_validate_json(line))
            except ValueError:
                break  # a corrupt line: keep everything before it
        pos = nl + 1
        good_end = pos
    if repair and good_end < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(good_end)
    return records


def latest_by_doc(records: Iterable[SampleRecord]) -> dict[str, SampleRecord]:
    out: dict[str, SampleRecord] = {}
    for r in records:
        out[r.doc_id] = r
    return out


class SampleLog:
    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self.existing = latest_by_doc(read_records(path, repair=True))
        self._fh = open(path, "a", encoding="utf-8")

    def finished_ids(self) -> set[str]:
        return {d for d, r in self.existing.items() if r.status in FINISHED}

    def append(self, record: SampleRecord) -> None:
        self._fh.write(record.model_dump_json() + "\n")
        self._fh.flush()
        self.existing[record.doc_id] = record

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def compact(self, order: list[str]) -> None:
        """Rewrite as one line per document (latest record), in ``order``; atomic."""
        self.close()
        latest = latest_by_doc(read_records(self.path))
        tmp = self.path.with_suffix(self.path.suffix + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            for doc_id in order:
                if doc_id in latest:
                    fh.write(latest[doc_id].model_dump_json() + "\n")
            in_order = set(order)
            for doc_id, rec in latest.items():
                if doc_id not in in_order:
                    fh.write(rec.model_dump_json() + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)
