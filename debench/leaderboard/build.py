"""Validated submissions with their standing (and the papers' reported numbers) -> the ``Leaderboard``.

Building is deterministic: the same submissions give the same leaderboard (``generated_at`` is
the newest submission's ``created_at``, not the wall clock), so a CI refresh only commits real
changes. What is ranked at all:

* per task, only **verified** entries (``debench.leaderboard.verify``) are ranked and tiered, and
  among them not a run on the first ``--limit`` documents, not one whose primary metric is
  undefined, and not one whose metrics leave out more than ``MAX_LEFT_OUT_SHARE`` of the documents
  (errors, not completed, and parse failures — a judge that fails to answer the hard documents
  cannot rank above one that answers them all);
* self-reported entries are listed apart with their numbers and CIs, never ranked; baselines are
  reference lines (chance and heuristic levels), never ranked;
* the overall ranking covers verified judges only and appears once ``MIN_OVERALL_JUDGES`` of them
  are ranked on every task of the overall set; until then ``overall_waiting`` says what is missing.

Ranks, tiers and the overall rank are computed by ``debench.leaderboard.ranking``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from debench.leaderboard.board import (
    Canonical,
    CardLink,
    ComparisonInfo,
    Entry,
    HumanReference,
    Leaderboard,
    MetricColumn,
    OverviewCell,
    OverviewRow,
    TaskBoard,
    WaitingRun,
)
from debench.leaderboard.provenance import MAX_INCOMPLETE_SHARE
from debench.leaderboard.ranking import competition_ranks, overall_ranks, tiers
from debench.leaderboard.reported import Reported
from debench.leaderboard.validate import ValidatedSubmission
from debench.leaderboard.verify import Kept, Nomination, Reproduction, Standing, Waiting, entry_id, row_id
from debench.metrics.names import HUMAN_REFERENCE_FOR, STATUS_METRICS, is_human_reference, judge_metrics, primary_metric
from debench.task.config import TaskConfig

MAX_LEFT_OUT_SHARE = MAX_INCOMPLETE_SHARE
"""Largest share of documents an entry's metrics may leave out (errors, not completed, parse
failures) and still be ranked: the same 5% a submission may have in errors at all."""
MIN_OVERALL_JUDGES = 2
"""Verified judges (baselines aside) that must share the overall task set before it is ranked."""

CHANCE_BASELINES = ("random", "majority", "constant")

_STATUS_DIRECTION = {"parse_failure_rate": False, "completion_rate": True}


def metric_column(name: str, primary: bool) -> MetricColumn:
    if name in STATUS_METRICS:
        return MetricColumn(
            name=name,
            description=STATUS_METRICS[name],
            higher_is_better=_STATUS_DIRECTION.get(name, False),
            kind="status",
            primary=primary,
        )
    from debench.metrics.base import get_metric

    m = get_metric(name)
    return MetricColumn(
        name=name, description=m.description, higher_is_better=m.higher_is_better, kind="judge", primary=primary
    )


def _reference_target(name: str) -> str:
    return HUMAN_REFERENCE_FOR.get(name, name[: -len("_human")])


@dataclass(frozen=True)
class _Context:
    """What a task's entries are built with: the canonical judges' rows, the nominations, the waiting runs."""

    rows: Mapping[str, Reproduction]
    nominations: Mapping[str, Nomination]
    waiting: Sequence[Waiting]
    cards: Mapping[str, CardLink]

    def position(self, judge: str, task: str) -> int | None:
        at = [i for i, w in enumerate(self.waiting) if (w.judge, w.task) == (judge, task)]
        return at[0] + 1 if at else None

    def canonical(self, rep: Reproduction) -> Canonical:
        a = rep.judge.allowed
        nominations = [
            eid for eid, n in self.nominations.items() if (n.judge.id, n.task) == (rep.judge.id, rep.run.task.name)
        ]
        return Canonical(
            judge=rep.judge.id,
            model=a.model,
            variant=a.variant,
            method=rep.judge.method,
            settings=rep.judge.settings,
            endpoints=rep.endpoints,
            nominations=nominations,
            card=self.cards.get(rep.judge.id),
        )


def _comparison(n: Nomination | None) -> ComparisonInfo | None:
    if n is None or n.comparison is None:
        return None
    c = n.comparison
    return ComparisonInfo(
        metric=c.metric,
        submitted=c.submitted,
        reproduced=c.reproduced,
        difference=c.difference,
        difference_ci95=c.difference_ci95,
        within_noise=c.within_noise,
        agreement=c.agreement,
        n_docs=c.n_docs,
    )


def _entry(sub: ValidatedSubmission, standing: Standing, reason: str, ctx: _Context) -> Entry:
    """The page's entry of ``sub``: a canonical judge's row when it is one of the job's runs."""
    r = sub.results
    rep = ctx.rows.get(row_id(sub)) if standing == "verified" else None
    eid = row_id(sub) if rep is not None else entry_id(sub)
    nom = ctx.nominations.get(eid)
    rel = Path("reproduced" if rep is not None else "submissions", sub.submission, sub.results_path.name)
    level: Literal["chance", "heuristic"] | None = None
    if standing == "baseline":
        level = (
            "chance" if str(r.model.name).removeprefix("baseline/").split(":")[0] in CHANCE_BASELINES else "heuristic"
        )
    return Entry(
        id=eid,
        judge=rep.judge.id if rep is not None else sub.judge_key,
        standing=standing,
        standing_reason=reason,
        rank=None,
        tier=None,
        unranked_reason=None,
        baseline_level=level,
        model=r.model.name,
        model_kind=r.model.kind,
        identity=sub.identity,
        is_baseline=r.model.kind == "baseline",
        method=r.task.method,
        submission=None if rep is not None else sub.submission,
        results_file=rel.as_posix(),
        samples_file=(rel.parent / sub.samples_path.name).as_posix(),
        created_at=sub.results.created_at,
        n_docs=sub.n_docs,
        partial=sub.partial,
        metrics=sub.metrics,
        n_samples=r.n_samples,
        n_parse_failures=r.n_parse_failures,
        n_errors=r.n_errors,
        n_not_completed=r.n_not_completed,
        incomplete_share=(r.n_errors + r.n_not_completed) / sub.n_docs if sub.n_docs else 0.0,
        left_out_share=sub.left_out / sub.n_docs if sub.n_docs else 0.0,
        total_tokens=r.usage.total_tokens,
        cost_usd=r.usage.cost_usd,
        reports=sub.reports,
        provenance=sub.provenance,
        canonical=ctx.canonical(rep) if rep is not None else None,
        nominates=nom.judge.id if nom is not None else None,
        comparison=_comparison(nom),
        queue_position=ctx.position(nom.judge.id, sub.task.name) if nom is not None else None,
    )


