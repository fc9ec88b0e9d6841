"""Validating many submissions at once: one row per judge (model identity + method) and task.

The same run placed in two folders, or two runs of the same model identity, method and task,
would give a judge two rows. The first (in path order) is kept; the other is refused with both
paths named. With ``folders``, every folder holding a results file is checked too
(``debench.leaderboard.files.folder_problems``: regular files only, each accounted for, none
holding a key).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from debench.errors import UserError
from debench.leaderboard.files import folder_problems
from debench.leaderboard.validate import ValidatedSubmission, validate_submission


def duplicate_error(sub: ValidatedSubmission, first: ValidatedSubmission) -> UserError:
    return UserError(
        f"same model identity, method and task ({sub.results.model.name}, {sub.results.task.method}, {sub.task.name}) as "
        f"{first.results_path}: one row per model and task, so submit only one of them",
        path=str(sub.results_path),
        field="model.identity",
    )


def validate_all(
    paths: Iterable[str | Path], *, data_dir: str | Path | None = None, folders: bool = False
) -> tuple[list[ValidatedSubmission], list[UserError]]:
    """Validate every results file given; returns the accepted ones and the refusals."""
    ok: list[ValidatedSubmission] = []
    errors: list[UserError] = []
    seen: dict[tuple[str, str], ValidatedSubmission] = {}
    files = sorted(Path(p) for p in paths)
    if folders:
        for folder in sorted({p.parent for p in files}):
            errors += folder_problems(folder)
    for path in files:
        try:
            sub = validate_submission(path, data_dir=data_dir)
        except UserError as exc:
            errors.append(exc)
            continue
        key = (sub.task.name, sub.judge)
        if key in seen:
            errors.append(duplicate_error(sub, seen[key]))
            continue
        seen[key] = sub
        ok.append(sub)
    return ok, errors
