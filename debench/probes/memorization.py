"""The memorization probe: does the judge know who won a public debate without reading it?

Every document of a public debate task (``metadata_only.PUBLISHED``) is judged as its
metadata-only copy (``debench.probes.metadata_only``) through the normal runner, with the task's
prompt, parser and grammar and ``--method direct`` (there is no speech for a chronological method
to read): cached, concurrent, resumable, into ``memorization_samples_<task>_<fingerprint>.jsonl``
(the fingerprint ``eval`` gives the same task, model, data and method; the copies' doc_ids name the
probe). The report, ``memorization_<task>_<fingerprint>.json`` (schema
``debench/schema/memorization_report.schema.json``), gives:

* ``accuracy`` — among the parsed verdicts, the share equal to the gold (BP: naming an advancing
  team), with its Wilson 95% interval;
* ``majority_accuracy`` — the accuracy, on the same documents, of always naming the most frequent
  gold label of the run's documents (``baseline/majority``'s answer): what a judge that knows
  nothing of a debate can reach;
* ``p_value`` — the one-sided exact binomial test of H0: the judge's chance of naming the winner
  is at most ``majority_accuracy`` (``metrics.bootstrap.binomial_tail``: P(X >= k)).

A judge that reads debates answers these prompts at chance; accuracy above the majority label's
means it may know the debates' outcomes, so its scores on these tasks measure recall as well as
judgment (``debench card``'s memorization criterion reads this report).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from debench.core.atomic import write_json_record
from debench.core.errors import UserError
from debench.core.json_schema import document_schema, schema_path, validate_with_schema_file
from debench.data.base import Doc
from debench.data.loading import load_task_data
from debench.data.prompts import check_templates
from debench.data.samples import SampleRecord
from debench.metrics.bootstrap import binomial_tail
from debench.metrics.classification import is_correct
from debench.models.base import Model
from debench.models.baselines import majority_label
from debench.models.calls import RequestGuard
from debench.probes.metadata_only import metadata_only, published_refusal
from debench.probes.report import Rate, StatusCounts
from debench.probes.run import side_verdict_refusal
from debench.probes.stats import rate
from debench.run.pipeline import (
    ReportOutput,
    RunOptions,
    dataset_info,
    run_config,
    run_plugins,
    run_stem,
    select_docs,
    task_info,
    usage_info,
)
from debench.run.runner import error_summary, run_fingerprint, run_samples
from debench.scoring.results import DatasetInfo, ModelInfo, TaskInfo, UsageInfo, now_iso, package_versions
from debench.task.config import TaskConfig

MEMORIZATION_SCHEMA_VERSION = "1.0"
MEMORIZATION_SCHEMA_PATH = schema_path("memorization_report.schema.json")
METHOD = "direct"
"""The metadata-only prompt is one question, whatever the method of the card or run around it."""


class MemorizationReport(BaseModel):
    schema_version: str = MEMORIZATION_SCHEMA_VERSION
    kind: str = "memorization_report"
    task: TaskInfo
    model: ModelInfo
    dataset: DatasetInfo
    n_docs: int = Field(description="documents judged from their metadata only")
    statuses: StatusCounts
    accuracy: Rate = Field(description="parsed metadata-only verdicts equal to the gold (BP: an advancing team)")
    majority_label: Any = Field(description="the most frequent gold label of the run's documents")
    majority_accuracy: Rate = Field(description="the majority label's accuracy on the documents whose verdict parsed")
    excess: float | None = Field(description="accuracy minus majority_accuracy; null when no verdict parsed")
    p_value: float | None = Field(
        description="one-sided exact binomial test of H0: accuracy <= majority_accuracy; null when no verdict parsed"
    )
    prediction_distribution: dict[str, int] = Field(description="parsed verdicts by label")
    usage: UsageInfo
    config: dict[str, Any]
    samples_file: str = Field(description="the runner's per-sample log of the metadata-only copies")
    versions: dict[str, str | None]
    created_at: str


MemorizationOutput = ReportOutput[MemorizationReport]


def memorization_refusal(task: TaskConfig) -> str | None:
    """None when the probe applies to the task (public debates, a verdict naming a side); else why not."""
    return published_refusal(task) or side_verdict_refusal(task)


@dataclass(frozen=True)
class Recall:
    """How the metadata-only verdicts compare with the gold and with the majority label."""

    accuracy: Rate
    majority_label: Any
    majority_accuracy: Rate
    p_value: float | None
    distribution: dict[str, int]

    @classmethod
    def of(cls, task: TaskConfig, docs: list[Doc], records: dict[str, SampleRecord]) -> Recall:
        """``docs``: the metadata-only copies (their gold is the original's)."""
        majority = majority_label(docs, task)
        parsed = [(d, records[d.doc_id].prediction) for d in docs if _status(records, d) == "ok"]
        right = [is_correct(pred, d.target) for d, pred in parsed]
        baseline = [is_correct(majority, d.target) for d, _ in parsed]
        accuracy, by_majority = rate(right), rate(baseline)
        p_value = binomial_tail(accuracy.k, accuracy.n, by_majority.value or 0.0) if parsed else None
        distribution = Counter(str(pred) for _, pred in parsed)
        return cls(accuracy, majority, by_majority, p_value, dict(sorted(distribution.items())))


def _status(records: dict[str, SampleRecord], doc: Doc) -> str:
    record = records.get(doc.doc_id)
    return record.status if record is not None else "missing"


def _statuses(records: dict[str, SampleRecord], docs: list[Doc]) -> StatusCounts:
    counts = Counter(_status(records, d) for d in docs)
    return StatusCounts(**counts)


async def run_memorization(
    task: TaskConfig, task_path: Path, model: Model, opts: RunOptions, guard: RequestGuard | None = None
) -> MemorizationOutput:
    """Judge the metadata-only copies of the first ``opts.limit`` documents; write the report.
    ``guard``: asked before every request (the leaderboard job's budgets)."""
    refusal = memorization_refusal(task)
    if refusal is not None:
        raise UserError(refusal)
    dataset = load_task_data(task, opts.data_source, opts.data_dir)
    docs = [metadata_only(d, task) for d in select_docs(dataset, opts.limit)]
    if docs:
        check_templates(task, task_path, docs[0])
    fp = run_fingerprint(task, model.identity(), dataset.content_hash, METHOD)
    stem = run_stem(task, fp, opts.limit)
    out_dir = opts.model_dir(model)
    samples_path = out_dir / f"memorization_samples_{stem}.jsonl"
    report_path = out_dir / f"memorization_{stem}.json"
    settings = opts.run_settings(model, METHOD, guard=guard)
    records, caller = await run_samples(task, docs, model, samples_path, settings)
    by_id = {r.doc_id: r for r in records}
    recall = Recall.of(task, docs, by_id)
    report = MemorizationReport(
        task=task_info(task, METHOD),
        model=ModelInfo(**model.describe()),
        dataset=dataset_info(dataset),
        n_docs=len(docs),
        statuses=_statuses(by_id, docs),
        accuracy=recall.accuracy,
        majority_label=recall.majority_label,
        majority_accuracy=recall.majority_accuracy,
        excess=None if recall.accuracy.value is None else recall.accuracy.value - (recall.majority_accuracy.value or 0),
        p_value=recall.p_value,
        prediction_distribution=recall.distribution,
        usage=usage_info(records, caller.n_requests),
        config=run_config(
            task,
            task_path,
            model,
            opts,
            method=METHOD,
            concurrency=settings.concurrency,
            fingerprint=fp,
            probe="metadata_only",
        ),
        samples_file=samples_path.name,
        versions=package_versions(run_plugins(task, METHOD, model)),
        created_at=now_iso(),
    )
    write_json_record(report_path, report)
    return MemorizationOutput(report, report_path, samples_path, len(records), error_summary(records))


def memorization_json_schema() -> dict[str, Any]:
    return document_schema(
        MemorizationReport,
        slug="memorization-report",
        version=MEMORIZATION_SCHEMA_VERSION,
        title="debench memorization-probe report",
    )


def validate_memorization_report(data: dict[str, Any]) -> None:
    validate_with_schema_file(data, MEMORIZATION_SCHEMA_PATH)