def _unranked_reason(e: Entry, primary: str) -> str | None:
    if e.partial:
        return f"covers only the first {e.n_docs} documents"
    if e.metrics[primary].value is None:
        return f"{primary} is undefined for this judge (e.g. a correlation of constant answers)"
    if e.left_out_share > MAX_LEFT_OUT_SHARE:
        failed = e.n_errors + e.n_not_completed
        return (
            f"its metrics leave out {e.left_out_share:.1%} of the documents ({e.n_parse_failures} parse "
            f"failures, {failed} errors or not completed); an entry is ranked only when they leave out "
            f"at most {MAX_LEFT_OUT_SHARE:.0%}"
        )
    return None


def _ranked_value(e: Entry, primary: str) -> float:
    value = e.metrics[primary].value
    if value is None:  # _unranked_reason leaves an entry without a value unranked: never reached
        raise ValueError(f"{e.judge}: ranked without a value of {primary}")
    return float(value)


def rank_entries(entries: list[Entry], primary: str, higher_is_better: bool) -> list[Entry]:
    """Set rank, tier and unranked_reason; returns the entries ranked first (by tier, rank), then the others."""
    for e in entries:
        e.unranked_reason = _unranked_reason(e, primary)
    ranked = [e for e in entries if e.unranked_reason is None]
    values = [_ranked_value(e, primary) for e in ranked]
    cis = [e.metrics[primary].ci95 for e in ranked]
    for e, rank, tier in zip(
        ranked, competition_ranks(values, higher_is_better), tiers(values, cis, higher_is_better), strict=True
    ):
        e.rank, e.tier = rank, tier
    unranked = sorted((e for e in entries if e.unranked_reason is not None), key=lambda e: (e.model, e.id))
    return sorted(ranked, key=lambda e: (e.tier or 0, e.rank or 0, e.model, e.id)) + unranked


def _by_value(entries: list[Entry], primary: str, higher_is_better: bool) -> list[Entry]:
    """Listed (not ranked) best point estimate first, undefined values last."""

    def key(e: Entry) -> tuple[bool, float, str, str]:
        v = e.metrics[primary].value
        return (v is None, -(v or 0.0) if higher_is_better else (v or 0.0), e.model, e.id)

    return sorted(entries, key=key)


