"""Scoring cases on the real data, frozen so that a faster scoring keeps the same answers.

Each case is a task (possibly with altered metric args or scoring mode), its documents and one
judge's sample records. ``answers(data_dir)`` scores every case with ``debench.scoring.scores.score``
(default 1,000 bootstrap draws) plus a few paired comparisons, and returns plain JSON.

``python tests/scoring_cases.py [--data-dir DIR]`` rewrites ``tests/frozen/scoring_answers.json``.
It was first run on the implementation *before* the scoring was made fast (commit history of
that file); ``tests/test_metrics_frozen_answers.py`` keeps the current code equal to it to 1e-12.
Do not regenerate it to make that test pass: a change of answers is a change of behaviour. It was
regenerated once on purpose (issue 42), when each metric's bootstrap came to be seeded by its name
instead of its place in the task's list: every value, n and paired test stayed equal to 1e-12 and
only the CIs of ``scores`` changed; the keys the file had not held before (the alt-test's, the
notes) were left out again, as ``NEW_FIELDS`` in the test expects.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from debench.data.base import Doc
from debench.data.loading import load_local, load_sample
from debench.data.samples import SampleRecord
from debench.metrics.base import get_metric
from debench.metrics.names import STATUS_METRICS
from debench.metrics.paired import paired_bootstrap, paired_permutation
from debench.models.base import Request
from debench.models.baselines import make_baseline
from debench.run.task_lookup import load_task
from debench.scoring.scores import score, scored_pairs
from debench.task.config import MetricConfig, TaskConfig

REPO_ROOT = Path(__file__).resolve().parent.parent
FROZEN = REPO_ROOT / "tests" / "frozen" / "scoring_answers.json"
Case = tuple[str, TaskConfig, list[Doc], dict[str, SampleRecord]]


def baseline_records(task: TaskConfig, docs: list[Doc], spec: str, seed: int = 0) -> dict[str, SampleRecord]:
    model = make_baseline(spec, seed)
    model.prepare(docs, task)

    async def answer(doc: Doc) -> Any:
        # model_construct, as debench's own calls do: validating again re-parses the task's templates
        req = Request.model_construct(messages=[], generation=task.generation, doc=doc, task=task)
        return (await model.generate(req)).prediction

    async def run_all() -> list[Any]:
        return [await answer(d) for d in docs]

    preds = asyncio.run(run_all())
    return {
        d.doc_id: SampleRecord(doc_id=d.doc_id, status="ok", prediction=p) for d, p in zip(docs, preds, strict=True)
    }


def noisy_records(task: TaskConfig, docs: list[Doc], seed: int) -> dict[str, SampleRecord]:
    """A judge near the gold with noise, ~8% parse failures, ~3% errors, ~2% not completed and
    a few documents never answered; choices drawn from the task's parser where gold is not usable."""
    rng = np.random.default_rng(seed)
    base = baseline_records(task, docs, "random", seed)
    out: dict[str, SampleRecord] = {}
    for d in docs:
        u = rng.random()
        if u < 0.08:
            out[d.doc_id] = SampleRecord(doc_id=d.doc_id, status="parse_failure", response="no idea")
        elif u < 0.11:
            out[d.doc_id] = SampleRecord(doc_id=d.doc_id, status="error", error="boom")
        elif u < 0.13:
            out[d.doc_id] = SampleRecord(doc_id=d.doc_id, status="not_completed")
        elif u < 0.15:
            continue  # never answered
        else:
            pred = base[d.doc_id].prediction
            if task.dataset.adapter == "ibm_speeches" and rng.random() < 0.7:
                pred = int(min(5, max(1, round(float(d.target) + rng.normal(0, 0.8)))))
            elif d.label is not None and rng.random() < 0.5 and task.parser.type == "str":
                pred = d.label
            out[d.doc_id] = SampleRecord(doc_id=d.doc_id, status="ok", prediction=pred)
    return out


def _variant(task: TaskConfig, **update: Any) -> TaskConfig:
    return task.model_copy(update=update)


def _ibm_cases(data_dir: Path) -> Iterator[Case]:
    task, _ = load_task("ibm_speech_likert")
    docs = load_local(task, data_dir).docs
    for seed in (0, 1, 2):
        yield f"ibm/random{seed}", task, docs, baseline_records(task, docs, "random", seed)
    yield "ibm/length", task, docs, baseline_records(task, docs, "length")
    yield "ibm/majority", task, docs, baseline_records(task, docs, "majority")
    yield "ibm/constant3", task, docs, baseline_records(task, docs, "constant:3")
    noisy = noisy_records(task, docs, 5)
    yield "ibm/noisy", task, docs, noisy
    value_mode = _variant(
        task, scoring=task.scoring.model_copy(update={"parse_failure": "value", "parse_failure_value": -1})
    )
    yield "ibm/noisy_value_mode", value_mode, docs, noisy
    extra = _variant(
        task,
        metrics=[
            MetricConfig(name="kappa_loo", args={"weights": "linear", "min_shared": 30}),
            MetricConfig(name="kappa_human", args={"weights": "linear", "min_shared": 30}),
            MetricConfig(name="krippendorff_alpha_human"),
            MetricConfig(name="completion_rate"),
        ],
    )
    yield "ibm/noisy_linear_min30", extra, docs, noisy
    small = docs[:60]
    yield "ibm/first60_random0", task, small, baseline_records(task, small, "random", 0)
    tiny = docs[:1]
    yield "ibm/one_doc", task, tiny, baseline_records(task, tiny, "random", 0)


