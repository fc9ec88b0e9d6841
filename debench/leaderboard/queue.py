"""The queue of entries awaiting the leaderboard's own run: ``leaderboard/queue.json``, merge order.

The refresh job runs on every push to the default branch, so the order in which it first sees an
entry is the order of the merges. It appends each entry it has not seen (entries first seen by the
same refresh, which came with one merge, in path order) and never reorders: reproductions run in
this order while the budget allows (``debench.leaderboard.verify``), and of two entries of one
judge the one queued first is kept (``validate_all(merged_first=…)``). The job writes the file and
the workflow commits it; a pull request may not touch it (it lies outside
``leaderboard/submissions/``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ValidationError

from debench.core.atomic import write_atomic
from debench.core.errors import UserError, first_problem

QUEUE_FILE = "queue.json"


class Queue(BaseModel):
    schema_version: Literal["1.0"] = "1.0"
    entries: list[str] = Field(
        default_factory=list,
        description="<submission folder>/<results file>, in the order the refresh job first saw them",
    )

    def folders(self) -> list[str]:
        """Submission folders in merge order (each once)."""
        return list(dict.fromkeys(e.split("/", 1)[0] for e in self.entries))

    def position(self, entry: str) -> int | None:
        return self.entries.index(entry) + 1 if entry in self.entries else None


def read_queue(path: Path) -> Queue:
    if not path.exists():
        return Queue()
    try:
        return Queue.model_validate(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError) as exc:
        where, msg = first_problem(exc) if isinstance(exc, ValidationError) else (None, type(exc).__name__)
        raise UserError(f"not a leaderboard queue ({msg})", path=str(path), field=where) from None


def extend(queue: Queue, entries: Iterable[str]) -> Queue:
    """The queue with the entries it does not hold yet appended, in path order."""
    new = sorted(e for e in set(entries) if e not in queue.entries)
    return Queue(entries=[*queue.entries, *new])


def write_queue(queue: Queue, path: Path) -> None:
    write_atomic(path, json.dumps(queue.model_dump(mode="json"), indent=1) + "\n")
