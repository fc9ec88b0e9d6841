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

``gate_problem`` is the pull request's check of an allowlisted identity: a ``max_tokens`` above
the allowlist's ceiling, or settings that make prompts overflow the model's published window
(a smaller ``n_ctx``; a submitted prompt that with ``max_tokens`` does not fit; a document the
submission itself recorded as not fitting), are refused.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debench.core.errors import UserError
from debench.data.base import Doc
from debench.data.samples import SampleRecord
from debench.leaderboard.files import sha256_file
from debench.leaderboard.maintainers import AllowedModel, Budget, Maintainers
from debench.leaderboard.trusted import Endpoint
from debench.leaderboard.validate import ValidatedSubmission
from debench.models.args import ModelArgs

REPRODUCED_DIR = Path("leaderboard") / "reproduced"
CHUNK = 16
"""Documents run between two looks at the entry's budget (at most one chunk more is spent)."""
BUDGET_STOP = "not judged: the leaderboard's budget for one entry ran out"


def _model_identities(identity: dict[str, Any]) -> list[dict[str, Any]]:
    """The identities of the models an identity names (an ensemble: its members), baselines left out."""
    members = identity.get("members")
    out = members if isinstance(members, list) else [identity]
    return [m for m in out if isinstance(m, dict) and not str(m.get("name", "")).startswith("baseline/")]


def allowlisted(sub: ValidatedSubmission, maint: Maintainers) -> list[AllowedModel] | str:
    """The allowlist entry of each model the identity names, or why it is not allowlisted."""
    found = []
    for m in _model_identities(sub.identity):
        got = maint.allowed(str(m.get("name", "")))
        if got is None:
            return f"{m.get('name')} is not a model id of the maintainers' allowlist (leaderboard/maintainers.yaml)"
        found.append(got)
    return found or "a baseline is re-run, not reproduced"


def _whole(value: Any) -> int | None:
    """A whole number as the job's rebuild of the identity reads it, else None. The rebuild's model
    arguments take ``8.0`` (and ``true``) as 8 (and 1), and an identity that records ``8.0`` equals
    the rebuilt one's 8: the gate must read them alike, or a float would pass it unchecked."""
    if isinstance(value, (int, float)) and float(value).is_integer():
        return int(value)
    return None


def _max_tokens(m: dict[str, Any], sub: ValidatedSubmission) -> int:
    gen = m.get("generation")
    given = _whole(gen.get("max_tokens")) if isinstance(gen, dict) else None
    return given if given is not None else int(sub.task.generation.max_tokens)


MAX_JOB_THREADS = 4
"""The most llama.cpp threads (``n_threads``) an identity the job reproduces may ask for: the cores of
GitHub's standard runner. The thread count changes answers, so the job runs what the identity
records; many more threads than cores would make its run crawl (they spin while they wait)."""


def gate_problem(sub: ValidatedSubmission, maint: Maintainers) -> str | None:
    """Why an allowlisted identity is refused at the gate (see the module docstring), or None."""
    allowed = allowlisted(sub, maint)
    if isinstance(allowed, str):
        return None  # not allowlisted: self-reported, not refused
    for m, a in zip(_model_identities(sub.identity), allowed, strict=True):
        mt = _max_tokens(m, sub)
        if mt > a.max_tokens:
            return f"{a.model} asks for max_tokens {mt}, above the allowlist's ceiling of {a.max_tokens}"
        threads = _whole(m.get("n_threads"))
        if threads is not None and threads > MAX_JOB_THREADS:
            return f"{a.model} asks for n_threads {threads}, more than the {MAX_JOB_THREADS} the job runs llama.cpp with (a thread per core at most)"
        n_ctx, n_par = _whole(m.get("n_ctx")), _whole(m.get("n_parallel", 1))
        if n_ctx is not None and n_par is not None and n_ctx // max(1, n_par) < a.context_window:
            return f"{a.model} with n_ctx {n_ctx} ({n_par} slot(s)) has a smaller window than its published {a.context_window} tokens: prompts would overflow"
        if mt >= a.context_window:
            return f"{a.model}: max_tokens {mt} leaves no room for a prompt in its {a.context_window}-token window"
    if len(allowed) == 1:
        a, mt = allowed[0], _max_tokens(_model_identities(sub.identity)[0], sub)
        over = next(
            (r for r in sub.records if r.status == "not_completed" or r.prompt_tokens + mt > a.context_window), None
        )
        if over is not None:
            return (
                f"{a.model} with max_tokens {mt}: the prompt of document '{over.doc_id}' does not fit its published {a.context_window}-token window "
                "(identities whose settings make prompts overflow are refused)"
            )
    return None


