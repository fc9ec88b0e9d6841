"""The leaderboard's own run of a canonical judge on a task: every document, the maintainers'
settings, through the trusted endpoint, within budgets the job counts itself, final.

A submission nominates a canonical judge (``debench.leaderboard.canonical``); the refresh job runs
the judge, never the submission:

* the model is made from the maintainers' settings (``leaderboard/maintainers.yaml``) — its identity
  must be the canonical one — and reaches the trusted endpoint with the maintainers' key (or is the
  model the job serves); nothing the submitter wrote (a ``stop``, a temperature, a seed, a context
  size, an ``api_base``) reaches it;
* on **every document** of the task's real data, with the judge's method, **without the response
  cache**;
* **final**: a document the model cannot answer (too long for its window, an error, a refusal) is
  recorded as the job got it and scored so, never retried, skipped or re-drawn; a document with a
  record is never asked again;
* **within budgets** (``debench.leaderboard.allowance``): every request is admitted against what is
  left of the entry's budget (over every refresh the run took: the ledger), the refresh's, the
  month's and the refresh's wall time. A run that reaches the entry's budget ends: the documents
  it did not judge are recorded as not completed (final too). A run stopped by the refresh's
  budgets or its time waits: what it judged is kept and the next refresh resumes it.

The run is an ordinary results file and samples log under ``leaderboard/reproduced/<judge folder>/``,
named by the run fingerprint of the canonical identity (one run per judge and task); its results
file is written once every document has a record, its ``config.reproduction`` naming the judge,
its settings and the endpoint. The workflow commits the samples log as it grows and the ledger
with it. Every build validates the run like a submission (every metric recomputed from the
samples) except for the 5% error cap: the job's failures are the model's, and a run whose metrics
leave out more than 5% is shown but not ranked.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from debench.core.errors import UserError
from debench.data.base import Doc, LoadedDataset
from debench.data.samples import SampleRecord
from debench.leaderboard.allowance import Allowance, BudgetReached, Scope
from debench.leaderboard.canonical import CanonicalJudge
from debench.leaderboard.estimate import PromptCounter
from debench.leaderboard.ledger import Ledger, Purpose, read_ledger, write_ledger
from debench.leaderboard.maintainers import Budget, Maintainers
from debench.leaderboard.trusted import Endpoint
from debench.models.args import ModelArgs
from debench.models.base import Model
from debench.run.runner import RunSettings
from debench.task.config import TaskConfig

BUDGET_STOP = "not judged: the leaderboard's budget for one entry ran out"


def _minus(a: Budget, b: Budget) -> Budget:
    return Budget(requests=max(0, a.requests - b.requests), tokens=max(0, a.tokens - b.tokens))


@dataclass
class ReproduceRun:
    """The refresh job's runs (``--reproduce``): where they go, what they may spend, the ledger."""

    out_dir: Path
    """``leaderboard/reproduced``: one folder per canonical judge."""
    maintainers: Maintainers
    ledger_path: Path
    data_dir: str | Path | None = None
    model_args: ModelArgs | None = None
    """The machine's own settings for the models it runs (those outside an identity)."""
    started: datetime = field(default_factory=lambda: datetime.now(UTC))
    clock: float = field(default_factory=time.monotonic)
    ledger: Ledger = field(init=False)

    def __post_init__(self) -> None:
        self.ledger = read_ledger(self.ledger_path)

    @property
    def refresh(self) -> str:
        return self.started.strftime("%Y-%m-%dT%H:%M:%SZ")

    @property
    def month(self) -> str:
        return self.started.strftime("%Y-%m")

    @property
    def deadline(self) -> float:
        return self.clock + 60 * self.maintainers.budgets.per_refresh.wall_minutes

    def left(self) -> dict[Scope, Budget]:
        """What is left of this refresh's budget and of the month's."""
        b = self.maintainers.budgets
        return {
            "refresh": _minus(b.per_refresh, self.ledger.spent(refresh=self.refresh)),
            "month": _minus(b.per_month, self.ledger.spent(month=self.month)),
        }

    def entry_left(self, judge: CanonicalJudge, task: TaskConfig, purpose: Purpose = "reproduction") -> Budget:
        """What is left of one entry's budget for the judge's run of ``task`` (over every refresh);
        the memorization probe of a judge on a task is an entry of its own."""
        spent = self.ledger.spent(judge=judge.id, task=task.name, purpose=purpose)
        return _minus(self.maintainers.budgets.per_entry, spent)

    def allowance(
        self, judge: CanonicalJudge, task: TaskConfig, counter: PromptCounter, purpose: Purpose = "reproduction"
    ) -> Allowance:
        """The run's allowance; each request's cost goes into this refresh's ledger line, written at once."""
        line = self.ledger.line(self.refresh, self.month, purpose, judge.id, task.name)

        def spend(requests: int, tokens: int, seconds: float) -> None:
            line.requests += requests
            line.tokens += tokens
            line.seconds = round(line.seconds + seconds, 3)
            write_ledger(self.ledger, self.ledger_path)

        return Allowance({"entry": self.entry_left(judge, task, purpose), **self.left()}, self.deadline, counter, spend)

    def paths(self, judge: CanonicalJudge, task: TaskConfig, dataset: LoadedDataset) -> tuple[Path, Path]:
        return run_paths(self.out_dir, judge, task, dataset)


