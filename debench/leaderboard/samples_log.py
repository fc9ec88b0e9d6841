"""A submission's samples log: found beside its results file and read line by line, checked as it comes.

The log named by ``samples_file`` is a regular file beside the results file, within its size cap.
Every line is a samples-log record without a key-shaped string, traced by the submission's
``provenance.RecordChecker`` as it is read; the log holds each document of the task exactly once
(the first ``config.limit`` documents when a limit was used) and nothing else — a duplicate is
refused at its line. Only slim records are kept (``samples.slim``): memory does not grow with the
prompts' size.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from debench.core.errors import first_problem
from debench.data.base import Doc
from debench.data.samples import SampleRecord, slim
from debench.leaderboard.files import (
    MAX_SAMPLES_BYTES,
    iter_lines,
    parse_json,
    refusal,
    refuse_planted_keys,
    regular_file,
)
from debench.leaderboard.provenance import RecordChecker
from debench.leaderboard.public_text import excerpt
from debench.scoring.results import Results
from debench.task.config import TaskConfig


def samples_path(results: Results, path: Path) -> Path:
    """The samples log the results file at ``path`` names: a regular file beside it, within its cap."""
    name = results.samples_file
    if not name:
        raise refusal(
            path,
            "samples_file",
            "no samples file named: a submission needs its per-sample log (write it with `debench eval`)",
        )
    if Path(name).name != name or name in (".", ".."):
        raise refusal(path, "samples_file", f"'{name}' must be a file name in the results file's folder")
    samples = path.parent / name
    if not os.path.lexists(samples):
        raise refusal(path, "samples_file", f"samples file '{name}' not found beside the results file")
    regular_file(samples, MAX_SAMPLES_BYTES, "samples file")
    return samples


def read_samples(
    samples: Path, task: TaskConfig, docs: list[Doc], all_docs: list[Doc], limit: int | None, checker: RecordChecker
) -> list[SampleRecord]:
    """The records in document order, read line by line and checked as they come (each line a
    samples-log record without a key-shaped string, traced by ``checker``); every document exactly
    once. Only slim records are kept (``samples.slim``): memory does not grow with prompt sizes."""
    wanted = {d.doc_id for d in docs}
    known = {d.doc_id for d in all_docs}
    first_line: dict[str, int] = {}
    kept: dict[str, SampleRecord] = {}
    for n, line in iter_lines(samples, "samples file"):
        if not line.strip():
            continue
        rec = _record_of(parse_json(line, samples, n), samples, n)
        doc_id = rec.doc_id
        if doc_id not in known:
            raise refusal(samples, "doc_id", f"line {n}: unknown document '{doc_id}' for task {task.name}")
        if doc_id not in wanted:
            raise refusal(
                samples,
                "doc_id",
                f"line {n}: document '{doc_id}' is outside the first {limit} documents (config.limit)",
            )
        if doc_id in first_line:
            raise refusal(
                samples, "doc_id", f"line {n}: duplicated document '{doc_id}' (first on line {first_line[doc_id]})"
            )
        first_line[doc_id] = n
        checker.check(rec, n)
        if rec.status == "ok":
            rec.prediction = _checked_prediction(rec, task, samples, n)
        kept[doc_id] = slim(rec)
    missing = [d.doc_id for d in docs if d.doc_id not in first_line]
    if missing:
        scope = f"the first {limit}" if limit is not None else f"all {len(docs)}"
        raise refusal(samples, "doc_id", f"{len(missing)} of {scope} documents are missing (first: '{missing[0]}')")
    return [kept[d.doc_id] for d in docs]


def _record_of(obj: Any, samples: Path, n: int) -> SampleRecord:
    """Line ``n``'s object as a samples-log record holding no key and nothing but a record's fields
    (what a log holds is published with it)."""
    if not isinstance(obj, dict):
        raise refusal(samples, None, f"line {n}: expected a JSON object")
    unknown = sorted(k for k in obj if k not in SampleRecord.model_fields)
    if unknown:
        raise refusal(
            samples,
            unknown[0],
            f"line {n}: not a field of a samples-log record (debench writes no other; it would be published)",
        )
    refuse_planted_keys(obj, samples, line=n)
    try:
        return SampleRecord.model_validate(obj)
    except ValidationError as exc:
        where, msg = first_problem(exc)
        raise refusal(samples, where, f"line {n}: not a samples-log record ({excerpt(msg, 80)})") from None


def _checked_prediction(rec: SampleRecord, task: TaskConfig, samples: Path, n: int) -> Any:
    """An answered record's prediction, in the task's answer space."""
    from debench.scoring.predictions import check_prediction

    try:
        return check_prediction(rec.prediction, task)
    except ValueError as exc:
        raise refusal(samples, "prediction", f"line {n}: invalid prediction for '{rec.doc_id}': {exc}") from None
