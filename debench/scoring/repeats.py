"""Judge consistency: the same documents judged K times (``debench eval --repeats K``).

Repeat ``k`` is an ordinary run whose requests carry the generation seed ``seed + k`` (the
task's or the model's seed, else 0): each repeat's answers are cached and logged on their own
(repeat 0 is the plain run). The summary says how stable the judge is:

* **per-document agreement** — for each document, the share of its repeats that gave the modal
  answer (1.0: the same answer every time; 1/K at worst), and their mean;
* **the spread of every metric across repeats** — each repeat scored on its own: mean, standard
  deviation, minimum and maximum;
* **the majority-vote metrics** — each document's modal answer (ties go to the earliest repeat),
  scored like any run, with bootstrap CIs.
"""

from __future__ import annotations

import json
import statistics
from collections import Counter
from typing import Any

from pydantic import BaseModel, Field

from debench.core.json_schema import document_schema, schema_path
from debench.data.base import Doc
from debench.data.samples import SampleRecord
from debench.scoring.results import ModelInfo, TaskInfo
from debench.scoring.scores import MetricValue, score
from debench.task.config import TaskConfig

SCHEMA_PATH = schema_path("repeats.schema.json")


class MetricSpread(BaseModel):
    values: list[float | None] = Field(description="the metric of each repeat, in repeat order")
    mean: float | None
    sd: float | None
    min: float | None
    max: float | None


class Agreement(BaseModel):
    mean: float | None = Field(description="mean over documents of the share of repeats giving the modal answer")
    n_docs: int = Field(description="documents answered (parsed) in at least two repeats")
    n_unanimous: int
    distribution: dict[str, int] = Field(description="documents by their agreement share, e.g. '0.67': 12")


class RepeatsReport(BaseModel):
    schema_version: str = "1.0"
    task: TaskInfo
    model: ModelInfo
    repeats: int
    seeds: list[int] = Field(description="the generation seed of each repeat")
    temperature: float
    results_files: list[str] = Field(description="each repeat's results file, relative to this file")
    agreement: Agreement
    spread: dict[str, MetricSpread]
    majority_vote: dict[str, MetricValue]
    majority_vote_n_samples: int


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True)


def modal(values: list[Any]) -> tuple[Any, float]:
    """The most frequent value (ties: the earliest of them) and its share."""
    counts = Counter(_key(v) for v in values)
    best = max(counts.values())
    return next(v for v in values if counts[_key(v)] == best), best / len(values)


def agreement(runs: list[dict[str, SampleRecord]], docs: list[Doc]) -> Agreement:
    shares = []
    for d in docs:
        answers = [r[d.doc_id].prediction for r in runs if d.doc_id in r and r[d.doc_id].status == "ok"]
        if len(answers) >= 2:
            shares.append(modal(answers)[1])
    dist = Counter(f"{s:.2f}" for s in shares)
    return Agreement(
        mean=statistics.fmean(shares) if shares else None,
        n_docs=len(shares),
        n_unanimous=sum(s == 1.0 for s in shares),
        distribution=dict(sorted(dist.items())),
    )


def spread(per_repeat: list[dict[str, MetricValue]]) -> dict[str, MetricSpread]:
    out = {}
    for name in per_repeat[0]:
        values = [m[name].value for m in per_repeat]
        defined = [v for v in values if v is not None]
        out[name] = MetricSpread(
            values=values,
            mean=statistics.fmean(defined) if defined else None,
            sd=statistics.stdev(defined) if len(defined) >= 2 else None,
            min=min(defined) if defined else None,
            max=max(defined) if defined else None,
        )
    return out


def majority_records(runs: list[dict[str, SampleRecord]], docs: list[Doc]) -> dict[str, SampleRecord]:
    """Each document's modal parsed answer as one record; a document no repeat parsed keeps the
    status of its first repeat (a parse failure, an error or not completed)."""
    out = {}
    for d in docs:
        recs = [r[d.doc_id] for r in runs if d.doc_id in r]
        if not recs:
            continue
        answers = [r.prediction for r in recs if r.status == "ok"]
        if answers:
            out[d.doc_id] = SampleRecord(doc_id=d.doc_id, status="ok", prediction=modal(answers)[0], target=d.target)
        else:
            first = recs[0]
            out[d.doc_id] = SampleRecord(
                doc_id=d.doc_id, status=first.status, error=first.error, parse_error=first.parse_error, target=d.target
            )
    return out


def summarize(
    task: TaskConfig,
    docs: list[Doc],
    runs: list[dict[str, SampleRecord]],
    per_repeat_metrics: list[dict[str, MetricValue]],
    *,
    task_info: TaskInfo,
    model_info: ModelInfo,
    seeds: list[int],
    temperature: float,
    results_files: list[str],
    n_bootstrap: int | None,
) -> RepeatsReport:
    majority = score(task, docs, majority_records(runs, docs), n_bootstrap=n_bootstrap)
    return RepeatsReport(
        task=task_info,
        model=model_info,
        repeats=len(runs),
        seeds=seeds,
        temperature=temperature,
        results_files=results_files,
        agreement=agreement(runs, docs),
        spread=spread(per_repeat_metrics),
        majority_vote=majority.metrics,
        majority_vote_n_samples=majority.n_samples,
    )


def repeats_json_schema() -> dict[str, Any]:
    return document_schema(
        RepeatsReport, slug="repeats", version="1.0", title="debench judge-consistency (repeats) report"
    )
