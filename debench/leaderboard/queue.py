"""The queue of entries awaiting the leaderboard's own run: ``leaderboard/queue.json``, merge order.

The refresh job appends each entry it has not seen, in the order the default branch received the
folders (``merge_order``: the first-parent history of the checkout, never the folders' names —
two merges one refresh sees together are queued in the order they were merged), and never
reorders: canonical judges are run in the order of their first nomination while the budgets allow
(``debench.leaderboard.verify``), and of two self-reported entries of one judge the one queued
first is kept. The job writes the file and
the workflow commits it; a pull request may not touch it (it lies outside
``leaderboard/submissions/``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from debench.leaderboard.job_files import read_job_file, write_job_file

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
    return read_job_file(path, Queue, "queue")


def extend(queue: Queue, entries: Iterable[str], merged: Mapping[str, int] | None = None) -> Queue:
    """The queue with the entries it does not hold yet appended: in the order their folders were
    merged (``merged``: folder -> position, ``merge_order``), then in path order."""
    order = merged or {}
    new = sorted(
        (e for e in set(entries) if e not in queue.entries),
        key=lambda e: (order.get(e.split("/", 1)[0], len(order)), e),
    )
    return Queue(entries=[*queue.entries, *new])


def merge_order(repo: Path, submissions: str = "leaderboard/submissions") -> dict[str, int]:
    """Submission folder -> its position in the order the default branch received it: the
    first-parent history of the checkout (merges compared with their first parent), oldest first.
    Empty when the checkout has no history to read (then new entries are queued in path order)."""
    import subprocess

    try:
        log = subprocess.run(
            [
                "git",
                "-C",
                str(repo),
                "log",
                "--first-parent",
                "-m",
                "--reverse",
                "--relative",
                "--diff-filter=A",
                "--name-only",
                "--format=",
                "--",
                submissions,
            ],
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    order: dict[str, int] = {}
    for line in log.splitlines():
        rest = line.strip().removeprefix(submissions.rstrip("/") + "/")
        if rest != line.strip() and "/" in rest:
            order.setdefault(rest.split("/", 1)[0], len(order))
    return order


def write_queue(queue: Queue, path: Path) -> None:
    write_job_file(queue, path)
