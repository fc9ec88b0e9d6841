"""Parsed predictions -> metrics with bootstrap CIs. Shared by ``eval``, ``score`` and ``validate``."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from itertools import pairwise
from typing import Any

import numpy as np
from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from debench.data.base import Doc
from debench.data.samples import SampleRecord
from debench.metrics.base import get_metric, sharing
from debench.metrics.bootstrap import metric_seed, point_and_ci, proportion_ci
from debench.metrics.names import STATUS_METRICS
from debench.metrics.params import refuse_bad_args
from debench.metrics.reports import get_report
from debench.task.config import TaskConfig


class MetricValue(BaseModel):
    value: float | None
    ci95: list[float] | None = Field(default=None, min_length=2, max_length=2)
    n: int
    note: str | None = None
    """Why the value or its CI is missing (e.g. "no annotator pair shares 50 or more speeches");
    left out of the file when both exist (as in files written before notes existed)."""

    @model_serializer(mode="wrap")
    def _without_empty_note(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if data.get("note") is None:
            data.pop("note", None)
        return data


class ScoreReport(BaseModel):
    metrics: dict[str, MetricValue]
    n_samples: int
    n_parse_failures: int
    n_errors: int
    n_not_completed: int
    reports: dict[str, Any] = Field(default_factory=dict)


def scored_pairs(task: TaskConfig, docs: list[Doc], records: dict[str, SampleRecord]) -> tuple[list[Doc], list[Any]]:
    """The documents that enter the metrics, and their predictions."""
    use_docs: list[Doc] = []
    preds: list[Any] = []
    for d in docs:
        r = records.get(d.doc_id)
        if r is None:
            continue
        if r.status == "ok":
            use_docs.append(d)
            preds.append(r.prediction)
        elif r.status == "parse_failure" and task.scoring.parse_failure == "value":
            use_docs.append(d)
            preds.append(task.scoring.parse_failure_value)
    return use_docs, preds


def score(
    task: TaskConfig,
    docs: list[Doc],
    records: dict[str, SampleRecord],
    *,
    n_bootstrap: int | None = None,
    seed: int | None = None,
) -> ScoreReport:
    n_boot = task.scoring.n_bootstrap if n_bootstrap is None else n_bootstrap
    seed = task.scoring.bootstrap_seed if seed is None else seed
    statuses = [records[d.doc_id].status for d in docs if d.doc_id in records]
    use_docs, preds = by_id(*scored_pairs(task, docs, records))
    states: States = {}
    metrics = metric_values(task, use_docs, preds, statuses, n_boot, seed, states)
    reports = {name: get_report(name)(preds, use_docs) for name in task.reports}
    alt_args = alt_test_args(task)
    if alt_args is not None:
        from debench.metrics.alt_test import Ratings, ratings_report

        # the alt-test metrics' ratings table, with the test they ran on these predictions
        reports["alt_test"] = ratings_report(prepared(states, Ratings.of, use_docs, alt_args), preds)
    if any(r.verdicts for r in records.values()):
        reports["debatrix_verdicts"] = verdicts_report(task, docs, records, n_boot, seed)
    return ScoreReport(
        metrics=metrics,
        n_samples=len(statuses),
        n_parse_failures=statuses.count("parse_failure"),
        n_errors=statuses.count("error"),
        n_not_completed=statuses.count("not_completed"),
        reports=reports,
    )


DRY_RUN_DOCS = 20
"""Documents a plug-in metric is first computed on, before any document is judged."""


def check_plugin_metrics(task: TaskConfig, docs: Sequence[Doc], names: Collection[str]) -> None:
    """The task's metrics ``names`` (other packages'), each computed on the first documents with
    their gold values as the predictions (a perfect judge), before any document is judged: a metric
    that raises or answers other than ``Draws`` is one line naming it (``debench.metrics.base``),
    not a traceback after the whole run."""
    sample = list(docs[:DRY_RUN_DOCS])
    gold = np.empty(len(sample), dtype=object)
    gold[:] = [d.target for d in sample]
    for mc in task.metrics:
        if mc.name in names:
            metric = get_metric(mc.name)
            metric.value(metric.prepare(sample, **mc.args), gold)


def by_id(docs: list[Doc], preds: list[Any]) -> tuple[list[Doc], list[Any]]:
    """The documents and their predictions in the order of the documents' ids: what the metrics,
    their resamples and the reports are computed over, so that none depends on the order the
    documents came in."""
    order = sorted(range(len(docs)), key=lambda k: docs[k].doc_id)
    return [docs[k] for k in order], [preds[k] for k in order]


def alt_test_args(task: TaskConfig) -> dict[str, Any] | None:
    """The alt-test's settings when the task scores it (the args of its first alt-test metric),
    else None: the ``alt_test`` report then comes with the metrics."""
    from debench.metrics.names import ALT_TEST_METRICS

    return next((dict(mc.args) for mc in task.metrics if mc.name in ALT_TEST_METRICS), None)


States = dict[tuple[Any, str], Any]
"""Metric states by their ``prepare`` and its arguments (as JSON), for one list of documents."""


def prepared(states: States, prepare: Callable[..., Any], docs: list[Doc], args: dict[str, Any]) -> Any:
    """``prepare(docs, **args)``, made once per ``states``: metrics with the same prepare and args share
    their state (metrics/base.py): the two kappas' annotator pairs, the alt-test's ratings table (and
    its report) are built once."""
    key = (prepare, json.dumps(args, sort_keys=True, default=repr))
    if key not in states:
        states[key] = prepare(docs, **args)
    return states[key]


def metric_values(
    task: TaskConfig,
    use_docs: list[Doc],
    preds: list[Any],
    statuses: Sequence[str],
    n_boot: int,
    seed: int,
    states: States | None = None,
) -> dict[str, MetricValue]:
    """The task's metrics on these predictions (status metrics from ``statuses``), the documents in
    the order of their ids (``by_id``). Each metric is resampled with its own seed (``metric_seed``):
    its value and CI depend neither on the order of the documents nor on its place in the task's list.
    ``states``: where the metrics' prepared states are kept (``prepared``), for the caller to reuse."""
    pred_arr = np.empty(len(preds), dtype=object)
    pred_arr[:] = preds
    metrics: dict[str, MetricValue] = {}
    states = {} if states is None else states
    with sharing():
        for i, mc in enumerate(task.metrics):
            if mc.name in STATUS_METRICS:
                metrics[mc.name] = _status_metric(mc.name, statuses)
                continue
            metric = get_metric(mc.name)
            refuse_bad_args(mc.name, metric.params, mc.args, field=f"metrics.{i}.args")  # a task built in code, too
            state = prepared(states, metric.prepare, use_docs, mc.args)
            est = point_and_ci(metric, state, pred_arr, n_boot, metric_seed(seed, mc.name))
            metrics[mc.name] = MetricValue(value=est.value, ci95=est.ci95, n=len(use_docs), note=est.note)
    return metrics


