"""Errors a user can cause. The CLI prints them on one line and exits with code 2."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import ValidationError


class UserError(ValueError):
    """A problem with the user's input (task file, data file, predictions, options). A ``ValueError``:
    a Python caller's ``except ValueError`` catches it."""

    exit_code = 2

    def __init__(self, message: str, *, path: str | None = None, field: str | None = None):
        self.path = path
        self.field = field
        parts = []
        if path:
            parts.append(str(path))
        if field:
            parts.append(f"field '{field}'")
        prefix = ": ".join(parts)
        super().__init__(f"{prefix}: {message}" if prefix else message)


class DataError(UserError):
    """A data file is missing, unreadable or lacks required columns."""


def first_problem(exc: ValidationError) -> tuple[str | None, str]:
    """The dotted field (None for the whole object) and the message of a pydantic error's first
    problem: what a one-line ``UserError`` about a file's contents names."""
    first = exc.errors()[0]
    return ".".join(str(p) for p in first["loc"]) or None, str(first["msg"])


class RunStopped(UserError):
    """Stops a run between two requests (the leaderboard's budgets, ``debench.run.runner.run_jobs``):
    the jobs already under way finish and are recorded — what was paid for is kept — and none
    starts after it; the run then ends with this error."""
