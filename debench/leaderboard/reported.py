"""Numbers the papers report for their judges: shown on the leaderboard apart from the verified
entries, marked "reported in paper, not verified", never ranked.

They live in ``leaderboard/reported.json`` (schema ``debench/schema/leaderboard_reported.schema.json``).
Each row names the paper, the table the numbers come from, the model and the debench task, method
and metrics they correspond to, the numbers as printed and on debench's scale (printed = value ×
``scale``), how many documents and runs they cover, and how the paper's setting differs from
debench's. Loading checks the file against its schema and every row against debench: a known
task, one of its metrics, a known judge method, a declared paper, and a value that rounds to the
printed number. Papers from which no row could be taken say why in ``papers_without_rows``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from debench.core.errors import UserError
from debench.core.json_schema import document_schema, schema_path, validate_with_schema_file

REPORTED_SCHEMA_VERSION = "1.0"
REPORTED_SCHEMA_PATH = schema_path("leaderboard_reported.schema.json")
NOT_VERIFIED: Literal["reported in paper, not verified"] = "reported in paper, not verified"


class Paper(BaseModel):
    id: str = Field(description="short id the rows refer to, e.g. debatrix")
    title: str
    authors: str = Field(description="e.g. Liang et al.")
    year: int
    reference: str | None = Field(default=None, description="arXiv id or venue, when known")


class PaperWithoutRows(BaseModel):
    paper: str = Field(description="Paper.id")
    reason: str = Field(description="why no judge number could be taken from it")


class ReportedValue(BaseModel):
    value: float = Field(description="on debench's scale (printed / scale)")
    printed: str = Field(description="the number exactly as printed in the paper")


class ReportedRow(BaseModel):
    paper: str = Field(description="Paper.id")
    table: str = Field(description="where in the paper, e.g. 'Table 5'")
    task: str = Field(description="the debench task the numbers correspond to")
    model: str = Field(description="the model as the paper identifies it, e.g. gpt-3.5-turbo-0125")
    model_label: str = Field(description="the paper's name for it, e.g. ChatGPT")
    method: str = Field(description="the closest debench judge method")
    setting: str = Field(description="how the paper ran it, in its own terms")
    metrics: dict[str, ReportedValue] = Field(min_length=1, description="debench metric name -> value")
    scale: float = Field(description="printed = value x scale (100 for numbers printed x100 or in %)")
    n_docs: int | None = Field(description="documents the numbers cover, when the paper says")
    runs: int | None = Field(description="runs averaged, when the paper says")
    note: str | None = None
    label: Literal["reported in paper, not verified"] = NOT_VERIFIED


class Reported(BaseModel):
    papers: list[Paper]
    rows: list[ReportedRow]
    papers_without_rows: list[PaperWithoutRows] = Field(default_factory=list)


class ReportedFile(Reported):
    schema_version: str = REPORTED_SCHEMA_VERSION


def reported_json_schema() -> dict[str, Any]:
    return document_schema(
        ReportedFile,
        slug="leaderboard-reported",
        version=REPORTED_SCHEMA_VERSION,
        title="debench leaderboard: numbers reported in papers",
    )


def _err(path: Path, field: str | None, message: str) -> UserError:
    return UserError(message, path=str(path), field=field)


def _rounds_to(value: float, scale: float, printed: str) -> bool:
    decimals = len(printed.split(".")[1]) if "." in printed else 0
    return bool(abs(value * scale - float(printed)) <= 0.5 * 10**-decimals + 1e-9)


def _check_row(row: ReportedRow, i: int, papers: set[str], path: Path) -> None:
    from debench.judging.base import METHODS
    from debench.run.task_lookup import installed_task

    where = f"rows.{i}"
    if row.paper not in papers:
        raise _err(
            path, f"{where}.paper", f"'{row.paper}' is not one of the papers listed ({', '.join(sorted(papers))})"
        )
    task = installed_task(row.task)
    if task is None:
        raise _err(path, f"{where}.task", f"unknown task '{row.task}'")
    if row.method not in METHODS:
        raise _err(
            path, f"{where}.method", f"'{row.method}' is not a judge method (known: {', '.join(METHODS.names())})"
        )
    task_metrics = {m.name for m in task.metrics}
    for name, v in row.metrics.items():
        if name not in task_metrics:
            raise _err(
                path, f"{where}.metrics.{name}", f"not a metric of task {row.task} ({', '.join(sorted(task_metrics))})"
            )
        try:
            ok = _rounds_to(v.value, row.scale, v.printed)
        except ValueError:
            raise _err(path, f"{where}.metrics.{name}.printed", f"'{v.printed}' is not a number") from None
        if not ok:
            raise _err(
                path,
                f"{where}.metrics.{name}.value",
                f"{v.value} x {row.scale:g} does not round to the printed {v.printed}",
            )


def load_reported(path: Path) -> ReportedFile:
    """The reported rows, checked (one-line ``UserError`` naming the file and field otherwise)."""
    import jsonschema

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _err(path, None, "reported-numbers file not found") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise _err(path, None, f"cannot read the reported-numbers file ({exc.__class__.__name__})") from None
    try:
        validate_with_schema_file(data, REPORTED_SCHEMA_PATH)
    except jsonschema.ValidationError as exc:
        where = ".".join(str(p) for p in exc.absolute_path) or None
        raise _err(path, where, f"does not follow its schema: {' '.join(exc.message.split())[:160]}") from None
    reported = ReportedFile.model_validate(data)
    papers = {p.id for p in reported.papers}
    for i, row in enumerate(reported.rows):
        _check_row(row, i, papers, path)
    for i, p in enumerate(reported.papers_without_rows):
        if p.paper not in papers:
            raise _err(path, f"papers_without_rows.{i}.paper", f"'{p.paper}' is not one of the papers listed")
    return reported
