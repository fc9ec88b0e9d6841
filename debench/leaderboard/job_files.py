"""The files the refresh job writes and commits beside its runs — the queue (``queue.json``), the
budget ledger (``ledger.json``), the validation record (``validated.json``) — read and written alike:
a file that is not there is an empty one, a damaged one is a one-line ``UserError`` naming it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from debench.core.atomic import write_atomic
from debench.core.errors import UserError, first_problem

JobFile = TypeVar("JobFile", bound=BaseModel)


def read_job_file(path: Path, model: type[JobFile], what: str) -> JobFile:
    """The file at ``path`` as ``model`` (an empty one when there is no file); ``what`` names it in errors."""
    if not path.exists():
        return model()
    try:
        return model.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        where, msg = first_problem(exc) if isinstance(exc, ValidationError) else (None, type(exc).__name__)
        raise UserError(f"not a leaderboard {what} ({msg})", path=str(path), field=where) from None


def write_job_file(document: BaseModel, path: Path) -> None:
    write_atomic(path, json.dumps(document.model_dump(mode="json"), indent=1) + "\n")
