"""Validating many submissions at once: one row per judge (model identity + method) and task.

The same run placed in two folders, or two runs of the same model identity, method and task,
would give a judge two rows. The first (in path order) is kept; the other is refused with both
paths named.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from debench.errors import UserError
from debench.leaderboard.spot_check import SpotCheckSettings, run_spot_checks
from debench.leaderboard.validate import ValidatedSubmission, validate_submission


def duplicate_error(sub: ValidatedSubmission, first: ValidatedSubmission) -> UserError:
    return UserError(
        f"same model identity, method and task ({sub.results.model.name}, {sub.results.task.method}, {sub.task.name}) as "
        f"{first.results_path}: one row per model and task, so submit only one of them",
        path=str(sub.results_path),
        field="model.identity",
    )


def validate_all(
    paths: Iterable[str | Path], *, data_dir: str | Path | None = None, spot_check: SpotCheckSettings | None = None
) -> tuple[list[ValidatedSubmission], list[UserError]]:
    """Validate every results file given (and, with ``spot_check``, re-judge a sample of each);
    returns the accepted ones and the refusals."""
    ok: list[ValidatedSubmission] = []
    errors: list[UserError] = []
    seen: dict[tuple[str, str], ValidatedSubmission] = {}
    for path in sorted(Path(p) for p in paths):
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
    if spot_check is not None:
        refused = run_spot_checks(ok, spot_check)
        bad = {e.path for e in refused}
        ok = [s for s in ok if str(s.results_path) not in bad]
        errors += refused
    return ok, errors
