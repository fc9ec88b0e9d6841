"""A judge card from the files of runs that already exist: ``build_card(runs, data)``.

This is the one way a card is made: ``debench card`` runs what is missing and calls it, and so can
any caller that has the runs' files (the leaderboard's job, from its own runs). Every number is
read from those files or computed again from their samples by ``eval``'s own scoring
(``card.evidence``); each criterion's module decides its rows' statuses against ``card.thresholds``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from debench.card.agreement import agreement_row
from debench.card.bias import bias_rows
from debench.card.consistency import consistency_row
from debench.card.cost import cost_row
from debench.card.evidence import Evidence, TaskRuns
from debench.card.memorization import memorization_row
from debench.card.model import (
    AgreementRow,
    BiasRow,
    ConsistencyRow,
    CostRow,
    Criteria,
    Criterion,
    JudgeCard,
    MemorizationRow,
    Overall,
    ReplaceabilityRow,
)
from debench.card.replaceability import replaceability_row
from debench.card.thresholds import (
    AGREEMENT,
    BIAS,
    CONSISTENCY,
    COST,
    MEMORIZATION,
    REPLACEABILITY,
    section,
    worst,
)
from debench.core.errors import UserError
from debench.core.options import DataOptions
from debench.scoring.results import now_iso, package_versions


def criteria(evidence: Sequence[Evidence]) -> Criteria:
    replaceable = [row for row in (replaceability_row(ev) for ev in evidence) if row is not None]
    return Criteria(
        agreement=section(Criterion[AgreementRow], AGREEMENT, [agreement_row(ev) for ev in evidence], "no task"),
        replaceability=section(
            Criterion[ReplaceabilityRow], REPLACEABILITY, replaceable, "no task of this card has several annotators"
        ),
        consistency=section(
            Criterion[ConsistencyRow], CONSISTENCY, [consistency_row(ev) for ev in evidence], "no task"
        ),
        bias=section(Criterion[BiasRow], BIAS, [row for ev in evidence for row in bias_rows(ev)], "no task"),
        memorization=section(
            Criterion[MemorizationRow], MEMORIZATION, [memorization_row(ev) for ev in evidence], "no task"
        ),
        cost=section(Criterion[CostRow], COST, [cost_row(ev) for ev in evidence], "no task"),
    )


def overall(c: Criteria) -> Overall:
    """The worst status of the judged sections, which sections, and what to do about them; never
    ``pass`` when agreement, the question the rest qualifies, could not be measured."""
    judged: list[Criterion[Any]] = [c.agreement, c.replaceability, c.consistency, c.bias, c.memorization]
    status = worst([s.status for s in judged])
    unmeasured = [s.name for s in judged if s.status == "not_measured"]
    missing = f" Not measured: {', '.join(unmeasured)}." if unmeasured else ""
    if status in ("not_measured", "info"):
        return Overall(status="not_measured", reason="no criterion could be measured." + missing, advice="")
    at = [s for s in judged if s.status == status]
    if status == "pass" and c.agreement.status == "not_measured":
        passing = ", ".join(s.name for s in at)
        reason = f"agreement with the humans could not be measured ({c.agreement.reason}); {passing} pass."
        return Overall(status="not_measured", reason=reason + missing, advice=c.agreement.advice)
    if status == "pass":
        reason = f"every measured criterion passes ({', '.join(s.name for s in at)})."
    else:
        reason = f"{status} on {', '.join(s.name for s in at)}."
    return Overall(status=status, reason=reason + missing, advice=" ".join(f"{s.name}: {s.advice}" for s in at))


def _single_judge(evidence: Sequence[Evidence]) -> None:
    names = {ev.model_name for ev in evidence}
    identities = {repr(sorted((ev.results.model.identity or {}).items())) for ev in evidence}
    if len(names) != 1 or len(identities) != 1:
        raise UserError(f"a card is of one judge; these runs are of {', '.join(sorted(names))} (or differ in settings)")


def build_card(
    runs: Sequence[TaskRuns], data: DataOptions, where: Path | None = None, n_bootstrap: int | None = None
) -> JudgeCard:
    """The card of one judge from the files of its runs (one ``TaskRuns`` per task); the documents
    are read again from ``data`` where a number is computed from the samples, with ``n_bootstrap``
    resamples for its CI (default: the task's). ``where``: the folder the card is written to (the
    files it lists are relative to it)."""
    if not runs:
        raise UserError("a card needs at least one task")
    evidence = [Evidence(r, data, n_bootstrap) for r in runs]
    _single_judge(evidence)
    c = criteria(evidence)
    limits = {ev.results.config.get("limit") for ev in evidence}
    return JudgeCard(
        model=evidence[0].results.model,
        tasks=[ev.task.name for ev in evidence],
        methods={ev.task.name: ev.results.task.method for ev in evidence},
        limit=limits.pop() if len(limits) == 1 else None,
        is_sample=any(ev.results.dataset.is_sample for ev in evidence),
        criteria=c,
        overall=overall(c),
        runs={ev.task.name: [_relative(p, where) for p in ev.files()] for ev in evidence},
        versions=package_versions(),
        created_at=now_iso(),
    )


def _relative(path: Path, where: Path | None) -> str:
    return Path(os.path.relpath(path, where) if where is not None else path).as_posix()
