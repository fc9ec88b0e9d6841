"""Each canonical judge's card (``debench.card``), built by the refresh job from its own files.

A card is of one canonical judge (model × method) over the tasks of its rows: for each task the
job's own run of it (never a submission: a nomination's numbers appear nowhere in it), the
committed baselines' runs on the same documents (the whole data set, the same data) and the job's
memorization probe report (``job_probe``), or why there is none. Repeats and the position and
length probes are not part of the job's run: the card says so in those criteria. ``build_card``
makes it (the one way a card is made); its ``created_at`` is the newest ``created_at`` of the job's
runs it reads, so a rebuild of the same files writes the same card. The cards are written to
``cards/<judge folder>/<method>/`` of the leaderboard folder (``card.json``, ``card.md``,
``card.html``, the run paths relative to it); the page links each ranked row's card.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from debench.card.build import build_card
from debench.card.evidence import TaskRuns
from debench.card.model import JudgeCard
from debench.card.page import write_card
from debench.core.errors import UserError
from debench.core.options import DataOptions
from debench.leaderboard.board import CardLink
from debench.leaderboard.job_probe import Probed
from debench.leaderboard.validate import ValidatedSubmission

NOT_IN_JOB = {
    "consistency": "the leaderboard's job runs each canonical judge once (no repeats)",
    "bias": "the leaderboard's job does not run the position and length probes",
}


@dataclass(frozen=True)
class JobCard:
    """One canonical judge's card, where it goes (relative to the leaderboard folder) and its link."""

    judge: str
    folder: str
    card: JudgeCard

    @property
    def link(self) -> CardLink:
        o = self.card.overall
        return CardLink(path=f"{self.folder}/card.html", status=o.status, reason=o.reason)


def _baselines(run: ValidatedSubmission, baselines: Sequence[ValidatedSubmission]) -> dict[str, Path]:
    """The baselines' runs on the same documents as the job's run: the task, the data, every document."""
    same: dict[str, Path] = {}
    for b in baselines:
        r = b.results
        on_same = r.dataset.content_hash == run.results.dataset.content_hash and not b.partial
        if b.task.name == run.task.name and on_same:
            same.setdefault(r.model.name, b.results_path)
    return same


def _task_runs(run: ValidatedSubmission, baselines: Sequence[ValidatedSubmission], probed: Probed) -> TaskRuns:
    absent = dict(NOT_IN_JOB)
    if probed.report is None:
        absent["memorization"] = probed.reason
    return TaskRuns(
        task=run.task,
        results=run.results_path,
        baselines=_baselines(run, baselines),
        memorization=probed.report,
        absent=absent,
    )


def job_card(
    judge: str,
    folder: str,
    runs: Sequence[ValidatedSubmission],
    baselines: Sequence[ValidatedSubmission],
    probes: Mapping[str, Probed],
    data_dir: str | Path | None,
) -> JobCard:
    """The card of canonical judge ``judge`` from the job's ``runs`` of it (one per task), the
    ``baselines`` on the page and its memorization probes (task -> ``Probed``)."""
    task_runs = [_task_runs(r, baselines, probes[r.task.name]) for r in runs]
    data = DataOptions(data_source="local" if data_dir else "hub", data_dir=str(data_dir) if data_dir else None)
    card = build_card(task_runs, data)
    newest = max(r.results.created_at for r in runs)
    return JobCard(judge, folder, card.model_copy(update={"created_at": newest}))


def card_error(judge: str, exc: Exception) -> UserError:
    """Why a judge's card was not built (listed among what the refresh could not build)."""
    why = str(exc) if isinstance(exc, UserError) else type(exc).__name__
    return UserError(f"the card of the canonical judge {judge} was not built: {why}")


def write_job_cards(cards: Sequence[JobCard], board_dir: Path) -> list[Path]:
    """Write each card into ``board_dir/<its folder>``, the files it lists relative to that folder."""
    written = []
    for c in cards:
        where = board_dir / c.folder
        runs = {
            task: [Path(os.path.relpath(Path(p).resolve(), where.resolve())).as_posix() for p in paths]
            for task, paths in c.card.runs.items()
        }
        written += write_card(c.card.model_copy(update={"runs": runs}), where)
    return written
