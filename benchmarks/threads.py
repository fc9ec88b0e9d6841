"""Does llama.cpp's thread count change the embedded model's answers? The same real IBM speeches
judged by ``local/smollm2`` with ``n_threads=1`` and with the default (2), greedy, no cache, for the
direct and the chain-of-thought task; the figures are how many raw answers and scores agree
(docs/models.md, "Threads", gives the reason the default is fixed)."""

from __future__ import annotations

import sys
from pathlib import Path

from pydantic import BaseModel

from benchmarks.memory import ROOT
from benchmarks.proc import debench_env, run_measured
from debench.data.samples import read_records

TASKS = ("ibm_speech_likert", "ibm_speech_likert_cot")


class ThreadAgreement(BaseModel):
    task: str
    n_docs: int
    same_response: int
    same_prediction: int


def _answers(work: Path, data_dir: Path, task: str, n_docs: int, model_args: str) -> dict[str, tuple[object, object]]:
    out = work / f"threads_{task}_{model_args.replace('=', '')}"
    cmd = [
        sys.executable,
        "-m",
        "debench.cli",
        "eval",
        "--task",
        task,
        "--model",
        "local/smollm2",
        "--model-args",
        model_args,
        "--limit",
        str(n_docs),
        "--data-dir",
        str(data_dir),
        "--output-dir",
        str(out),
        "--no-progress",
        "--no-cache",
        "--bootstrap",
        "0",
    ]
    run_measured(cmd, env=debench_env(work / "threads_cache"), cwd=ROOT).check(f"local/smollm2@{model_args} on {task}")
    (samples,) = out.rglob("samples_*.jsonl")
    return {r.doc_id: (r.response, r.prediction) for r in read_records(samples)}


def measure_threads(work: Path, data_dir: Path, n_docs: int) -> list[ThreadAgreement]:
    figures = []
    for task in TASKS:
        one, two = (_answers(work, data_dir, task, n_docs, f"n_threads={n}") for n in (1, 2))
        if set(one) != set(two) or len(one) != n_docs:
            raise RuntimeError(
                f"{task}: the two runs answered different documents ({len(one)} and {len(two)} of {n_docs})"
            )
        figures.append(ThreadAgreement(task=task, n_docs=n_docs, same_response=sum(one[d][0] == two[d][0] for d in one),
                                       same_prediction=sum(one[d][1] == two[d][1] for d in one)))  # fmt: skip
    return figures
