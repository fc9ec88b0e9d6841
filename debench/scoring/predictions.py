"""Reading a predictions file for ``debench score``.

One JSON object per line: ``{"doc_id": ..., "response": "<raw model text>"}`` (goes through the
task's parser) or ``{"doc_id": ..., "prediction": <parsed value>}`` (``null`` = a parse failure), never
both. A samples log written by ``debench eval`` is accepted as well (its ``status`` is honoured, and a
Debatrix record's ``verdicts`` are kept and scored apart).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from debench.core.errors import UserError
from debench.core.jsonl import iter_jsonl_objects
from debench.data.base import Doc
from debench.data.samples import SampleRecord
from debench.data.transcript import debate_text
from debench.task.config import TaskConfig
from debench.task.parsing import check_shape, parse_answer
from debench.task.transforms import ParseFailure


def check_prediction(value: Any, task: TaskConfig) -> Any:
    """Validate a parsed prediction against the task's answer space; returns it normalized."""
    p = task.parser
    kinds: dict[str, type | tuple[type, ...]] = {
        "int": int,
        "float": (int, float),
        "str": str,
        "list": list,
        "dict": dict,
    }
    expected = kinds[p.type]
    if isinstance(value, bool) or not isinstance(value, expected):
        raise ValueError(f"expected a {p.type}, got {json.dumps(value)[:40]}")
    try:
        return check_shape(value, p)
    except ParseFailure as exc:
        raise ValueError(str(exc)) from None


def load_predictions(path: Path, task: TaskConfig, docs: list[Doc]) -> list[SampleRecord]:
    """Records aligned with ``docs``; every doc must appear exactly once, no unknown doc_id."""
    by_id = {d.doc_id: d for d in docs}
    seen: dict[str, SampleRecord] = {}
    for n, obj in iter_jsonl_objects(path, "predictions"):
        where = f"line {n}"
        doc_id = obj.get("doc_id")
        if not isinstance(doc_id, (str, int)) or isinstance(doc_id, bool):
            raise UserError(f"{where}: missing or non-string doc_id", path=str(path), field="doc_id")
        doc_id = str(doc_id)
        if doc_id not in by_id:
            raise UserError(f"{where}: unknown doc_id '{doc_id}' for task {task.name}", path=str(path), field="doc_id")
        if doc_id in seen:
            raise UserError(f"{where}: duplicate doc_id '{doc_id}'", path=str(path), field="doc_id")
        seen[doc_id] = _record(obj, doc_id, by_id[doc_id], task, where, path)
    missing = [d.doc_id for d in docs if d.doc_id not in seen]
    if missing:
        raise UserError(
            f"{len(missing)} document(s) have no prediction (first: '{missing[0]}'); use --limit to score a prefix",
            path=str(path),
            field="doc_id",
        )
    return [seen[d.doc_id] for d in docs]


def _verdicts(value: Any, task: TaskConfig, where: str, path: Path) -> dict[str, Any] | None:
    """A samples-log record's ``verdicts`` (Debatrix: summary and scores), each checked like a prediction."""
    if value is None:
        return None
    if not isinstance(value, dict):
        raise UserError(f"{where}: verdicts must be an object", path=str(path), field="verdicts")
    try:
        return {str(k): None if v is None else check_prediction(v, task) for k, v in value.items()}
    except ValueError as exc:
        raise UserError(f"{where}: invalid verdict: {exc}", path=str(path), field="verdicts") from None


def _record(obj: dict[str, Any], doc_id: str, doc: Doc, task: TaskConfig, where: str, path: Path) -> SampleRecord:
    status = obj.get("status")
    if status is None and "prediction" in obj and "response" in obj:
        # only a samples log (its lines carry a status) holds both: elsewhere one would be ignored
        raise UserError(
            f"{where}: holds both 'prediction' and 'response' for '{doc_id}'; give one (a parsed "
            "value, or the raw answer to parse)",
            path=str(path),
            field="prediction",
        )
    if status in ("error", "not_completed"):
        return SampleRecord(doc_id=doc_id, status=status, error=obj.get("error"), target=doc.target)
    verdicts = _verdicts(obj.get("verdicts"), task, where, path)
    if (
        verdicts is not None and status == "parse_failure"
    ):  # a method's own reading (e.g. Debatrix by scores): not the response's
        return SampleRecord(
            doc_id=doc_id,
            status="parse_failure",
            parse_error=obj.get("parse_error"),
            response=obj.get("response"),
            target=doc.target,
            verdicts=verdicts,
        )
    if "prediction" in obj and (status is None or status == "ok" or obj["prediction"] is not None):
        value = obj["prediction"]
        if value is None:
            return SampleRecord(
                doc_id=doc_id,
                status="parse_failure",
                parse_error="null prediction",
                response=obj.get("response"),
                target=doc.target,
                verdicts=verdicts,
            )
        try:
            value = check_prediction(value, task)
        except ValueError as exc:
            raise UserError(
                f"{where}: invalid prediction for '{doc_id}': {exc}", path=str(path), field="prediction"
            ) from None
        return SampleRecord(
            doc_id=doc_id,
            status="ok",
            prediction=value,
            response=obj.get("response"),
            target=doc.target,
            verdicts=verdicts,
        )
    if "response" in obj:
        text = obj["response"]
        if text is not None and not isinstance(text, str):
            raise UserError(f"{where}: response must be a string", path=str(path), field="response")
        parsed = parse_answer(text, task.parser, debate_text(doc))
        return SampleRecord(
            doc_id=doc_id,
            status="ok" if parsed.ok else "parse_failure",
            prediction=parsed.value,
            response=text,
            parse_error=parsed.reason,
            target=doc.target,
        )
    raise UserError(f"{where}: needs a 'prediction' or a 'response'", path=str(path), field="prediction")