def verdicts_report(
    task: TaskConfig, docs: list[Doc], records: dict[str, SampleRecord], n_boot: int, seed: int
) -> dict[str, Any]:
    """Each verdict a method keeps (Debatrix: ``summary`` and ``scores``) scored like the
    prediction, over the answered documents (a verdict that could not be read is a parse failure),
    and how often two verdicts agree where both were read (Wilson CI)."""
    answered = [(d, records[d.doc_id]) for d in docs if d.doc_id in records and records[d.doc_id].verdicts is not None]
    names = sorted({k for _, r in answered for k in r.verdicts or {}})
    out: dict[str, Any] = {name: _verdict_scores(task, answered, name, n_boot, seed) for name in names}
    for a, b in pairwise(names):
        out[f"agreement_{a}_{b}"] = _agreement(answered, a, b)
    return out


Answered = list[tuple[Doc, SampleRecord]]
"""The documents a method answered, with their records."""


def _verdict(record: SampleRecord, name: str) -> Any:
    """The record's verdict ``name`` (None: not read, or not kept)."""
    return (record.verdicts or {}).get(name)


def _verdict_scores(task: TaskConfig, answered: Answered, name: str, n_boot: int, seed: int) -> dict[str, Any]:
    """The task's metrics on one verdict, and how many documents it was not read for."""
    values = [(d, _verdict(r, name)) for d, r in answered]
    kept = [(d, v) for d, v in values if v is not None]
    statuses = ["ok" if v is not None else "parse_failure" for _, v in values]
    metrics = metric_values(task, *by_id([d for d, _ in kept], [v for _, v in kept]), statuses, n_boot, seed)
    return {
        "metrics": {k: m.model_dump() for k, m in metrics.items()},
        "n": len(values),
        "n_unread": len(values) - len(kept),
    }


def _agreement(answered: Answered, a: str, b: str) -> dict[str, Any]:
    """How often verdicts ``a`` and ``b`` are the same where both were read."""
    read = [(_verdict(r, a), _verdict(r, b)) for _, r in answered]
    both = [x == y for x, y in read if None not in (x, y)]
    rate, ci = proportion_ci(np.array(both, dtype=float))
    return {"value": rate, "ci95": ci, "n": len(both)}


def _status_metric(name: str, statuses: Sequence[str]) -> MetricValue:
    if name == "parse_failure_rate":
        answered = [s for s in statuses if s in ("ok", "parse_failure")]
        flags = np.array([s == "parse_failure" for s in answered], dtype=float)
        empty = "no sample was answered"
    else:  # completion_rate
        attempted = [s for s in statuses if s != "error"]
        flags = np.array([s != "not_completed" for s in attempted], dtype=float)
        empty = "no sample was attempted without an error"
    value, ci = proportion_ci(flags)
    return MetricValue(value=value, ci95=ci, n=len(flags), note=empty if value is None else None)
