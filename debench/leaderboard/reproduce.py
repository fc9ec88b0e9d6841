"""The leaderboard's own run of an entry: every document, through the trusted endpoint, final.

A submission nominates a judge (identity, method, task) and brings its own numbers, which stay
visible as self-reported. For an identity the maintainers' allowlist names exactly
(``debench.leaderboard.maintainers``) and the trusted endpoints can reach
(``debench.leaderboard.trusted``), the refresh job runs the task itself:

* on **every document** of the task's real data (not a sample), with the submission's method, the
  model rebuilt from ``model.identity`` (its identity must come out the same), through the trusted
  endpoint with the maintainers' key (or the model the job serves), **without the response cache**;
* **final**: a document the model cannot answer (too long for its window, an error, a refusal) is
  recorded as the job got it and scored so, never retried, skipped or re-drawn. A refresh that is
  interrupted continues with the documents that have no record yet; a document with a record is
  never asked again;
* **within budget**: before it starts, the entry's estimate (requests and tokens) must fit the
  per-entry budget and what is left of the refresh's; while it runs it stops when the entry's
  budget is spent, and the documents it did not judge are recorded as not completed (final too).

The run is written as an ordinary results file and samples log, under
``leaderboard/reproduced/<submission folder>/`` with the submission's file names (the same
fingerprint); the results file's ``config.reproduction`` names what it reproduced (the submitted
results file and its sha256) and the endpoint. The workflow commits them as they are made (the
records are appended document by document). Every build validates them like a submission (every
metric recomputed from the samples) except for the 5% error cap: the job's failures are the
model's, and an entry whose metrics leave out more than 5% is shown but not ranked.

Whether an entry is allowlisted, what the gate refuses of its settings and what its run is
estimated to cost are ``debench.leaderboard.allowlist_checks``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from debench.core.errors import UserError
from debench.data.base import Doc, LoadedDataset
from debench.data.samples import SampleRecord
from debench.leaderboard.files import sha256_file
from debench.leaderboard.maintainers import Budget, Maintainers
from debench.leaderboard.trusted import Endpoint
from debench.leaderboard.validate import ValidatedSubmission
from debench.models.args import ModelArgs
from debench.models.base import Model

if TYPE_CHECKING:
    from debench.run.runner import RunSettings

CHUNK = 16
"""Documents run between two looks at the entry's budget (at most one chunk more is spent)."""
BUDGET_STOP = "not judged: the leaderboard's budget for one entry ran out"


@dataclass
class Spend:
    requests: int = 0
    tokens: int = 0

    def add(self, records: list[SampleRecord], requests: int) -> None:
        self.requests += requests
        self.tokens += sum(r.prompt_tokens + r.completion_tokens for r in records)

    def below(self, budget: Budget) -> bool:
        """Both counts strictly below the budget's: there is room to run another chunk."""
        return self.requests < budget.requests and self.tokens < budget.tokens


@dataclass
class ReproduceRun:
    """The refresh job's reproductions (``--reproduce``)."""

    out_dir: Path
    """``leaderboard/reproduced``: one folder per submission folder."""
    maintainers: Maintainers
    data_dir: str | Path | None = None
    model_args: ModelArgs | None = None
    chunk: int = CHUNK
    spent: Spend = field(default_factory=Spend)
    """What this refresh has spent so far (all entries)."""

    def paths(self, sub: ValidatedSubmission) -> tuple[Path, Path]:
        folder = self.out_dir / sub.submission
        return folder / sub.results_path.name, folder / sub.samples_path.name


def _records_by_doc(samples: Path) -> dict[str, SampleRecord]:
    """The records the job's samples log holds so far, by document (none when it does not exist yet)."""
    from debench.data.samples import read_records

    return {r.doc_id: r for r in read_records(samples, bad_line="skip")} if samples.exists() else {}


def _stop(samples_path: Path, docs: list[Doc], why: str) -> None:
    """Record every document of ``docs`` as not completed, ``why``: final, like every other record."""
    from debench.core.record_log import RecordLog

    log = RecordLog(samples_path, SampleRecord, "doc_id")
    try:
        for d in docs:
            log.append(SampleRecord(doc_id=d.doc_id, status="not_completed", error=why))
    finally:
        log.close()