def run_paths(out_dir: Path, judge: CanonicalJudge, task: TaskConfig, dataset: LoadedDataset) -> tuple[Path, Path]:
    """The results file and samples log of the judge's run of ``task`` under ``out_dir``: named by
    the run fingerprint of the canonical identity (one run per judge and task)."""
    from debench.run.pipeline import run_stem
    from debench.run.runner import run_fingerprint

    stem = run_stem(task, run_fingerprint(task, judge.identity, dataset.content_hash, judge.method))
    folder = out_dir / judge.folder
    return folder / f"results_{stem}.json", folder / f"samples_{stem}.jsonl"


def records_by_doc(samples: Path) -> dict[str, SampleRecord]:
    """The records the job's samples log holds so far, by document (none when it does not exist yet)."""
    from debench.data.samples import read_records

    return {r.doc_id: r for r in read_records(samples, bad_line="skip")} if samples.exists() else {}


def _stop(samples_path: Path, docs: list[Doc], why: str) -> None:
    """Record every document of ``docs`` as not completed, ``why``: final, like every other record."""
    from debench.core.record_log import RecordLog

    log = RecordLog(samples_path, SampleRecord, "doc_id")
    try:
        for d in docs:
            log.append(SampleRecord(doc_id=d.doc_id, status="not_completed", error=why, target=d.target))
    finally:
        log.close()


def canonical_model(judge: CanonicalJudge, endpoint: Endpoint, operator: ModelArgs | None) -> Model:
    """The judge's model made from the maintainers' settings, with the machine's own settings that
    leave the identity as it is and the maintainers' key; ``UserError`` when its identity is not
    the canonical one."""
    from debench.models.factory import as_model_args, make_model, model_kind
    from debench.models.kinds import kind_keys

    name = judge.allowed.model
    args = as_model_args(judge.settings)
    if operator is not None:
        args = args.merged(operator.restricted(kind_keys(model_kind(name))))
    model = make_model(name, api_key=endpoint.api_key(), model_args=args)
    made = {k: v for k, v in model.identity().items() if k != "api_base"}
    if made != judge.identity:
        raise UserError(
            f"the leaderboard's model for {judge.id} is not the canonical one (the machine's --model-args change its "
            f"identity)",
            field="reproduction",
        )
    return model


def reproduce(
    judge: CanonicalJudge, task: TaskConfig, endpoint: Endpoint, run: ReproduceRun, counter: PromptCounter
) -> Path | None:
    """Run (or resume) the judge's run of ``task``; the results file once every document has its
    record, None when the run waits for a later refresh (see the module docstring). ``UserError``
    when the model cannot be made or the run cannot be made."""
    from debench.leaderboard.real_data import REAL_DATA
    from debench.run.runner import run_samples

    dataset = REAL_DATA.get(task, run.data_dir)
    docs = list(dataset.docs)
    results_path, samples_path = run.paths(judge, task, dataset)
    samples_path.parent.mkdir(parents=True, exist_ok=True)
    model = canonical_model(judge, endpoint, run.model_args)
    allowance = run.allowance(judge, task, counter)
    settings = RunSettings(
        concurrency=model.default_concurrency, use_cache=False, progress=False, method=judge.method, guard=allowance
    )
    try:
        asyncio.run(run_samples(task, docs, model, samples_path, settings))
    except BudgetReached as stop:
        if stop.scope != "entry":
            return None
        done = records_by_doc(samples_path)
        _stop(samples_path, [d for d in docs if d.doc_id not in done], f"{BUDGET_STOP} ({stop})")
    _write_results(judge, task, endpoint, run, model, dataset)
    return results_path


def _write_results(
    judge: CanonicalJudge, task: TaskConfig, endpoint: Endpoint, run: ReproduceRun, model: Model, dataset: LoadedDataset
) -> None:
    """The job's results file of every record its samples log holds, naming the judge it ran."""
    from debench.run.pipeline import EvalOptions, build_results, run_config
    from debench.run.runner import run_fingerprint
    from debench.run.task_files import tasks_dir
    from debench.scoring.results import write_results

    results_path, samples_path = run.paths(judge, task, dataset)
    docs = list(dataset.docs)
    by_id = records_by_doc(samples_path)
    records = [by_id[d.doc_id] for d in docs if d.doc_id in by_id]
    spent = run.ledger.spent(judge=judge.id, task=task.name)
    opts = EvalOptions(use_cache=False, data_source="local", command=["scripts/refresh_leaderboard.py", "--reproduce"])
    config = run_config(
        task,
        tasks_dir() / f"{task.name}.yaml",
        model,
        opts,
        method=judge.method,
        concurrency=model.default_concurrency,
        fingerprint=run_fingerprint(task, model.identity(), dataset.content_hash, judge.method),
        parser=task.parser.model_dump(),
        scoring=task.scoring.model_dump(),
        n_bootstrap=task.scoring.n_bootstrap,
    )
    config["reproduction"] = {"judge": judge.id, "settings": judge.settings, "endpoints": [endpoint.id]}
    results = build_results(
        task,
        model.describe(),
        dataset,
        docs,
        records,
        config=config,
        n_requests=spent.requests,
        n_bootstrap=None,
        samples_file=samples_path.name,
        method=judge.method,
    )
    write_results(results, results_path)
