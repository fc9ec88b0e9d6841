"""Validated submissions (and the papers' reported numbers) -> the ``Leaderboard``.

Building is deterministic: the same submissions give the same leaderboard (``generated_at`` is
the newest submission's ``created_at``, not the wall clock), so a CI refresh only commits real
changes. Ranking rules are in ``debench.leaderboard.ranking``.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from debench.leaderboard.board import (
    Entry,
    HumanReference,
    Leaderboard,
    MetricColumn,
    OverviewCell,
    OverviewRow,
    TaskBoard,
)
from debench.leaderboard.provenance import MAX_INCOMPLETE_SHARE
from debench.leaderboard.ranking import competition_ranks, overall_ranks, tiers
from debench.leaderboard.reported import Reported
from debench.leaderboard.validate import ValidatedSubmission
from debench.scoring import STATUS_METRICS
from debench.task import TaskConfig

# Metrics that measure the humans against each other: shown as a reference row under the judge
# metric they are the yardstick for, not as a column of their own.
HUMAN_REFERENCE_FOR = {
    "kappa_human": "kappa_loo",
    "krippendorff_alpha_human": "krippendorff_alpha",
}

_STATUS_DIRECTION = {"parse_failure_rate": False, "completion_rate": True}


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


def _entry(sub: ValidatedSubmission, root: Path) -> Entry:
    r = sub.results
    try:
        rel = sub.results_path.resolve().relative_to(root.resolve())
    except ValueError:
        rel = Path(sub.results_path.name)
    return Entry(
        id=f"{sub.submission}/{sub.results_path.name}",
        judge=sub.judge,
        rank=None,
        tier=None,
        unranked_reason=None,
        model=r.model.name,
        model_kind=r.model.kind,
        identity=sub.identity,
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
        incomplete_share=(r.n_errors + r.n_not_completed) / sub.n_docs if sub.n_docs else 0.0,
        total_tokens=r.usage.total_tokens,
        cost_usd=r.usage.cost_usd,
        reports=r.reports,
        provenance=sub.provenance,
    )


def _unranked_reason(e: Entry, primary: str) -> str | None:
    if e.partial:
        return f"covers only the first {e.n_docs} documents"
    if e.metrics[primary].value is None:
        return f"{primary} is undefined for this judge (e.g. a correlation of constant answers)"
    return None


def rank_entries(entries: list[Entry], primary: str, higher_is_better: bool) -> list[Entry]:
    """Set rank, tier and unranked_reason; returns the entries ranked first (by tier, rank), then the others."""
    for e in entries:
        e.unranked_reason = _unranked_reason(e, primary)
    ranked = [e for e in entries if e.unranked_reason is None]
    values = [float(e.metrics[primary].value) for e in ranked]  # type: ignore[arg-type]
    cis = [e.metrics[primary].ci95 for e in ranked]
    for e, rank, tier in zip(ranked, competition_ranks(values, higher_is_better), tiers(values, cis, higher_is_better), strict=True):
        e.rank, e.tier = rank, tier
    unranked = sorted((e for e in entries if e.unranked_reason is not None), key=lambda e: (e.model, e.id))
    return sorted(ranked, key=lambda e: (e.tier or 0, e.rank or 0, e.model, e.id)) + unranked


def task_board(task: TaskConfig, subs: list[ValidatedSubmission], root: Path) -> TaskBoard:
    names = [m.name for m in task.metrics]
    name_set = set(names)
    judge_names = [n for n in names if not _is_reference(n, name_set)]
    primary = next((n for n in judge_names if n not in STATUS_METRICS), judge_names[0] if judge_names else names[0])
    columns = [metric_column(n, n == primary) for n in judge_names]
    higher = next(c.higher_is_better for c in columns if c.name == primary) if columns else True
    entries = rank_entries([_entry(s, root) for s in subs], primary, higher)

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


def overview(tasks: list[TaskBoard]) -> tuple[list[str], list[OverviewRow]]:
    """(the overall task set, one row per judge: ranked overall first, then the others)."""
    rows: dict[str, OverviewRow] = {}
    for t in tasks:
        ranked = sum(1 for e in t.entries if e.rank is not None)
        for e in t.entries:
            row = rows.setdefault(
                e.judge,
                OverviewRow(judge=e.judge, model=e.model, method=e.method, is_baseline=e.is_baseline, cells={}, n_tasks=0, overall_rank=None, mean_rank=None, missing_tasks=[]),
            )
            m = e.metrics[t.primary_metric]
            row.cells[t.name] = OverviewCell(entry=e.id, metric=t.primary_metric, value=m.value, ci95=m.ci95, rank=e.rank, tier=e.tier, n_ranked=ranked)
    overall_tasks = [t.name for t in tasks if any(e.rank is not None for e in t.entries)]
    higher = {t.name: next(c.higher_is_better for c in t.metrics if c.primary) for t in tasks}
    values = {
        j: {name: c.value for name, c in row.cells.items() if c.rank is not None and c.value is not None}
        for j, row in rows.items()
    }
    standing = overall_ranks(values, overall_tasks, higher)
    for j, row in rows.items():
        row.n_tasks = len(row.cells)
        row.missing_tasks = [t for t in overall_tasks if t not in values[j]]
        if j in standing:
            row.mean_rank, row.overall_rank = standing[j]
    ordered = sorted(
        rows.values(),
        key=lambda r: (r.overall_rank is None, r.overall_rank or 0, len(r.missing_tasks), r.model, r.method, r.judge),
    )
    return overall_tasks, ordered


def build_leaderboard(
    subs: Iterable[ValidatedSubmission], root: Path, *, reported: Reported | None = None, title: str = "debench leaderboard"
) -> Leaderboard:
    from debench import __version__

    by_task: dict[str, list[ValidatedSubmission]] = {}
    tasks: dict[str, TaskConfig] = {}
    subs = list(subs)
    for s in subs:
        by_task.setdefault(s.task.name, []).append(s)
        tasks[s.task.name] = s.task
    boards = [task_board(tasks[name], by_task[name], root) for name in sorted(by_task)]
    overall_tasks, rows = overview(boards)
    stamps = [s.results.created_at for s in subs]
    return Leaderboard(
        title=title,
        generated_at=max(stamps) if stamps else None,
        debench_version=__version__,
        n_submissions=len({s.submission for s in subs}),
        max_incomplete_share=MAX_INCOMPLETE_SHARE,
        overall_tasks=overall_tasks,
        tasks=boards,
        overview=rows,
        reported=reported or Reported(papers=[], rows=[]),
    )
