"""Submitted against reproduced: the difference on the primary metric and whether it is noise.

Both runs judged the same documents. The difference (submitted − reproduced) of the primary metric
gets a **paired** percentile bootstrap: each resample draws the documents once (with repetition)
and evaluates both runs on that draw, each on the documents it scored, so what the two runs share
(the documents) cancels and what is left is how much the answers differ. The interval is the
run-to-run noise the job measured: a difference whose 95% interval holds 0 is *within noise*; a
difference outside it says the submitted numbers are not the named model's (or the model changed).
``agreement`` is the share of documents whose outcome (prediction, or failure status) is the same.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import numpy as np

from debench.data.base import Doc
from debench.data.samples import SampleRecord
from debench.metrics.base import get_metric
from debench.metrics.bootstrap import percentile_ci, resample_counts
from debench.scoring.scores import scored_pairs
from debench.task.config import TaskConfig

N_BOOT = 1000
SEED = 20261128


@dataclass(frozen=True)
class Comparison:
    metric: str
    submitted: float | None
    reproduced: float | None
    difference: float | None
    """submitted − reproduced (None when either is undefined)."""
    difference_ci95: list[float] | None
    within_noise: bool | None
    """The difference's paired 95% interval holds 0 (None when it cannot be computed)."""
    agreement: float
    """Share of documents with the same outcome in both runs."""
    n_docs: int


def outcome(r: SampleRecord | None) -> str:
    """What two runs are compared on: the prediction (as JSON), or the status when nothing was
    predicted ("missing": no record)."""
    if r is None:
        return "missing"
    return json.dumps(r.prediction, sort_keys=True) if r.status == "ok" else r.status


def _side(
    task: TaskConfig, docs: list[Doc], records: dict[str, SampleRecord], metric_name: str
) -> tuple[Any, np.ndarray]:
    """(the metric's evaluate function on the scored documents, their positions among ``docs``)."""
    use_docs, preds = scored_pairs(task, docs, records)
    pos = {d.doc_id: i for i, d in enumerate(docs)}
    cols = np.array([pos[d.doc_id] for d in use_docs], dtype=np.intp)
    mc = next(m for m in task.metrics if m.name == metric_name)
    metric = get_metric(metric_name)
    arr = np.empty(len(preds), dtype=object)
    arr[:] = preds
    return metric.bind(metric.prepare(use_docs, **mc.args), arr), cols


def compare(
    task: TaskConfig, docs: list[Doc], submitted: list[SampleRecord], reproduced: list[SampleRecord], metric_name: str
) -> Comparison:
    """The two runs of ``docs`` compared on ``metric_name`` (see the module docstring)."""
    sub = {r.doc_id: r for r in submitted}
    rep = {r.doc_id: r for r in reproduced}
    agree = sum(outcome(sub.get(d.doc_id)) == outcome(rep.get(d.doc_id)) for d in docs) / len(docs) if docs else 0.0
    eval_s, cols_s = _side(task, docs, sub, metric_name)
    eval_r, cols_r = _side(task, docs, rep, metric_name)

    def point(ev: Any, cols: np.ndarray) -> float | None:
        return ev(np.ones((1, len(cols)))).finish().value(0) if len(cols) else None

    s, r = point(eval_s, cols_s), point(eval_r, cols_r)
    diff = None if s is None or r is None else s - r
    ci: list[float] | None = None
    if diff is not None and len(cols_s) > 1 and len(cols_r) > 1:
        draws = []
        for counts in resample_counts(len(docs), N_BOOT, SEED):
            draws.append(eval_s(counts[:, cols_s]).finish().values - eval_r(counts[:, cols_r]).finish().values)
        ci, _ = percentile_ci(np.concatenate(draws), N_BOOT)
    within = None if ci is None else bool(ci[0] <= 0.0 <= ci[1])
    return Comparison(metric_name, s, r, diff, ci, within, agree, len(docs))