def _columns(task: TaskConfig) -> tuple[str, list[MetricColumn], bool]:
    """(the primary metric, the judge metric columns, whether higher is better on the primary): the
    human-human references are not columns, and the primary is ``metrics.names.primary_metric``
    (validation refuses a task without one)."""
    names = [m.name for m in task.metrics]
    primary = primary_metric(names)
    if primary is None:
        raise ValueError(f"task {task.name} has no primary metric (task_binding refuses it)")
    columns = [metric_column(n, n == primary) for n in judge_metrics(names)]
    higher = next(c.higher_is_better for c in columns if c.primary) if columns else True
    return primary, columns, higher


def _human_references(task: TaskConfig, entries: list[Entry]) -> list[HumanReference]:
    """The humans' figure of each reference metric, on the documents a full run scored: taken from
    the entry with the largest n."""
    names = [m.name for m in task.metrics]
    refs: list[HumanReference] = []
    for n in (n for n in names if is_human_reference(n, names)):
        best = max((e for e in entries if n in e.metrics), key=lambda e: (not e.partial, e.metrics[n].n), default=None)
        if best is not None and best.metrics[n].value is not None:
            refs.append(
                HumanReference(
                    metric=_reference_target(n),
                    source_metric=n,
                    description=metric_column(n, False).description,
                    value=best.metrics[n],
                )
            )
    return refs


def task_board(task: TaskConfig, kept: list[Kept], ctx: _Context) -> TaskBoard:
    from debench.run.pipeline import task_sha

    primary, columns, higher = _columns(task)
    entries = [_entry(s, standing, reason, ctx) for s, standing, reason in kept]
    verified = rank_entries([e for e in entries if e.standing == "verified"], primary, higher)
    self_reported = _by_value([e for e in entries if e.standing == "self_reported"], primary, higher)
    baselines = _by_value([e for e in entries if e.standing == "baseline"], primary, higher)
    for e in self_reported:
        e.unranked_reason = "self-reported: " + e.standing_reason
    for e in baselines:
        e.unranked_reason = "a baseline: a reference line, never ranked"
    first = kept[0][0]
    return TaskBoard(
        name=task.name,
        version=task.version,
        description=" ".join(task.description.split()),
        group=task.group,
        config_sha256=task_sha(task),
        dataset_content_hash=first.results.dataset.content_hash,
        n_docs_total=first.n_docs_total,
        primary_metric=primary,
        metrics=columns,
        human_reference=_human_references(task, [*verified, *self_reported, *baselines]),
        choices=list(task.parser.choices) if task.parser.choices else None,
        verified=verified,
        self_reported=self_reported,
        baselines=baselines,
    )


def _rows(tasks: list[TaskBoard], standing: Literal["verified", "self_reported"]) -> dict[str, OverviewRow]:
    rows: dict[str, OverviewRow] = {}
    for t in tasks:
        group = t.verified if standing == "verified" else t.self_reported
        ranked = sum(1 for e in t.verified if e.rank is not None)
        for e in group:
            variant = e.canonical.variant if e.canonical is not None else None
            row = rows.setdefault(
                e.judge if standing == "verified" else f"{e.judge} {e.submission}",
                OverviewRow(
                    judge=e.judge,
                    model=e.model,
                    variant=variant,
                    method=e.method,
                    submission=e.submission if standing == "self_reported" else None,
                    standing=standing,
                    cells={},
                    n_tasks=0,
                    overall_rank=None,
                    mean_rank=None,
                    missing_tasks=[],
                ),
            )
            m = e.metrics[t.primary_metric]
            row.cells[t.name] = OverviewCell(
                entry=e.id,
                metric=t.primary_metric,
                value=m.value,
                ci95=m.ci95,
                rank=e.rank,
                tier=e.tier,
                n_ranked=ranked,
            )
            row.n_tasks = len(row.cells)
    return rows


def overview(
    tasks: list[TaskBoard], fixed_tasks: Sequence[str] | None = None
) -> tuple[list[str], list[OverviewRow], list[OverviewRow], str | None]:
    """(the overall task set, verified judges' rows — ranked overall first once enough share it —,
    self-reported judges' rows, what the overall ranking waits for). ``fixed_tasks``: the
    maintainers' overall task set (None: every task with a ranked entry, the older rule)."""
    rows = _rows(tasks, "verified")
    overall_tasks = list(fixed_tasks) if fixed_tasks is not None else _tasks_with_a_rank(tasks)
    values = {j: _ranked_values(row) for j, row in rows.items()}
    eligible = [j for j in rows if overall_tasks and all(t in values[j] for t in overall_tasks)]
    shown = len(eligible) >= MIN_OVERALL_JUDGES
    standing = overall_ranks(values, overall_tasks, _higher_is_better(tasks)) if shown else {}
    for j, row in rows.items():
        row.missing_tasks = [t for t in overall_tasks if t not in values[j]]
        if j in standing:
            row.mean_rank, row.overall_rank = standing[j]
    ordered = sorted(rows.values(), key=_overall_order)
    self_rows = sorted(
        _rows(tasks, "self_reported").values(), key=lambda r: (r.model, r.method, r.judge, r.submission or "")
    )
    return overall_tasks, ordered, self_rows, None if shown else _overall_waiting(rows, values, overall_tasks)