def _verdict_cases(task_name: str, docs: list[Doc], task: TaskConfig, judges: list[str]) -> Iterator[Case]:
    for spec in judges:
        name, _, seed = spec.partition("#")
        yield f"{task_name}/{spec}", task, docs, baseline_records(task, docs, name, int(seed or 0))
    yield f"{task_name}/noisy", task, docs, noisy_records(task, docs, 9)


def _debateart_cases(data_dir: Path) -> Iterator[Case]:
    for task_name in ("debateart_winner", "debateart_argument", "debateart_source"):
        task, _ = load_task(task_name)
        docs = load_local(task, data_dir).docs
        yield from _verdict_cases(
            task_name, docs, task, ["random#0", "random#1", "majority", "first", "last", "longest"]
        )


def _bp_cases(data_dir: Path) -> Iterator[Case]:
    task, _ = load_task("bp_top_team")
    docs = load_local(task, data_dir).docs
    yield from _verdict_cases(
        "bp_top_team", docs, task, ["random#0", "random#1", "majority", "first", "last", "longest"]
    )


def _debatebench_cases() -> Iterator[Case]:
    # No DebateBench labels offline: the sample shipped with debench (same formats).
    for task_name, judges in (
        ("debatebench_verdict", ["random#0", "random#1", "first", "last"]),
        ("debatebench_speaker_score", ["random#0", "random#1", "constant:75"]),
        ("debatebench_speaker_rank", ["random#0", "random#1"]),
    ):
        task, _ = load_task(task_name)
        docs = load_sample(task).docs
        yield from _verdict_cases(task_name, docs, task, judges)


def cases(data_dir: Path) -> Iterator[Case]:
    yield from _ibm_cases(data_dir)
    yield from _debateart_cases(data_dir)
    yield from _bp_cases(data_dir)
    yield from _debatebench_cases()


PAIRED = {
    # (case a, case b): paired comparison of every non-status metric, few draws (kept cheap).
    ("ibm/random0", "ibm/noisy"): 200,
    ("ibm/length", "ibm/random1"): 200,
    ("debateart_winner/random#0", "debateart_winner/noisy"): 500,
    ("bp_top_team/last", "bp_top_team/noisy"): 500,
}


def _paired(a: Case, b: Case, n: int) -> dict[str, Any]:
    _, task, docs, rec_a = a
    docs_a, preds_a = scored_pairs(task, docs, rec_a)
    docs_b, preds_b = scored_pairs(task, docs, b[3])
    pb = {d.doc_id: p for d, p in zip(docs_b, preds_b, strict=True)}
    common = [(d, p, pb[d.doc_id]) for d, p in zip(docs_a, preds_a, strict=True) if d.doc_id in pb]
    arr_a = np.empty(len(common), dtype=object)
    arr_a[:] = [c[1] for c in common]
    arr_b = np.empty(len(common), dtype=object)
    arr_b[:] = [c[2] for c in common]
    out: dict[str, Any] = {}
    for i, mc in enumerate(task.metrics):
        if mc.name in STATUS_METRICS:
            continue
        metric = get_metric(mc.name)
        state = metric.prepare([c[0] for c in common], **mc.args)
        out[mc.name] = {
            "bootstrap": paired_bootstrap(metric, state, arr_a, arr_b, n, 7 + i),
            "permutation": paired_permutation(metric, state, arr_a, arr_b, n // 2, 7 + i),
        }
    return out


def answers(data_dir: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"scores": {}, "paired": {}}
    by_name: dict[str, Case] = {}
    for case in cases(data_dir):
        name, task, docs, records = case
        by_name[name] = case
        out["scores"][name] = json.loads(score(task, docs, records).model_dump_json())
    for (a, b), n in PAIRED.items():
        out["paired"][f"{a} vs {b}"] = json.loads(json.dumps(_paired(by_name[a], by_name[b], n), default=float))
    return out


def write_frozen(
    argv: list[str] | None, description: str, frozen: Path, compute: Callable[[Path], dict[str, Any]], what: str
) -> int:
    """The command line of a frozen-answers writer: ``--data-dir``, then ``frozen`` written from
    ``compute(data_dir)`` (its ``scores`` and ``paired`` counted as ``what`` cases)."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument(
        "--data-dir",
        default=os.environ.get("DEBENCH_DATA_DIR", str(Path(__file__).resolve().parents[2] / "shared" / "datasets")),
    )
    args = ap.parse_args(argv)
    data = compute(Path(args.data_dir))
    frozen.parent.mkdir(parents=True, exist_ok=True)
    frozen.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {frozen} ({len(data['scores'])} {what}, {len(data['paired'])} paired)")
    return 0


def main(argv: list[str] | None = None) -> int:
    return write_frozen(argv, __doc__.splitlines()[0], FROZEN, answers, "scored cases")


if __name__ == "__main__":
    sys.exit(main())
