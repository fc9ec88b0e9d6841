"""``debench compare``: is run A better than run B on the same documents?"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from debench.core.errors import UserError
from debench.data.base import Doc
from debench.data.loading import load_task_data
from debench.data.samples import SampleRecord, read_records
from debench.metrics.base import get_metric
from debench.metrics.bootstrap import metric_seed
from debench.metrics.names import STATUS_METRICS
from debench.metrics.paired import paired_bootstrap, paired_permutation
from debench.run.task_lookup import TaskIndex, load_task
from debench.scoring.predictions import load_predictions
from debench.scoring.results import Results, load_results, samples_log_path
from debench.scoring.scores import scored_pairs
from debench.task.config import TaskConfig

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
    path_a: Path,
    path_b: Path,
    *,
    test: str = "bootstrap",
    n: int = 10000,
    seed: int = 0,
    data_dir: str | None = None,
    include_paths: Sequence[str | Path] = (),
) -> dict[str, Any]:
    """Runs A and B of one task, metric by metric; ``include_paths`` (folders of task files or task
    files) make a user's task known by its name, as for ``eval``."""
    ra, rb = load_results(path_a), load_results(path_b)
    _check_comparable(ra, rb, path_b)
    task = TaskIndex(include_paths).lookup(ra.task.name)[0][0].task if include_paths else load_task(ra.task.name)[0]
    dataset = load_task_data(task, "local" if data_dir else "auto", data_dir)
    if dataset.content_hash != ra.dataset.content_hash:
        raise UserError(
            "the data found here differs from the runs' data set", path=str(path_a), field="dataset.content_hash"
        )
    records = [_run_records(path, r, task, dataset.docs) for path, r in ((path_a, ra), (path_b, rb))]
    docs, arr_a, arr_b = _common(task, dataset.docs, records[0], records[1])
    out: dict[str, Any] = {
        "task": task.name,
        "a": str(path_a),
        "b": str(path_b),
        "test": test,
        "n_common": len(docs),
        "metrics": {},
    }
    paired = paired_bootstrap if test == "bootstrap" else paired_permutation
    for mc in task.metrics:
        if mc.name in STATUS_METRICS:
            continue
        metric = get_metric(mc.name)
        state = metric.prepare(docs, **mc.args)
        res = paired(metric, state, arr_a, arr_b, n, metric_seed(seed, mc.name))
        res["higher_is_better"] = metric.higher_is_better
        res.update(winner(res["diff"], res["p_value"], metric.higher_is_better))
        out["metrics"][mc.name] = res
    return out


def _check_comparable(ra: Results, rb: Results, path_b: Path) -> None:
    """Two runs of the same task version on the same data."""
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


def _run_records(path: Path, results: Results, task: TaskConfig, docs: list[Doc]) -> dict[str, SampleRecord]:
    """A run's records, read from the samples log beside its results file."""
    samples = samples_log_path(results, path)
    ids = {rec.doc_id for rec in read_records(samples)}
    return {rec.doc_id: rec for rec in load_predictions(samples, task, [d for d in docs if d.doc_id in ids])}


def _common(
    task: TaskConfig, docs: list[Doc], records_a: dict[str, SampleRecord], records_b: dict[str, SampleRecord]
) -> tuple[list[Doc], np.ndarray, np.ndarray]:
    """The documents both runs scored, in the data set's order, with each run's predictions."""
    docs_a, preds_a = scored_pairs(task, docs, records_a)
    docs_b, preds_b = scored_pairs(task, docs, records_b)
    pb = {d.doc_id: p for d, p in zip(docs_b, preds_b, strict=True)}
    common = [(d, p, pb[d.doc_id]) for d, p in zip(docs_a, preds_a, strict=True) if d.doc_id in pb]
    if not common:
        raise UserError("the two runs have no scored document in common")
    return [c[0] for c in common], _objects([c[1] for c in common]), _objects([c[2] for c in common])


def _objects(values: list[Any]) -> np.ndarray:
    """``values`` as a numpy array of objects (predictions may be lists or mappings)."""
    arr = np.empty(len(values), dtype=object)
    arr[:] = values
    return arr