def _higher_is_better(tasks: list[TaskBoard]) -> dict[str, bool]:
    """Task -> whether higher is better on its primary metric."""
    return {t.name: next(c.higher_is_better for c in t.metrics if c.primary) for t in tasks}


def _tasks_with_a_rank(tasks: list[TaskBoard]) -> list[str]:
    return [t.name for t in tasks if any(e.rank is not None for e in t.verified)]


def _ranked_values(row: OverviewRow) -> dict[str, float]:
    """Task -> the judge's primary-metric value, on the tasks where it is ranked."""
    return {name: c.value for name, c in row.cells.items() if c.rank is not None and c.value is not None}


def _overall_order(r: OverviewRow) -> tuple[bool, int, int, str, str, str]:
    """Ranked overall first (by overall rank), then by the tasks missing, model, method and judge."""
    return (r.overall_rank is None, r.overall_rank or 0, len(r.missing_tasks), r.model, r.method, r.judge)


def _overall_waiting(
    rows: Mapping[str, OverviewRow], values: Mapping[str, Mapping[str, float]], overall_tasks: Sequence[str]
) -> str:
    """What the overall ranking waits for, and which verified judges are ranked on which tasks so far."""
    have = (
        ", ".join(
            f"{rows[j].model} on {', '.join(sorted(values[j]))}"
            for j in sorted(rows, key=lambda j: rows[j].model)
            if values[j]
        )
        or "none yet"
    )
    return (
        f"The overall ranking appears once at least {MIN_OVERALL_JUDGES} verified judges (baselines aside) are "
        f"ranked on every task of its set ({', '.join(overall_tasks) or 'none'}, fixed by the maintainers). Ranked "
        f"verified judges so far: {have}."
    )


def build_leaderboard(
    kept: Iterable[Kept],
    *,
    reported: Reported | None = None,
    title: str = "debench leaderboard",
    rows: Mapping[str, Reproduction] | None = None,
    nominations: Mapping[str, Nomination] | None = None,
    waiting: Sequence[Waiting] = (),
    overall_tasks: Sequence[str] | None = None,
    not_built: Sequence[str] = (),
    cards: Mapping[str, CardLink] | None = None,
) -> Leaderboard:
    """The leaderboard of ``kept`` (each validated entry with its standing and reason; a verified
    one that is a job's run in ``rows`` is its canonical judge's row, linking the judge's card of
    ``cards``, judge id -> link; paths are written relative to the leaderboard folder:
    ``submissions/…``, ``reproduced/…``, ``cards/…``)."""
    from debench.core.version import debench_version

    by_task: dict[str, list[Kept]] = {}
    tasks: dict[str, TaskConfig] = {}
    kept = list(kept)
    for item in kept:
        by_task.setdefault(item[0].task.name, []).append(item)
        tasks[item[0].task.name] = item[0].task
    ctx = _Context(rows or {}, nominations or {}, waiting, cards or {})
    boards = [task_board(tasks[name], by_task[name], ctx) for name in sorted(by_task)]
    fixed, ranked_rows, self_rows, overall_waiting = overview(boards, overall_tasks)
    stamps = [s.results.created_at for s, _, _ in kept]
    return Leaderboard(
        title=title,
        generated_at=max(stamps) if stamps else None,
        debench_version=debench_version(),
        n_submissions=len({s.submission for s, _, _ in kept if row_id(s) not in ctx.rows}),
        max_incomplete_share=MAX_INCOMPLETE_SHARE,
        max_left_out_share=MAX_LEFT_OUT_SHARE,
        min_overall_judges=MIN_OVERALL_JUDGES,
        overall_tasks=fixed,
        overall_waiting=overall_waiting,
        tasks=boards,
        overview=ranked_rows,
        overview_self_reported=self_rows,
        reported=reported or Reported(papers=[], rows=[]),
        waiting=[WaitingRun(judge=w.judge, task=w.task, nominated_by=w.nominated_by, reason=w.reason) for w in waiting],
        not_built=list(not_built),
    )
