"""The alternative annotator test's answers on the real IBM speeches, frozen so that a faster
alt-test keeps the same numbers to the last digit.

Each case is a task (``ibm_speech_likert`` or ``_cot``, possibly with other alt-test args), its
speeches and one judge's sample records: ``scoring_cases``'s IBM cases (three random judges, the
length, majority and constant baselines, a noisy judge with parse failures, errors and samples not
completed, the parse-failure value mode, the first 60 speeches) plus an oracle, other epsilon /
alpha / min_docs, the first 150 speeches with ``min_docs`` 10, and the chain-of-thought task.
``answers(data_dir)`` gives, per case (``cases``), the alt-test's two metrics exactly as ``score``
computes them (each with its own bootstrap seed, ``metric_seed``, over the documents in the order
of their ids, with 1,000 draws) and the ``alt_test`` report; and the paired bootstrap and
permutation tests of the two metrics.

``python tests/alt_test_cases.py [--data-dir DIR]`` rewrites ``tests/frozen/alt_test_answers.json``.
It was first run on the implementation before the alt-test was vectorised (issue 46: scipy's
``ttest_1samp`` per annotator, at commit 0f38a01); ``tests/test_alt_test.py`` keeps the current code
equal to it, every float to the last digit. Do not regenerate it to make that test pass: a change
of answers is a change of behaviour. (Rewritten once on purpose by issue 42, when each metric's CI
came to be seeded by its name: every value, the report and the paired tests the same; only CIs.)
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
from scoring_cases import Case, _ibm_cases, baseline_records, noisy_records, write_frozen

from debench.data.base import Doc
from debench.data.loading import load_local
from debench.data.samples import SampleRecord
from debench.metrics.alt_test import alt_test_report
from debench.metrics.base import get_metric
from debench.metrics.bootstrap import metric_seed, point_and_ci
from debench.metrics.names import ALT_TEST_METRICS
from debench.metrics.paired import paired_bootstrap, paired_permutation
from debench.run.task_lookup import load_task
from debench.scoring.scores import MetricValue, alt_test_args, by_id, scored_pairs
from debench.task.config import TaskConfig

REPO_ROOT = Path(__file__).resolve().parent.parent
FROZEN = REPO_ROOT / "tests" / "frozen" / "alt_test_answers.json"
PAIRED_DRAWS = 300
PERMUTATIONS = 40
"""Each permutation runs the test twice on all the speeches: few of them keep the case cheap."""


def oracle(docs: list[Doc]) -> list[object]:
    """The rounded mean of each speech's human ratings (half up)."""
    return [math.floor(sum(d.meta["ratings"]) / len(d.meta["ratings"]) + 0.5) for d in docs]


def records_of(docs: list[Doc], preds: list[object]) -> dict[str, SampleRecord]:
    return {
        d.doc_id: SampleRecord(doc_id=d.doc_id, status="ok", prediction=p) for d, p in zip(docs, preds, strict=True)
    }


def with_alt_args(task: TaskConfig, **args: Any) -> TaskConfig:
    """The task with these args on both of its alt-test metrics."""
    metrics = [mc.model_copy(update={"args": args}) if mc.name in ALT_TEST_METRICS else mc for mc in task.metrics]
    return task.model_copy(update={"metrics": metrics})


def cases(data_dir: Path) -> Iterator[Case]:
    for name, task, docs, records in _ibm_cases(data_dir):
        if any(mc.name in ALT_TEST_METRICS for mc in task.metrics):
            yield name, task, docs, records
    task, _ = load_task("ibm_speech_likert")
    docs = load_local(task, data_dir).docs
    yield "ibm/oracle", task, docs, records_of(docs, oracle(docs))
    noisy = noisy_records(task, docs, 5)
    yield "ibm/noisy_eps0.2_alpha0.1_min50", with_alt_args(task, epsilon=0.2, alpha=0.1, min_docs=50), docs, noisy
    yield "ibm/length_eps0", with_alt_args(task, epsilon=0.0), docs, baseline_records(task, docs, "length")
    first = docs[:150]
    yield "ibm/first150_min10", with_alt_args(task, min_docs=10), first, noisy_records(task, first, 3)
    cot, _ = load_task("ibm_speech_likert_cot")
    yield "ibm_cot/noisy", cot, docs, noisy_records(cot, docs, 8)


def alt_test_answers(task: TaskConfig, docs: list[Doc], records: dict[str, SampleRecord]) -> dict[str, Any]:
    """The alt-test's metrics and report as ``score`` gives them for these records (same seeds)."""
    use_docs, preds = by_id(*scored_pairs(task, docs, records))
    arr = np.empty(len(preds), dtype=object)
    arr[:] = preds
    out: dict[str, Any] = {"metrics": {}}
    for mc in task.metrics:
        if mc.name in ALT_TEST_METRICS:
            metric = get_metric(mc.name)
            est = point_and_ci(
                metric,
                metric.prepare(use_docs, **mc.args),
                arr,
                task.scoring.n_bootstrap,
                metric_seed(task.scoring.bootstrap_seed, mc.name),
            )
            value = MetricValue(value=est.value, ci95=est.ci95, n=len(use_docs), note=est.note)
            out["metrics"][mc.name] = json.loads(value.model_dump_json())
    out["alt_test"] = alt_test_report(use_docs, preds, **(alt_test_args(task) or {}))
    return out


def _paired(
    task: TaskConfig, docs: list[Doc], a: dict[str, SampleRecord], b: dict[str, SampleRecord]
) -> dict[str, Any]:
    both = [d for d in docs if a[d.doc_id].status == "ok" == b[d.doc_id].status]
    preds_a = np.empty(len(both), dtype=object)
    preds_a[:] = [a[d.doc_id].prediction for d in both]
    preds_b = np.empty(len(both), dtype=object)
    preds_b[:] = [b[d.doc_id].prediction for d in both]
    out: dict[str, Any] = {}
    for i, mc in enumerate(task.metrics):
        if mc.name in ALT_TEST_METRICS:
            metric = get_metric(mc.name)
            state = metric.prepare(both, **mc.args)
            out[mc.name] = {
                "bootstrap": paired_bootstrap(metric, state, preds_a, preds_b, PAIRED_DRAWS, 7 + i),
                "permutation": paired_permutation(metric, state, preds_a, preds_b, PERMUTATIONS, 7 + i),
            }
    return out


def paired_answers(by_name: dict[str, Case]) -> dict[str, Any]:
    """The paired tests of the random judge against the oracle and the length baseline."""
    _, task, docs, random0 = by_name["ibm/random0"]
    out = {
        f"ibm/random0 vs {other}": _paired(task, docs, random0, by_name[other][3])
        for other in ("ibm/oracle", "ibm/length")
    }
    result: dict[str, Any] = json.loads(json.dumps(out, default=float))
    return result


def answers(data_dir: Path) -> dict[str, Any]:
    by_name = {case[0]: case for case in cases(data_dir)}
    scores = {name: alt_test_answers(task, docs, records) for name, task, docs, records in by_name.values()}
    result: dict[str, Any] = json.loads(json.dumps({"scores": scores, "paired": paired_answers(by_name)}))
    return result


def main(argv: list[str] | None = None) -> int:
    return write_frozen(argv, __doc__.splitlines()[0], FROZEN, answers, "cases")


if __name__ == "__main__":
    sys.exit(main())
