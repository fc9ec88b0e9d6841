"""The installed task a results file is bound to, and what of it the run's numbers were scored with.

* The task is one of debench's own (never a file the submission names), with the same ``version``
  and identity (``identity_sha256``: what changes the answers; a results 1.0 file without it is
  bound by its run fingerprint instead).
* When only the task's scoring side changed since the run (``config_sha256`` differs: a metric
  added or changed, see ``debench.task.config.SCORING_SIDE``), the submission is *re-scored*: only
  the metrics scored as they are now (``scored_as_now``) are compared with the file.
* The run's ``config.limit`` and bootstrap resamples are well-formed, the resamples at least the
  task's (a re-scored run is re-scored with at least the task's) and at most ``MAX_N_BOOTSTRAP``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from debench.leaderboard.files import refusal
from debench.metrics.names import primary_metric
from debench.run.task_lookup import named_task
from debench.scoring.results import Results
from debench.task.config import TaskConfig


def bound_task(results: Results, path: Path, include_paths: Sequence[str | Path] = ()) -> TaskConfig:
    """The task of debench's own task directory (never a file named by the submission), or of the
    include paths the user gave ``validate``."""
    from debench.run.pipeline import task_identity, task_sha

    name = results.task.name
    task = named_task(name, include_paths)
    if task is None:
        raise refusal(path, "task.name", f"unknown task '{name}' (`debench tasks` lists the tasks)")
    if primary_metric([m.name for m in task.metrics]) is None:
        raise refusal(
            path,
            "task.name",
            f"task {name} has no metric that measures the judge (only status rates): nothing to rank by",
        )
    if results.task.version != task.version:
        raise refusal(
            path,
            "task.version",
            f"task version {results.task.version} differs from the installed {name} version {task.version}",
        )
    recorded = results.task.identity_sha256
    if recorded is not None and recorded != task_identity(task):
        raise refusal(
            path,
            "task.identity_sha256",
            f"the task's prompt, data, parser or generation settings differ from the installed {name} (identity "
            f"{recorded[:12]}… vs {task_identity(task)[:12]}…); rerun with this debench version",
        )
    if (
        recorded is None
        and results.task.config_sha256 != task_sha(task)
        and results.config.get("fingerprint") != _fingerprint(results, task)
    ):
        raise refusal(
            path,
            "task.config_sha256",
            f"the task definition differs from the installed {name} (sha256 {results.task.config_sha256[:12]}… vs "
            f"{task_sha(task)[:12]}…); rerun with this debench version",
        )
    return task


def _fingerprint(results: Results, task: TaskConfig) -> str | None:
    from debench.run.runner import run_fingerprint

    identity = results.model.identity
    return (
        run_fingerprint(task, identity, results.dataset.content_hash, results.task.method)
        if identity is not None
        else None
    )


def scored_as_now(results: Results, task: TaskConfig) -> set[str]:
    """The task's metrics that the results file computed as the installed task does (all of them
    unless the scoring side changed since the run): those are compared with the file; the others are
    re-scored from the samples."""
    from debench.run.pipeline import scored_with, task_sha

    names = {m.name for m in task.metrics}
    if results.task.config_sha256 == task_sha(task):
        return names
    then, now = results.task.scored_with, scored_with(task)
    if then is None or then.get("scoring") != now["scoring"]:
        return set()
    earlier = {json.dumps(m, sort_keys=True) for m in then.get("metrics", [])}
    return {m["name"] for m in now["metrics"] if json.dumps(m, sort_keys=True) in earlier}


MAX_N_BOOTSTRAP = 10_000
"""Bootstrap resamples a submission's numbers may be computed with: validation recomputes every CI
with the run's count, and each resample costs about 0.3 ms per metric on 631 documents."""


def limit_and_bootstrap(
    task: TaskConfig, results: Results, path: Path, rescored: bool = False
) -> tuple[int | None, int]:
    """The run's document limit and bootstrap resamples; a re-scored run (``rescored``) is re-scored
    with at least the task's resamples."""
    limit = results.config.get("limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise refusal(path, "config.limit", f"must be null or a positive integer, got {json.dumps(limit)}")
    n_boot = results.config.get("n_bootstrap", task.scoring.n_bootstrap)
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 0:
        raise refusal(path, "config.n_bootstrap", f"must be a non-negative integer, got {json.dumps(n_boot)}")
    if n_boot > MAX_N_BOOTSTRAP:
        raise refusal(
            path,
            "config.n_bootstrap",
            f"{n_boot:,} bootstrap resamples is above the {MAX_N_BOOTSTRAP:,} a submission may ask the leaderboard to "
            f"recompute (the task's are {task.scoring.n_bootstrap:,})",
        )
    if rescored:
        return limit, max(n_boot, task.scoring.n_bootstrap)
    if n_boot < task.scoring.n_bootstrap:
        raise refusal(
            path,
            "config.n_bootstrap",
            f"{n_boot} bootstrap resamples is below the task's {task.scoring.n_bootstrap}: "
            "leaderboard metrics need their CIs",
        )
    return limit, n_boot
