"""``debench compare``: is run A better than run B on the same documents?"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from debench.core.errors import UserError
from debench.data.loading import load_task_data
from debench.data.samples import read_records
from debench.metrics.base import get_metric
from debench.metrics.names import STATUS_METRICS
from debench.metrics.paired import paired_bootstrap, paired_permutation
from debench.run.task_lookup import load_task
from debench.scoring.predictions import load_predictions
from debench.scoring.results import load_results
from debench.scoring.scores import scored_pairs

ALPHA = 0.05
"""A difference counts when its two-sided p-value is below this."""


def winner(diff: float | None, p_value: float | None, higher_is_better: bool, alpha: float = ALPHA) -> dict[str, Any]:
    """Which run is better on one metric: ``{"better": "higher"|"lower", "winner": "A"|"B"|None,
    "significant": bool|None, "verdict": "<one line>"}``; ``diff`` is A minus B."""
    better = "higher" if higher_is_better else "lower"
    if diff is None or p_value is None:
        return {
            "better": better,
            "winner": None,
            "significant": None,
            "verdict": "undetermined: the metric is undefined for a run",
        }
    if p_value >= alpha or diff == 0:
        return {
            "better": better,
            "winner": None,
            "significant": False,
            "verdict": f"no significant difference at {alpha:g}",
        }
    a_wins = diff > 0 if higher_is_better else diff < 0
    side = "A" if a_wins else "B"
    return {
        "better": better,
        "winner": side,
        "significant": True,
        "verdict": f"{side} is better (p = {p_value:.4f} < {alpha:g})",
    }


def compare_runs(
    path_a: Path, path_b: Path, *, test: str = "bootstrap", n: int = 10000, seed: int = 0, data_dir: str | None = None
) -> dict[str, Any]:
    ra, rb = load_results(path_a), load_results(path_b)
    if (ra.task.name, ra.task.version) != (rb.task.name, rb.task.version):
        raise UserError(
            f"runs are of different tasks ({ra.task.name} v{ra.task.version} vs {rb.task.name} v{rb.task.version})",
            path=str(path_b),
            field="task",
        )
    if ra.dataset.content_hash != rb.dataset.content_hash:
        raise UserError(
            "runs used different data (content_hash differs)", path=str(path_b), field="dataset.content_hash"
        )
    task, _ = load_task(ra.task.name)
    dataset = load_task_data(task, "local" if data_dir else "auto", data_dir)
    if dataset.content_hash != ra.dataset.content_hash:
        raise UserError(
            "the data found here differs from the runs' data set", path=str(path_a), field="dataset.content_hash"
        )
    records = []
    for path, r in ((path_a, ra), (path_b, rb)):
        if not r.samples_file:
            raise UserError("the results name no samples file", path=str(path), field="samples_file")
        samples = Path(path).parent / r.samples_file
        if not samples.is_file():
            raise UserError("the samples file the results name is not beside them", path=str(samples))
        ids = {rec.doc_id for rec in read_records(samples)}
        docs = [d for d in dataset.docs if d.doc_id in ids]
        records.append({rec.doc_id: rec for rec in load_predictions(samples, task, docs)})
    docs_a, preds_a = scored_pairs(task, dataset.docs, records[0])
    docs_b, preds_b = scored_pairs(task, dataset.docs, records[1])
    pb = {d.doc_id: p for d, p in zip(docs_b, preds_b, strict=True)}
    common = [(d, p, pb[d.doc_id]) for d, p in zip(docs_a, preds_a, strict=True) if d.doc_id in pb]
    if not common:
        raise UserError("the two runs have no scored document in common")
    docs = [c[0] for c in common]
    arr_a = np.empty(len(common), dtype=object)
    arr_a[:] = [c[1] for c in common]
    arr_b = np.empty(len(common), dtype=object)
    arr_b[:] = [c[2] for c in common]
    out: dict[str, Any] = {
        "task": task.name,
        "a": str(path_a),
        "b": str(path_b),
        "test": test,
        "n_common": len(common),
        "metrics": {},
    }
    for i, mc in enumerate(task.metrics):
        if mc.name in STATUS_METRICS:
            continue
        metric = get_metric(mc.name)
        state = metric.prepare(docs, **mc.args)
        fn = paired_bootstrap if test == "bootstrap" else paired_permutation
        res = fn(metric, state, arr_a, arr_b, n, seed + i)
        res["higher_is_better"] = metric.higher_is_better
        res.update(winner(res["diff"], res["p_value"], metric.higher_is_better))
        out["metrics"][mc.name] = res
    return out