def estimate(sub: ValidatedSubmission, maint: Maintainers) -> Budget:
    """What reproducing the entry is expected to cost: requests = documents × the requests a
    document took in the submitted run (at least 1); tokens = the larger of the submitted run's
    tokens scaled to every document and every request asking for its ``max_tokens``. The run
    itself is capped at the per-entry budget, so an understated submission cannot spend more."""
    n_all = sub.n_docs_total
    per_doc = max(1.0, sub.results.usage.n_requests / max(1, sub.n_docs))
    requests = round(n_all * per_doc)
    mt = max((_max_tokens(m, sub) for m in _model_identities(sub.identity)), default=0)
    tokens = max(int(sub.results.usage.total_tokens * n_all / max(1, sub.n_docs)), requests * mt)
    return Budget(requests=requests, tokens=tokens)


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


def _stop_records(docs: list[Doc], why: str) -> list[SampleRecord]:
    return [SampleRecord(doc_id=d.doc_id, status="not_completed", error=why) for d in docs]


def reproduce(
    sub: ValidatedSubmission,
    endpoints: tuple[Endpoint, ...],
    run: ReproduceRun,
    key: Callable[[dict[str, Any]], str | None],
) -> Path:
    """Run (or continue) the entry's reproduction and write its results file; returns its path.
    ``UserError`` when the model cannot be built or the run cannot be made."""
    from debench.core.record_log import RecordLog
    from debench.leaderboard.real_data import REAL_DATA
    from debench.leaderboard.rebuild import model_from_identity
    from debench.run.pipeline import EvalOptions, build_results, run_config
    from debench.run.runner import RunSettings, run_fingerprint, run_samples
    from debench.run.task_files import tasks_dir
    from debench.scoring.results import write_results

    method = sub.results.task.method
    results_path, samples_path = run.paths(sub)
    samples_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        model = model_from_identity(sub.identity, key, run.model_args, own_endpoint=True)
    except UserError as exc:
        raise UserError(
            f"the leaderboard cannot build the model {sub.results.model.name}: {exc}",
            path=str(sub.results_path),
            field="reproduction",
        ) from None
    dataset = REAL_DATA.get(sub.task, run.data_dir)
    docs = list(dataset.docs)
    budget = run.maintainers.budgets.per_entry
    entry = Spend()
    done = _records_by_doc(samples_path)
    entry.add(
        list(done.values()),
        sum(max(1, r.attempts) for r in done.values() if r.status in ("ok", "parse_failure", "error")),
    )
    settings = RunSettings(concurrency=model.default_concurrency, use_cache=False, progress=False, method=method)
    n_requests = entry.requests
    todo = [d for d in docs if d.doc_id not in done]
    while todo:
        if not entry.below(budget):
            log = RecordLog(samples_path, SampleRecord, "doc_id")
            try:
                for rec in _stop_records(todo, f"{BUDGET_STOP} ({entry.requests} requests, {entry.tokens} tokens)"):
                    log.append(rec)
            finally:
                log.close()
            break
        chunk, todo = todo[: run.chunk], todo[run.chunk :]
        records, caller = asyncio.run(run_samples(sub.task, chunk, model, samples_path, settings))
        entry.add(records, caller.n_requests)
        run.spent.add(records, caller.n_requests)
        n_requests += caller.n_requests
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
    return results_path
