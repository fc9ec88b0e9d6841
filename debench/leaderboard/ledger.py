"""The budget ledger: what the leaderboard's own runs spent, refresh by refresh, counted by the job.

``leaderboard/ledger.json`` is written by the refresh job as it spends (after every request) and
committed with its runs, so the spend of every refresh — merges, the weekly run, manual runs — adds
up: the month's total is held against ``budgets.per_month`` of the maintainers' file, a canonical
judge's run on one task against ``per_entry`` over every refresh it took (a run is resumed, never
paid again; a Debatrix document cut off between two of its requests is asked again from its first
step, and what its cut-off chain cost is in the ledger too). One line per refresh, purpose,
judge and task; ``purpose`` says what the spend was for (``reproduction``: the job's run of a
canonical judge on a task), so any other per-judge run the job makes is counted in the same
ledger under the same budgets (``memorization``: the job's memorization probe of a canonical judge on
a public debate task, ``debench.leaderboard.job_probe``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from debench.leaderboard.job_files import read_job_file, write_job_file
from debench.leaderboard.maintainers import Budget

LEDGER_FILE = "ledger.json"
Purpose = Literal["reproduction", "memorization"]


class LedgerLine(BaseModel):
    refresh: str = Field(description="when the refresh started (UTC, ISO 8601)")
    month: str = Field(pattern=r"^\d{4}-\d{2}$", description="the refresh's calendar month (UTC)")
    purpose: Purpose = Field(
        description="what was run: reproduction (a canonical judge's run of a task) or memorization (its "
        "memorization probe on the task)"
    )
    judge: str = Field(description="the canonical judge's id")
    task: str
    requests: int = Field(ge=0, description="requests sent (retries included)")
    tokens: int = Field(ge=0, description="prompt + completion tokens, as the job counted them")
    seconds: float = Field(ge=0, description="time the requests took")


class Ledger(BaseModel):
    schema_version: Literal["1.0"] = "1.0"
    lines: list[LedgerLine] = Field(default_factory=list)

    def spent(
        self,
        *,
        refresh: str | None = None,
        month: str | None = None,
        judge: str | None = None,
        task: str | None = None,
        purpose: Purpose | None = None,
    ) -> Budget:
        """The requests and tokens of the lines matching every criterion given."""
        lines = [
            ln
            for ln in self.lines
            if (refresh is None or ln.refresh == refresh)
            and (month is None or ln.month == month)
            and (judge is None or ln.judge == judge)
            and (task is None or ln.task == task)
            and (purpose is None or ln.purpose == purpose)
        ]
        return Budget(requests=sum(ln.requests for ln in lines), tokens=sum(ln.tokens for ln in lines))

    def line(self, refresh: str, month: str, purpose: Purpose, judge: str, task: str) -> LedgerLine:
        """This refresh's line of a run (appended, empty, when it has none yet)."""
        for ln in self.lines:
            if (ln.refresh, ln.purpose, ln.judge, ln.task) == (refresh, purpose, judge, task):
                return ln
        ln = LedgerLine(
            refresh=refresh, month=month, purpose=purpose, judge=judge, task=task, requests=0, tokens=0, seconds=0.0
        )
        self.lines.append(ln)
        return ln


def read_ledger(path: Path) -> Ledger:
    return read_job_file(path, Ledger, "ledger")


def write_ledger(ledger: Ledger, path: Path) -> None:
    write_job_file(ledger, path)
