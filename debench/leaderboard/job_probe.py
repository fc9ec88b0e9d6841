"""The refresh job's memorization probe of a canonical judge (``debench.probes.memorization``): part
of the job's run, made like a reproduction.

Once a canonical judge's run of a public debate task is final (``memorization_refusal`` says which
tasks), the job asks the same model — made from the maintainers' settings by ``canonical_model``,
through the same trusted endpoint, without the response cache — who won each of the task's
debates from their metadata only, on every document. Nothing a submitter wrote reaches it. The
probe is an entry of its own in the budgets (``ledger`` purpose ``memorization``, the judge and
the task): its estimate (the metadata-only prompts, counted by the job) must fit what is left of
one entry's budget, the refresh's and the month's, else it waits for a later refresh, which
resumes it; every request is admitted by the job's ``Allowance``. Its report and samples log go
beside the judge's runs (``leaderboard/reproduced/<judge folder>/memorization_*``), and the judge's
card reads the report; while there is none, the card says why (``Probed.reason``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

from debench.core.json_schema import read_json_model
from debench.data.base import LoadedDataset
from debench.leaderboard.allowance import BudgetReached
from debench.leaderboard.canonical import CanonicalJudge
from debench.leaderboard.reproduce import ReproduceRun, canonical_model, records_by_doc
from debench.leaderboard.trusted import Endpoint
from debench.models.base import Model
from debench.probes.memorization import METHOD, MemorizationReport, memorization_refusal, run_memorization
from debench.run.pipeline import RunOptions
from debench.task.config import TaskConfig


@dataclass(frozen=True)
class Probed:
    """The probe of one judge on one task: its report, or why there is none."""

    report: Path | None
    reason: str = ""


class _JobFolder(RunOptions):
    """The probe's options in the job: every document, no cache, its files in the judge's folder."""

    folder: Path

    def model_dir(self, model: Model) -> Path:
        return self.folder


def committed_report(folder: Path, judge: CanonicalJudge, task: TaskConfig, dataset: LoadedDataset) -> Path | None:
    """The job's finished memorization report of ``judge`` on ``task`` in ``folder``: the model's
    canonical identity on every document of the same data; None when there is none."""
    for path in sorted(folder.glob(f"memorization_{task.name}_*.json")):
        report = read_json_model(path, MemorizationReport, "memorization report")
        made = {k: v for k, v in (report.model.identity or {}).items() if k != "api_base"}
        same_data = report.dataset.content_hash == dataset.content_hash and report.n_docs == len(dataset.docs)
        if report.task.name == task.name and made == judge.identity and same_data:
            return path
    return None


def _held_back(
    judge: CanonicalJudge, task: TaskConfig, model: Model, run: ReproduceRun, opts: _JobFolder
) -> str | None:
    """Why the probe does not run now (it waits, or never fits one entry's budget), or None."""
    from debench.leaderboard.estimate import estimate_run, prompt_counter
    from debench.leaderboard.real_data import REAL_DATA
    from debench.probes.metadata_only import metadata_only
    from debench.run.pipeline import run_stem
    from debench.run.runner import run_fingerprint

    dataset = REAL_DATA.get(task, run.data_dir)
    stem = run_stem(task, run_fingerprint(task, model.identity(), dataset.content_hash, METHOD))
    done = records_by_doc(opts.folder / f"memorization_samples_{stem}.jsonl")
    docs = [metadata_only(d, task) for d in dataset.docs if d.doc_id not in done]
    cost = estimate_run(task, docs, METHOD, model, prompt_counter(judge.allowed.model))
    left = {"entry": run.entry_left(judge, task, "memorization"), **run.left()}
    for scope, budget in left.items():
        if not cost.fits_in(budget):
            return (
                f"the job's estimate of the probe ({cost.requests:,} requests, {cost.tokens:,} tokens) does not fit "
                f"what is left of the {scope}'s budget ({budget.requests:,} requests, {budget.tokens:,} tokens)"
            )
    return None


def probe_memorization(
    judge: CanonicalJudge,
    task: TaskConfig,
    endpoint: Endpoint,
    run: ReproduceRun | None,
    out_dir: Path,
    data_dir: str | Path | None,
) -> Probed:
    """The judge's memorization report on ``task`` (run now, with ``run``, when it fits the
    budgets), or why there is none: the probe does not apply, waits for the job, or waits for budget."""
    from debench.leaderboard.estimate import prompt_counter
    from debench.leaderboard.real_data import REAL_DATA
    from debench.models.managed_server import server_scope
    from debench.run.task_files import tasks_dir

    refusal = memorization_refusal(task)
    if refusal is not None:
        return Probed(None, f"the memorization probe does not apply: {refusal}")
    dataset = REAL_DATA.get(task, data_dir)
    folder = out_dir / judge.folder
    found = committed_report(folder, judge, task, dataset) if folder.is_dir() else None
    if found is not None:
        return Probed(found)
    if run is None:
        return Probed(None, "memorization not measured yet: the probe waits for the leaderboard's job (--reproduce)")
    if endpoint.kind == "provider" and not endpoint.api_key():
        return Probed(None, f"memorization not measured: the probe needs the maintainers' key {endpoint.key_env}")
    model = canonical_model(judge, endpoint, run.model_args)
    where = str(run.data_dir) if run.data_dir else None
    opts = _JobFolder(
        folder=folder, data_source="local" if where else "hub", data_dir=where, use_cache=False, progress=False
    )
    held = _held_back(judge, task, model, run, opts)
    if held is not None:
        return Probed(None, f"memorization not measured: the probe waits, {held}")
    allowance = run.allowance(judge, task, prompt_counter(judge.allowed.model), "memorization")
    folder.mkdir(parents=True, exist_ok=True)
    try:
        with server_scope():
            out = asyncio.run(run_memorization(task, tasks_dir() / f"{task.name}.yaml", model, opts, allowance))
    except BudgetReached as stop:
        return Probed(None, f"memorization not measured: the probe waits for a later refresh ({stop})")
    return Probed(out.report_path)
