"""Every metric's value and CI, and every report (``debench.scoring.scores.score``), are the same
whatever the order of the documents and wherever the metric stands in the task's list: on the real
data, for judges near the gold with parse failures, errors and documents never answered
(``scoring_cases``)."""

from __future__ import annotations

import functools

from conftest import DATA_DIR
from hypothesis import given, settings
from hypothesis import strategies as st
from scoring_cases import noisy_records

from debench.data.base import Doc
from debench.data.loading import load_local, load_sample
from debench.run.task_lookup import load_task
from debench.scoring.scores import score
from debench.task.config import TaskConfig

TASKS = ("ibm_speech_likert", "debateart_winner", "bp_top_team", "debatebench_verdict", "debatebench_speaker_score")
"""Every family of metrics: speech ratings, kappas and the alt-test; classification; DebateBench's."""
N_DOCS = 80


@functools.cache
def _task(name: str) -> tuple[TaskConfig, list[Doc]]:
    task, _ = load_task(name)
    docs = load_sample(task).docs if name.startswith("debatebench") else load_local(task, DATA_DIR).docs
    return task, docs[:N_DOCS]


@settings(max_examples=10)
@given(name=st.sampled_from(TASKS), judge=st.integers(0, 50), data=st.data())
def test_values_and_cis_do_not_depend_on_the_order_of_documents_or_metrics(
    name: str, judge: int, data: st.DataObject
) -> None:
    task, docs = _task(name)
    records = noisy_records(task, docs, judge)
    shuffled_docs = data.draw(st.permutations(docs))
    moved = task.model_copy(update={"metrics": data.draw(st.permutations(task.metrics))})
    first = score(task, docs, records, n_bootstrap=30)
    again = score(moved, shuffled_docs, records, n_bootstrap=30)
    assert again.metrics == first.metrics and again.reports == first.reports
