"""The one runner every command uses: jobs in, records out.

A *job* is a unit of work with a key (judge one document, play one debate, write one speech).
``run_jobs`` gives every command the same behaviour: bounded concurrency, the resume log (a
``RecordLog``: finished jobs are skipped, failed ones retried; shared safely with another process
running the same command), failures turned into records by their class (a prompt too long for the
context window is *not completed*; a permanent or exhausted transient failure is an *error*, its
message redacted; a request the endpoint refused as malformed, a 400 or 422, is an error once the
endpoint has answered a request of the run and stops the run before: ``_Answered``), a progress
bar, the records written off the request path (``log_writer.LogWriter``), and a run stopped by
Ctrl-C, a budget or an error leaving every finished record on disk.

``run_samples`` is the document-judging instance used by ``eval``, ``probe`` and ``rate-speeches``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sys
from collections import Counter, deque
from collections.abc import Iterable, Sequence, Sized
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel
from tqdm import tqdm

from debench.core.entry_points import PluginError, PluginFailure, declared
from debench.core.errors import RunStopped, UserError
from debench.core.record_log import RecordLog
from debench.core.redact import Redactor
from debench.data.base import Doc
from debench.data.loading import Documents
from debench.data.samples import SampleLog, SampleRecord
from debench.judging.base import JudgeContext, JudgeMethod, get_method
from debench.models.base import ContextOverflow, Model, PermanentModelError
from debench.models.cache import ResponseCache
from debench.models.calls import Caller, RequestGuard
from debench.models.retry import RefusedRequest, TransientModelError
from debench.run.log_writer import LogWriter
from debench.task.config import SCORING_SIDE, TaskConfig
from debench.task.grammars import load_grammar

log = logging.getLogger(__name__)

WAIT_POLL_S = 0.2
"""How often a run waiting for jobs another process holds looks at the log."""


@dataclass
class RunSettings:
    concurrency: int
    use_cache: bool = True
    cache_path: Path | None = None
    progress: bool = True
    store_messages: bool = True
    method: str | None = None
    repeat: int | None = None
    """Repeat k of ``eval --repeats``: requests carry the seed ``seed + k``."""
    guard: RequestGuard | None = None
    """Asked before every request (the leaderboard's budgets, ``models.calls.RequestGuard``)."""


FailureStatus = Literal["error", "not_completed"]
"""How a job that produced no answer ended: the model failed, or the prompt did not fit."""


class Job(Protocol):
    @property
    def key(self) -> str:
        """The job's id in the log (a document's id, a debate's, a speech's)."""
        ...

    async def run(self) -> BaseModel:
        """Do the work; raise ``ContextOverflow`` or a model error on failure."""
        ...

    def failure(self, status: FailureStatus, error: str) -> BaseModel:
        """The record of a job that ended in ``status``."""
        ...


def run_fingerprint(
    task: TaskConfig, identity: dict[str, Any], content_hash: str, method: str, repeat: int | None = None
) -> str:
    """Everything that changes the samples: a rerun with the same fingerprint resumes its log.

    ``identity`` is the model's (``Model.identity()``, recorded in results as ``model.identity``;
    a plug-in model's names the plug-in's code), so a fingerprint can be recomputed from a results
    file; ``repeat`` is the repeat index of ``eval --repeats`` (``config.repeat``). A judge method
    of another package enters with its code (``method_plugin``: package, version, sha256 of its
    module files, as installed), so an upgraded or edited method never resumes the samples of the
    old one; debench's own methods enter by name only."""
    parts: dict[str, Any] = {
        "task": task.model_dump(mode="json", exclude=set(SCORING_SIDE)),
        "model": identity,
        "data": content_hash,
        "method": method,
    }
    entry = declared("debench.methods").get(method)
    plugin = entry.identity() if entry is not None else None
    if plugin is not None:
        parts["method_plugin"] = plugin.code()
    if repeat is not None:
        parts["repeat"] = repeat
    payload = json.dumps(parts, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


def open_cache(model: Model, settings: RunSettings) -> ResponseCache | None:
    """The response cache, when the run uses one and the model's answers are worth keeping."""
    if not settings.use_cache or not (model.cacheable or model.composite):
        return None
    return ResponseCache(settings.cache_path)


def _answered(record: BaseModel) -> bool:
    """The record holds an answer of the endpoint (parsed or not)."""
    return getattr(record, "status", None) in ("ok", "parse_failure")


class _Answered:
    """Whether the endpoint has answered a request of this run: a record of the log (this run's,
    or an earlier process's on the same log) or a job of this process. A job whose request was
    refused (400, 422) before that is known waits until it is: an answer to another job makes the
    refusal that job's error; every job running refused too makes the run malformed."""

    def __init__(self, log_: RecordLog[Any]) -> None:
        self.yes = any(_answered(r) for r in log_.existing.values())
        self.running = 0
        self.waiting = 0
        self.changed = asyncio.Condition()

    async def ran(self, record: BaseModel | None) -> None:
        """A job ended with ``record`` (None: stopped before its request)."""
        async with self.changed:
            self.running -= 1
            self.yes = self.yes or (record is not None and _answered(record))
            self.changed.notify_all()

    async def after_refusal(self) -> bool:
        """True once the endpoint has answered a request of the run; False when every job running
        had its request refused (no answer can come)."""
        async with self.changed:
            self.waiting += 1
            self.changed.notify_all()
            try:
                await self.changed.wait_for(lambda: self.yes or self.waiting >= self.running)
            finally:
                self.waiting -= 1
            return self.yes


async def _execute(job: Job, redactor: Redactor, answered: _Answered) -> BaseModel:
    """Run one job; failures become records (UserError and cancellation stop the run)."""
    try:
        return await job.run()
    except ContextOverflow as exc:
        return _attempted(job.failure("not_completed", redactor.text(str(exc))), exc)
    except RefusedRequest as exc:
        if not await answered.after_refusal():
            raise  # every request refused: the run is malformed, not one document
        return _attempted(job.failure("error", redactor.text(str(exc))[:500]), exc)
    except UserError:
        raise  # a configuration problem: stop the run (the finished records are written as it stops)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - permanent, or transient past its retry cap: recorded, retried on resume
        own_words = (PermanentModelError, TransientModelError, PluginFailure)
        text = str(exc) if isinstance(exc, own_words) else f"{type(exc).__name__}: {exc}"
        return _attempted(job.failure("error", redactor.text(text)[:500]), exc)


def _attempted(record: BaseModel, exc: BaseException) -> BaseModel:
    """A failure record with the requests its call made (``attempts``, carried by the error)."""
    if "attempts" in type(record).model_fields:
        return record.model_copy(update={"attempts": getattr(exc, "attempts", 0)})
    return record


CLAIM_BATCH = 64
"""Jobs claimed at once (one lock, one read, one write of the claims file), at most ``concurrency``."""


class _JobQueue:
    """The jobs this process runs, taken from ``jobs`` as workers free up and claimed in batches;
    a job another live process has claimed waits (``waiting``) until it is done or free."""

    def __init__(self, jobs: Iterable[Job], log_: RecordLog[Any], batch: int, bar: tqdm[Any]) -> None:
        self.source = iter(jobs)
        self.log_ = log_
        self.done = log_.finished()
        self.batch = batch
        self.bar = bar
        self.seen: set[str] = set()
        self.ready: deque[Job] = deque()
        self.waiting: list[Job] = []

    def next_job(self) -> Job | None:
        """The next job this process runs (no await inside, so workers never claim the same job)."""
        while not self.ready:
            fresh = self._fresh()
            if not fresh:
                return None
            self._claim(fresh)
        return self.ready.popleft()

    def _fresh(self) -> list[Job]:
        """Up to a batch of the next jobs not finished in the log (a finished one counts as done)."""
        fresh: list[Job] = []
        for job in self.source:
            if job.key in self.seen:
                raise ValueError(f"two jobs share the key {job.key!r}")
            self.seen.add(job.key)
            if job.key in self.done:
                self.bar.update(1)
                continue
            fresh.append(job)
            if len(fresh) >= self.batch:
                break
        return fresh

    def _claim(self, fresh: list[Job]) -> None:
        """Claim the jobs: this process's are ready, another live process's wait, finished ones count."""
        states = self.log_.claim_many(j.key for j in fresh)
        for job in fresh:
            state = states[job.key]
            if state == "mine":
                self.ready.append(job)
            elif state == "busy":
                self.waiting.append(job)
            else:
                self.bar.update(1)

    async def wait_for_others(self) -> None:
        """Look at the log until a waiting job is this process's to run (its claimant died or gave
        up: taken over) or none waits any more (the others finished them)."""
        while self.waiting and not self.ready:
            await asyncio.sleep(WAIT_POLL_S)
            still = []
            for job in self.waiting:
                state = self.log_.wait_state(job.key)
                if state == "free":
                    state = self.log_.claim(job.key)
                if state == "mine":
                    self.ready.append(job)
                elif state == "done":
                    self.bar.update(1)
                else:
                    still.append(job)
            self.waiting[:] = still


async def run_jobs(
    jobs: Iterable[Job],
    log_: RecordLog[Any],
    *,
    concurrency: int,
    progress: bool = True,
    desc: str = "",
    unit: str = "doc",
    total: int | None = None,
) -> None:
    """Run every job not already finished in ``log_``; each record is written as its job ends
    (``LogWriter``: a turn of the event loop later, once the workers woken with it have sent their
    next requests), and every finished record is in the log when this returns or raises.

    Jobs are taken from ``jobs`` as workers become free (a generator is read as it goes, so a run
    holds about ``concurrency`` jobs at a time, not all of them) and claimed in small batches.
    ``total`` sizes the progress bar when ``jobs`` has no length. A job another live process has
    claimed is left to it and waited for; if that process dies first, this run takes the job over.
    A job that raises ``RunStopped`` (a budget reached before its next request) ends the run once
    the jobs under way have finished and been recorded: no job starts after it."""
    redactor = Redactor()
    if total is None and isinstance(jobs, Sized):
        total = len(jobs)
    bar = tqdm(total=total, desc=desc, unit=unit, disable=not progress, file=sys.stderr, dynamic_ncols=True)
    queue = _JobQueue(jobs, log_, max(1, min(concurrency, CLAIM_BATCH)), bar)
    answered = _Answered(log_)

    stopped: list[RunStopped] = []
    writer = LogWriter(log_, bar.update)

    async def worker() -> None:
        while not stopped and (job := queue.next_job()) is not None:
            answered.running += 1
            try:
                record = await _execute(job, redactor, answered)
            except RunStopped as exc:
                stopped.append(exc)
                await answered.ran(None)
                return
            writer.add(record)  # written a turn of the loop later, after the next request of every worker
            await answered.ran(record)

    try:
        while True:
            await writer.run([worker() for _ in range(concurrency)])
            if stopped:
                raise stopped[0]
            if not queue.waiting:
                break
            await queue.wait_for_others()  # jobs another process is running: wait, or take over
    finally:
        bar.close()
        log_.release_claims()


def error_summary(records: Sequence[BaseModel]) -> list[tuple[str, int]]:
    """The distinct error messages of records that ended as errors, most frequent first."""
    counts = Counter(
        str(getattr(r, "error", None) or "unknown error") for r in records if getattr(r, "status", None) == "error"
    )
    return counts.most_common()


@dataclass
class PluginFailures:
    """The plug-in failures (``PluginFailure``) of one run's documents: when every document of the
    run ends in one, the run stops with its line (``check``)."""

    first: str | None = None

    def check(self, records: Sequence[SampleRecord]) -> None:
        """A ``PluginError`` when a plug-in failed in this run and no document has an answer."""
        if self.first is not None and records and all(r.status == "error" for r in records):
            raise PluginError(f"{self.first} (on all {len(records)} documents; their samples are kept as errors)")


@dataclass
class JudgeDocJob:
    """Judge one document with a judge method."""

    ctx: JudgeContext
    method: JudgeMethod
    doc: Doc
    failures: PluginFailures

    @property
    def key(self) -> str:
        return self.doc.doc_id

    async def run(self) -> SampleRecord:
        try:
            return await self.method(self.ctx, self.doc)
        except PluginFailure as exc:
            self.failures.first = self.failures.first or str(exc)
            raise

    def failure(self, status: FailureStatus, error: str) -> SampleRecord:
        return SampleRecord(doc_id=self.doc.doc_id, status=status, error=error, target=self.doc.target)


async def run_samples(
    task: TaskConfig, docs: Sequence[Doc] | Documents, model: Model, samples_path: Path, settings: RunSettings
) -> tuple[list[SampleRecord], Caller]:
    """Judge every document not already finished in ``samples_path``; return records in run order
    and the caller (its ``n_requests``). With ``Documents``, the documents are read as the run
    goes (jobs are made as workers free up) and only their text-free ``gold`` is kept."""
    documents = docs if isinstance(docs, Documents) else Documents(list(docs))
    method_name = settings.method or task.method
    method = get_method(method_name)
    if method_name.startswith("debatrix") and task.debatrix is None:
        raise UserError(f"task '{task.name}' has no 'debatrix' section, so --method {method_name} cannot run it")
    grammar_text = load_grammar(task.generation.grammar)
    model.prepare(documents, task)
    log_ = SampleLog(samples_path)
    caller = Caller(
        open_cache(model, settings),
        seed_offset=settings.repeat,
        max_in_flight=settings.concurrency,
        guard=settings.guard,
    )
    ctx = JudgeContext(
        task=task,
        model=model,
        caller=caller,
        generation=task.generation,
        grammar_text=grammar_text,
        store_messages=settings.store_messages,
    )
    order = [d.doc_id for d in documents.gold]
    failures = PluginFailures()
    try:
        jobs = (JudgeDocJob(ctx, method, d, failures) for d in documents)
        await run_jobs(
            jobs,
            log_,
            concurrency=settings.concurrency,
            progress=settings.progress,
            desc=f"{task.name} | {model.name}",
            total=len(documents),
        )
        log_.compact(order)
    finally:
        log_.close()
        caller.close()
        await model.aclose()  # release pooled connections; a model reopens them on its next call
    records = [log_.existing[d] for d in order if d in log_.existing]
    failures.check(records)
    return records, caller
