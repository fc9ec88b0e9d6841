"""Documents streamed through the runner: a large data set's text is read from its file as the run
goes (only text-free gold views stay for scoring), and the runner takes jobs from a generator as
workers free up, so what it holds does not grow with the number of documents."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import DATA_DIR, real_data_dir
from pydantic import BaseModel

from debench.core.record_log import RecordLog
from debench.data import loading
from debench.data.loading import StreamedDataset, load_task_data, run_documents
from debench.run.runner import CLAIM_BATCH, run_jobs
from debench.run.task_lookup import load_task


@pytest.mark.real_data("40 IBM speeches (the sample has 8)")
def test_a_streamed_data_set_keeps_only_gold_views(monkeypatch: pytest.MonkeyPatch) -> None:
    real_data_dir("ibm_debate_speeches")
    monkeypatch.setattr(loading, "STREAM_MIN_BYTES", 0)  # the 2.5 MB file streamed, as a larger one is
    task, _ = load_task("ibm_speech_likert")
    whole = load_task_data(task, "local", DATA_DIR)
    dataset, docs = run_documents(task, "local", DATA_DIR, limit=40)
    assert isinstance(dataset, StreamedDataset) and dataset.content_hash == whole.content_hash
    assert [d.doc_id for d in dataset.docs] == [d.doc_id for d in whole.docs]  # the same run order
    assert [d.doc_id for d in docs.gold] == [d.doc_id for d in whole.docs[:40]]  # --limit picks the same documents
    for gold, full in zip(docs.gold, whole.docs[:40], strict=True):
        assert gold.fields == {} and gold.speeches == []  # no text kept
        assert (gold.target, gold.label, gold.meta) == (full.target, full.label, full.meta)
    streamed = {d.doc_id: d for d in docs}  # the complete documents, read again from the file
    assert streamed == {d.doc_id: d for d in whole.docs[:40]}
    assert len({d.doc_id for d in docs}) == 40  # and again on every iteration


@pytest.mark.real_data("the 631 IBM speeches, 2.5 MB (the sample has 8)")
def test_a_streamable_data_set_below_the_threshold_is_read_once_whole() -> None:
    """The run takes the documents read at its start, text and all: the file is not read again."""
    real_data_dir("ibm_debate_speeches")
    task, _ = load_task("ibm_speech_likert")
    assert (DATA_DIR / "ibm_debate_speeches" / "data.csv").stat().st_size < loading.STREAM_MIN_BYTES
    dataset, docs = run_documents(task, "local", DATA_DIR, limit=40)
    assert not isinstance(dataset, StreamedDataset) and len(dataset.docs) == 631
    assert list(docs) == docs.gold == dataset.docs[:40] and docs.gold[0].fields["speech"]  # the same objects


def test_a_small_data_set_is_read_whole() -> None:
    real_data_dir("debatrix_panelbench")
    task, _ = load_task("debateart_winner")
    dataset, docs = run_documents(task, "local", DATA_DIR, limit=5)
    assert not isinstance(dataset, StreamedDataset)
    assert list(docs) == docs.gold and docs.gold[0].speeches


class Done(BaseModel):
    key: str
    status: str = "ok"


@dataclass
class CountingJob:
    key: str
    live: list[int]

    async def run(self) -> Done:
        await asyncio.sleep(0)
        self.live[0] -= 1
        return Done(key=self.key)

    def failure(self, status: str, error: str) -> Done:
        return Done(key=self.key, status=status)


def test_the_runner_takes_jobs_as_workers_free_up(tmp_path: Path) -> None:
    """5,000 jobs from a generator at concurrency 8: never more than a claim batch ahead."""
    live = [0]
    peak = [0]

    def jobs():
        for i in range(5000):
            live[0] += 1
            peak[0] = max(peak[0], live[0])
            yield CountingJob(f"job-{i}", live)

    log = RecordLog(tmp_path / "log.jsonl", Done, "key")
    asyncio.run(run_jobs(jobs(), log, concurrency=8, progress=False, total=5000))
    assert len(log.finished()) == 5000
    assert peak[0] <= 8 + CLAIM_BATCH