def _rebuilt_model(sub: ValidatedSubmission, run: ReproduceRun, key: Callable[[dict[str, Any]], str | None]) -> Model:
    """The model the entry's identity names, reaching the job's endpoint (``rebuild``)."""
    from debench.leaderboard.rebuild import model_from_identity

    try:
        return model_from_identity(sub.identity, key, run.model_args, own_endpoint=True)
    except UserError as exc:
        raise UserError(
            f"the leaderboard cannot build the model {sub.results.model.name}: {exc}",
            path=str(sub.results_path),
            field="reproduction",
        ) from None


def _judge_the_rest(
    sub: ValidatedSubmission, docs: list[Doc], model: Model, settings: RunSettings, run: ReproduceRun
) -> int:
    """Judge, a chunk at a time, the documents the job's samples log holds no record of, while the
    entry's budget allows; the rest are recorded as not completed. Returns the requests the entry
    took in all (this refresh's and earlier ones')."""
    from debench.run.runner import run_samples

    samples_path = run.paths(sub)[1]
    budget = run.maintainers.budgets.per_entry
    entry = Spend()
    done = _records_by_doc(samples_path)
    entry.add(
        list(done.values()),
        sum(max(1, r.attempts) for r in done.values() if r.status in ("ok", "parse_failure", "error")),
    )
    n_requests = entry.requests
    todo = [d for d in docs if d.doc_id not in done]
    while todo:
        if not entry.below(budget):
            _stop(samples_path, todo, f"{BUDGET_STOP} ({entry.requests} requests, {entry.tokens} tokens)")
            break
        chunk, todo = todo[: run.chunk], todo[run.chunk :]
        records, caller = asyncio.run(run_samples(sub.task, chunk, model, samples_path, settings))
        entry.add(records, caller.n_requests)
        run.spent.add(records, caller.n_requests)
        n_requests += caller.n_requests
    return n_requests


def reproduce(
    sub: ValidatedSubmission,
    endpoints: tuple[Endpoint, ...],
    run: ReproduceRun,
    key: Callable[[dict[str, Any]], str | None],
) -> Path:
    """Run (or continue) the entry's reproduction and write its results file; returns its path.
    ``UserError`` when the model cannot be built or the run cannot be made."""
    from debench.leaderboard.real_data import REAL_DATA
    from debench.run.runner import RunSettings

    results_path, samples_path = run.paths(sub)
    samples_path.parent.mkdir(parents=True, exist_ok=True)
    model = _rebuilt_model(sub, run, key)
    dataset = REAL_DATA.get(sub.task, run.data_dir)
    docs = list(dataset.docs)
    settings = RunSettings(
        concurrency=model.default_concurrency, use_cache=False, progress=False, method=sub.results.task.method
    )
    n_requests = _judge_the_rest(sub, docs, model, settings, run)
    _write_results(sub, endpoints, run, model, dataset, settings, n_requests)
    return results_path


def _write_results(
    sub: ValidatedSubmission,
    endpoints: tuple[Endpoint, ...],
    run: ReproduceRun,
    model: Model,
    dataset: LoadedDataset,
    settings: RunSettings,
    n_requests: int,
) -> None:
    """The job's results file of every record its samples log holds, naming what it reproduced."""
    from debench.run.pipeline import EvalOptions, build_results, run_config
    from debench.run.runner import run_fingerprint
    from debench.run.task_files import tasks_dir
    from debench.scoring.results import write_results

    method = sub.results.task.method
    results_path, samples_path = run.paths(sub)
    docs = list(dataset.docs)
    by_id = _records_by_doc(samples_path)
    records = [by_id[d.doc_id] for d in docs if d.doc_id in by_id]
    fp = run_fingerprint(sub.task, model.identity(), dataset.content_hash, method)
    opts = EvalOptions(use_cache=False, data_source="local", command=["scripts/refresh_leaderboard.py", "--reproduce"])
    config = run_config(
        sub.task,
        tasks_dir() / f"{sub.task.name}.yaml",
        model,
        opts,
        method=method,
        concurrency=settings.concurrency,
        fingerprint=fp,
        parser=sub.task.parser.model_dump(),
        scoring=sub.task.scoring.model_dump(),
        n_bootstrap=sub.task.scoring.n_bootstrap,
    )
    config["reproduction"] = {
        "of": f"{sub.submission}/{sub.results_path.name}",
        "submitted_sha256": sha256_file(sub.results_path),
        "endpoints": [e.id for e in endpoints],
    }
    results = build_results(
        sub.task,
        model.describe(),
        dataset,
        docs,
        records,
        config=config,
        n_requests=n_requests,
        n_bootstrap=None,
        samples_file=samples_path.name,
        method=method,
    )
    write_results(results, results_path)
