"""The per-sample record of a judged document and its log (``samples_<task>_<fingerprint>.jsonl``).

The log is a ``debench.core.record_log.RecordLog`` keyed on ``doc_id``: appended line by line, resumed,
shared safely between processes and compacted to one line per document in data set order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from debench.core.record_log import FINISHED, BadLine, RecordLog, read_log

Status = Literal["ok", "parse_failure", "error", "not_completed"]
__all__ = ["FINISHED", "SampleLog", "SampleRecord", "Status", "read_records", "slim"]


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
    cached_prompt_tokens: int = 0
    """Of ``prompt_tokens``, those the provider served from its prompt cache (as it reported them)."""
    cost_usd: float | None = None
    cached: bool = False
    attempts: int = 0
    latency_s: float | None = None
    steps: list[dict[str, Any]] = Field(default_factory=list)
    """Intermediate calls of multi-step judge methods (e.g. Debatrix analyses)."""
    verdicts: dict[str, Any] | None = None
    """A method's other readings of the same judging, by name (Debatrix: ``summary`` and
    ``scores``; None where one could not be read); ``prediction`` is one of them. Scored apart in
    the results (``reports.debatrix_verdicts``)."""


def slim(record: SampleRecord) -> SampleRecord:
    """The record without its prompt messages and intermediate steps: what scoring needs, kept in
    memory (the full record is in the log), so memory does not grow with prompt sizes."""
    if record.messages is None and not record.steps:
        return record
    return record.model_copy(update={"messages": None, "steps": []})


def SampleLog(path: Path) -> RecordLog[SampleRecord]:
    """The samples log of one run."""
    return RecordLog(path, SampleRecord, "doc_id", slim=slim)


def read_records(path: Path, *, bad_line: BadLine = "raise") -> list[SampleRecord]:
    """All complete records of a finished run's samples log, in file order (``record_log.read_log``:
    a torn last line is left out; a damaged line is a one-line ``UserError`` unless ``bad_line``
    says otherwise)."""
    if not Path(path).exists():
        return []
    return [rec for _, _, rec in read_log(Path(path), SampleRecord, bad_line=bad_line)]
