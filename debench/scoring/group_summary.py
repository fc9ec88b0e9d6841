"""The summary of a group run (``--task debateart``): one small JSON beside the tasks' results
files naming each task, its results file and its primary metric.

The primary metric of a task is ``debench.metrics.names.primary_metric``: the first metric of its
task file that measures the judge and is not a status rate (``parse_failure_rate``,
``completion_rate``), the definition the leaderboard ranks by too. Metrics of different tasks are not averaged:
an RMSE and an accuracy do not add up.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from debench.core.atomic import write_json_record
from debench.core.json_schema import document_schema, schema_path
from debench.metrics.base import get_metric
from debench.metrics.names import primary_metric as primary_metric_name
from debench.scoring.results import Results, now_iso

SCHEMA_VERSION = "1.0"
GROUP_SUMMARY_SCHEMA_PATH = schema_path("group_summary.schema.json")


class PrimaryMetric(BaseModel):
    name: str
    value: float | None
    ci95: list[float] | None = Field(default=None, min_length=2, max_length=2)
    n: int
    higher_is_better: bool


class GroupTask(BaseModel):
    task: str
    version: int
    method: str
    results_file: str = Field(description="the task's results file, relative to this summary")
    primary_metric: PrimaryMetric | None = Field(
        description="the first metric that is not a status rate; null when the task has none"
    )
    n_samples: int
    n_parse_failures: int
    n_errors: int
    n_not_completed: int
    is_sample: bool = Field(description="the run used debench's small sample data, not the real data set")


class GroupSummary(BaseModel):
    schema_version: str = SCHEMA_VERSION
    group: str
    model: str
    tasks: list[GroupTask]
    created_at: str


def primary_metric(results: Results) -> PrimaryMetric | None:
    name = primary_metric_name(list(results.metrics))
    if name is None:
        return None
    m = results.metrics[name]
    return PrimaryMetric(
        name=name, value=m.value, ci95=m.ci95, n=m.n, higher_is_better=get_metric(name).higher_is_better
    )


def build_group_summary(group: str, runs: Sequence[tuple[Results, Path]], where: Path) -> GroupSummary:
    """``runs``: (results, results path) of each task of the group; paths are written relative to ``where``."""
    models = {r.model.name for r, _ in runs}
    if len(models) != 1:
        raise ValueError(f"a group summary covers one model, got {sorted(models)}")
    return GroupSummary(
        group=group,
        model=models.pop(),
        tasks=[
            GroupTask(
                task=r.task.name,
                version=r.task.version,
                method=r.task.method,
                results_file=Path(os.path.relpath(path, where)).as_posix(),
                primary_metric=primary_metric(r),
                n_samples=r.n_samples,
                n_parse_failures=r.n_parse_failures,
                n_errors=r.n_errors,
                n_not_completed=r.n_not_completed,
                is_sample=r.dataset.is_sample,
            )
            for r, path in runs
        ],
        created_at=now_iso(),
    )


def write_group_summaries(groups: Mapping[str, Sequence[str]], runs: Sequence[tuple[Results, Path]]) -> dict[str, Path]:
    """One ``group_<group>_<digest>.json`` per group, beside its results files (group -> its path);
    the digest names the results files it covers, so the same command rewrites the same summary."""
    by_task = {r.task.name: (r, p) for r, p in runs}
    written: dict[str, Path] = {}
    for group, names in groups.items():
        members = [by_task[n] for n in names if n in by_task]
        if not members:
            continue
        where = members[0][1].parent
        digest = hashlib.sha256("\n".join(p.name for _, p in members).encode()).hexdigest()[:10]
        summary = build_group_summary(group, members, where)
        written[group] = write_json_record(where / f"group_{group}_{digest}.json", summary)
    return written


def group_summary_json_schema() -> dict[str, Any]:
    return document_schema(GroupSummary, slug="group-summary", version=SCHEMA_VERSION, title="debench group summary")
