"""``debench leaderboard build``: validated submissions -> ``leaderboard.json`` (+ the page).

The JSON is versioned (``schema_version``) and documented by
``debench/schema/leaderboard.schema.json``, generated from the models below. Building is
deterministic: the same submissions give byte-identical files (``generated_at`` is the newest
submission's ``created_at``, not the wall clock), so a CI refresh only commits real changes.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from debench.atomic import write_atomic
from debench.errors import UserError
from debench.json_schema import document_schema, validate_with_schema_file
from debench.leaderboard.validate import ValidatedSubmission, find_results_files, validate_submission
from debench.scoring import STATUS_METRICS, MetricValue
from debench.task import TaskConfig

log = logging.getLogger(__name__)

LEADERBOARD_SCHEMA_VERSION = "1.0"
SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schema" / "leaderboard.schema.json"

# Metrics that measure the humans against each other: shown as a reference row under the judge
# metric they are the yardstick for, not as a column of their own.
HUMAN_REFERENCE_FOR = {
    "kappa_human": "kappa_loo",
    "krippendorff_alpha_human": "krippendorff_alpha",
}

_STATUS_DIRECTION = {"parse_failure_rate": False, "completion_rate": True}


class MetricColumn(BaseModel):
    name: str
    description: str
    higher_is_better: bool
    kind: Literal["judge", "status"] = Field(description="judge: quality of the judge; status: parse failures, completion")
    primary: bool = Field(description="the metric entries are ranked by")


class HumanReference(BaseModel):
    metric: str = Field(description="the judge metric column this reference belongs to, e.g. kappa_loo")
    source_metric: str = Field(description="the results metric holding the human-human figure, e.g. kappa_human")
    description: str
    value: MetricValue


class Entry(BaseModel):
    id: str = Field(description="<submission folder>/<results file name>, unique")
    rank: int | None = Field(description="1 = best by the primary metric; null when it is undefined")
    model: str
    model_kind: str
    is_baseline: bool
    method: str
    submission: str
    results_file: str = Field(description="path relative to the submissions directory")
    samples_file: str
    created_at: str
    n_docs: int = Field(description="documents covered by the run")
    partial: bool = Field(description="true when the run covered only the first config.limit documents")
    metrics: dict[str, MetricValue]
    n_samples: int
    n_parse_failures: int
    n_errors: int
    n_not_completed: int
    total_tokens: int
    cost_usd: float | None
    reports: dict[str, Any] = Field(default_factory=dict)


class TaskBoard(BaseModel):
    name: str
    version: int
    description: str
    group: str | None
    config_sha256: str
    dataset_content_hash: str
    n_docs_total: int
    primary_metric: str
    metrics: list[MetricColumn]
    human_reference: list[HumanReference]
    choices: list[Any] | None = Field(default=None, description="the task's answer space, in its own order (for plots)")
    entries: list[Entry] = Field(description="best first by the primary metric")


class OverviewCell(BaseModel):
    entry: str = Field(description="Entry.id")
    metric: str
    value: float | None
    ci95: list[float] | None
    rank: int | None
    n_ranked: int = Field(description="entries ranked on the task")


class OverviewRow(BaseModel):
    model: str
    method: str
    is_baseline: bool
    cells: dict[str, OverviewCell] = Field(description="task name -> the model's primary metric on it")
    n_tasks: int
    mean_rank: float | None = Field(description="mean rank over the tasks the model was run on")


class Leaderboard(BaseModel):
    schema_version: str = LEADERBOARD_SCHEMA_VERSION
    title: str
    generated_at: str | None = Field(description="newest created_at among the entries (deterministic)")
    debench_version: str
    n_submissions: int
    tasks: list[TaskBoard]
    overview: list[OverviewRow] = Field(description="one row per model and method, best mean rank first")


def leaderboard_json_schema() -> dict[str, Any]:
    return document_schema(Leaderboard, slug="leaderboard", version=LEADERBOARD_SCHEMA_VERSION, title="debench leaderboard")


def validate_leaderboard_dict(data: dict[str, Any]) -> None:
    validate_with_schema_file(data, SCHEMA_PATH)


def metric_column(name: str, primary: bool) -> MetricColumn:
    if name in STATUS_METRICS:
        return MetricColumn(name=name, description=STATUS_METRICS[name], higher_is_better=_STATUS_DIRECTION.get(name, False), kind="status", primary=primary)
    from debench.metrics.base import get_metric

    m = get_metric(name)
    return MetricColumn(name=name, description=m.description, higher_is_better=m.higher_is_better, kind="judge", primary=primary)


def _is_reference(name: str, metric_names: set[str]) -> bool:
    return name in HUMAN_REFERENCE_FOR or (name.endswith("_human") and name[: -len("_human")] in metric_names)


def _reference_target(name: str) -> str:
    return HUMAN_REFERENCE_FOR.get(name, name[: -len("_human")])


def _rank(values: list[float | None], higher_is_better: bool) -> list[int | None]:
    """Competition ranking (1, 2, 2, 4); undefined values get no rank."""
    defined = sorted((v for v in values if v is not None), reverse=higher_is_better)
    out: list[int | None] = []
    for v in values:
        out.append(None if v is None else 1 + sum(1 for w in defined if (w > v if higher_is_better else w < v)))
    return out


def _entry(sub: ValidatedSubmission, root: Path) -> Entry:
    r = sub.results
    try:
        rel = sub.results_path.resolve().relative_to(root.resolve())
    except ValueError:
        rel = Path(sub.results_path.name)
    return Entry(
        id=f"{sub.submission}/{sub.results_path.name}",
        rank=None,
        model=r.model.name,
        model_kind=r.model.kind,
        is_baseline=r.model.kind == "baseline",
        method=r.task.method,
        submission=sub.submission,
        results_file=rel.as_posix(),
        samples_file=(rel.parent / sub.samples_path.name).as_posix(),
        created_at=r.created_at,
        n_docs=sub.n_docs,
        partial=sub.partial,
        metrics=r.metrics,
        n_samples=r.n_samples,
        n_parse_failures=r.n_parse_failures,
        n_errors=r.n_errors,
        n_not_completed=r.n_not_completed,
        total_tokens=r.usage.total_tokens,
        cost_usd=r.usage.cost_usd,
        reports=r.reports,
    )


def task_board(task: TaskConfig, subs: list[ValidatedSubmission], root: Path) -> TaskBoard:
    names = [m.name for m in task.metrics]
    name_set = set(names)
    judge_names = [n for n in names if not _is_reference(n, name_set)]
    primary = next((n for n in judge_names if n not in STATUS_METRICS), judge_names[0] if judge_names else names[0])
    columns = [metric_column(n, n == primary) for n in judge_names]
    entries = [_entry(s, root) for s in subs]
    higher = next(c.higher_is_better for c in columns if c.name == primary) if columns else True
    for e, rank in zip(entries, _rank([e.metrics[primary].value for e in entries], higher), strict=True):
        e.rank = rank
    entries.sort(key=lambda e: (e.rank is None, e.rank or 0, e.partial, e.model, e.id))

    refs: list[HumanReference] = []
    for n in names:
        if not _is_reference(n, name_set):
            continue
        # The humans' figure on the documents a full run scored: take the entry with the largest n.
        best = max((e for e in entries if n in e.metrics), key=lambda e: (not e.partial, e.metrics[n].n), default=None)
        if best is not None and best.metrics[n].value is not None:
            refs.append(HumanReference(metric=_reference_target(n), source_metric=n, description=metric_column(n, False).description, value=best.metrics[n]))

    first = subs[0]
    return TaskBoard(
        name=task.name,
        version=task.version,
        description=" ".join(task.description.split()),
        group=task.group,
        config_sha256=first.results.task.config_sha256,
        dataset_content_hash=first.results.dataset.content_hash,
        n_docs_total=first.n_docs_total,
        primary_metric=primary,
        metrics=columns,
        human_reference=refs,
        choices=list(task.parser.choices) if task.parser.choices else None,
        entries=entries,
    )


def overview(tasks: list[TaskBoard]) -> list[OverviewRow]:
    rows: dict[tuple[str, str], OverviewRow] = {}
    for t in tasks:
        ranked = sum(1 for e in t.entries if e.rank is not None)
        for e in t.entries:  # best first: a model's best entry on a task wins
            row = rows.setdefault((e.model, e.method), OverviewRow(model=e.model, method=e.method, is_baseline=e.is_baseline, cells={}, n_tasks=0, mean_rank=None))
            if t.name in row.cells:
                continue
            m = e.metrics[t.primary_metric]
            row.cells[t.name] = OverviewCell(entry=e.id, metric=t.primary_metric, value=m.value, ci95=m.ci95, rank=e.rank, n_ranked=ranked)
    for row in rows.values():
        row.n_tasks = len(row.cells)
        ranks = [c.rank for c in row.cells.values() if c.rank is not None]
        row.mean_rank = sum(ranks) / len(ranks) if ranks else None
    return sorted(rows.values(), key=lambda r: (r.mean_rank is None, r.mean_rank or 0.0, -r.n_tasks, r.model, r.method))


def build_leaderboard(subs: Iterable[ValidatedSubmission], root: Path, *, title: str = "debench leaderboard") -> Leaderboard:
    from debench import __version__

    by_task: dict[str, list[ValidatedSubmission]] = {}
    tasks: dict[str, TaskConfig] = {}
    subs = list(subs)
    for s in subs:
        by_task.setdefault(s.task.name, []).append(s)
        tasks[s.task.name] = s.task
    boards = [task_board(tasks[name], by_task[name], root) for name in sorted(by_task)]
    stamps = [s.results.created_at for s in subs]
    return Leaderboard(
        title=title,
        generated_at=max(stamps) if stamps else None,
        debench_version=__version__,
        n_submissions=len({s.submission for s in subs}),
        tasks=boards,
        overview=overview(boards),
    )


def validate_all(paths: Iterable[str | Path], *, data_dir: str | Path | None = None) -> tuple[list[ValidatedSubmission], list[UserError]]:
    """Validate every results file under ``paths``; returns the accepted ones and the rejections."""
    ok: list[ValidatedSubmission] = []
    errors: list[UserError] = []
    for path in find_results_files(paths):
        try:
            ok.append(validate_submission(path, data_dir=data_dir))
        except UserError as exc:
            errors.append(exc)
    return ok, errors


def write_leaderboard(board: Leaderboard, out_dir: Path) -> tuple[Path, Path]:
    """Write ``leaderboard.json`` and ``index.html`` atomically; returns their paths."""
    from debench.leaderboard.page import render_page

    out_dir.mkdir(parents=True, exist_ok=True)
    data = board.model_dump(mode="json")
    validate_leaderboard_dict(data)
    json_path, html_path = out_dir / "leaderboard.json", out_dir / "index.html"
    write_atomic(json_path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    write_atomic(html_path, render_page(board))
    return json_path, html_path


def build(results_dir: Path, out_dir: Path, *, data_dir: str | Path | None = None, skip_invalid: bool = False) -> tuple[Leaderboard, list[UserError]]:
    """Validate every submission under ``results_dir`` and write the leaderboard to ``out_dir``.

    A rejected submission stops the build (``UserError``) unless ``skip_invalid``, in which case it
    is left out and returned among the errors.
    """
    if not results_dir.is_dir():
        raise UserError("submissions directory not found", path=str(results_dir))
    files = sorted(results_dir.rglob("results_*.json"))
    ok, errors = validate_all(files, data_dir=data_dir) if files else ([], [])
    if errors and not skip_invalid:
        raise errors[0]
    board = build_leaderboard(ok, results_dir)
    write_leaderboard(board, out_dir)
    return board, errors
