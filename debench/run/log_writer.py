"""The runner's writer: finished records go to the run's log off the request path.

When many answers arrive in one turn of the event loop, each worker woken by one records its job
and sends its next request. Were the worker to write its record's line itself (encoding, redaction,
the lock, a write and a flush: ~0.1 ms of CPU), the k-th worker of the burst would send its request
only after k lines. So a worker hands its record over (``LogWriter.add``, no await) and goes on;
the writer's task wakes a turn later, once every worker woken with it has sent its next request,
and writes every record handed over since in one ``RecordLog.append_many`` (one lock, one write).

Whatever ends a round of workers (every job done, a budget reached, a worker's error, a failed
write, the run cancelled by Ctrl-C), every record handed over is written before ``LogWriter.run``
returns or raises: a rerun of the same command asks only the jobs that did not finish.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from typing import Any

from pydantic import BaseModel

from debench.core.record_log import RecordLog

PENDING_MAX = 1024
"""Records held at most before they are written: the worker whose record makes that many writes
them itself. Jobs that end without giving the event loop a turn (a baseline's answers) would
otherwise hold every record of the run in memory until its end."""

Worker = Coroutine[Any, Any, None]


class LogWriter:
    """Writes the records the workers hand over, a turn of the event loop after the first of them.
    ``written(n)`` is called after each write (the progress bar)."""

    def __init__(self, log_: RecordLog[Any], written: Callable[[int], object]) -> None:
        self.log_ = log_
        self.written = written
        self.pending: list[BaseModel] = []
        self.wake = asyncio.Event()

    def add(self, record: BaseModel) -> None:
        """Hand a finished job's record over. No await: a record is never lost between its job's end
        and here, whatever cancels the worker after."""
        self.pending.append(record)
        if len(self.pending) >= PENDING_MAX:
            self.write()
        else:
            self.wake.set()

    def write(self) -> None:
        """Write every record handed over and not yet written, in the order they came. A write that
        fails (a full disk) keeps the lines that reached the file whole, loses the others of its
        records, and raises ``UserError``."""
        batch, self.pending = self.pending, []
        if batch:
            self.log_.append_many(batch)
            self.written(len(batch))

    async def _keep_writing(self) -> None:
        """Once a record is handed over, let the turn of the loop that woke its worker end, and one
        more (the workers woken with it send their requests, and any still on their way to theirs),
        then write every record handed over by then."""
        while True:
            await self.wake.wait()
            self.wake.clear()
            await asyncio.sleep(0)
            self.write()

    async def run(self, workers: list[Worker]) -> None:
        """Run one round of workers with the writer beside them, until every worker has ended. The
        first worker to fail, or a failed write, cancels the others and its error is raised; the run
        cancelled cancels them too. The workers cancelled are waited for (no job goes on once the
        round is over), then every record handed over is written, however the round ended."""
        tasks = [asyncio.ensure_future(w) for w in workers]
        writing = asyncio.ensure_future(self._keep_writing())
        try:
            await _until_ended(tasks, writing)
        finally:
            writing.cancel()
            for task in tasks:
                task.cancel()
            try:
                await asyncio.gather(*tasks, writing, return_exceptions=True)
            finally:
                self.write()


async def _until_ended(tasks: Sequence[asyncio.Future[None]], writing: asyncio.Future[None]) -> None:
    """Wait until every task has ended; the first error of a task, or of ``writing`` (which never
    ends on its own), is raised as soon as it happens."""
    running = set(tasks)
    while running:
        done, running = await asyncio.wait({*running, writing}, return_when=asyncio.FIRST_COMPLETED)
        running.discard(writing)
        for task in done:
            task.result()
