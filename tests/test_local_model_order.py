"""The embedded model answers the same whatever came before (issue 29): llama.cpp's prompt cache
made a greedy answer depend on the previous request (docs/leaderboard.md); every request now
sends ``cache_prompt: false``, so the leaderboard's own run of the embedded model is reproducible
in any order."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from conftest import DATA_DIR, real_data_dir

from debench.data.loading import load_task_data
from debench.models.base import Request
from debench.models.local import LocalModel
from debench.runner import RunSettings, run_samples
from debench.task_lookup import load_task


def test_llama_cpp_requests_go_without_the_prompt_cache() -> None:
    task, _ = load_task("ibm_speech_likert")
    request = Request(messages=[{"role": "user", "content": "x"}], generation=task.generation)
    assert LocalModel("smollm2")._params(request)["extra_body"]["cache_prompt"] is False


@pytest.mark.slow
@pytest.mark.real_data("four IBM speeches judged by the embedded model in both orders (about 4 minutes on 2 loaded cores)")
def test_the_embedded_model_gives_the_same_answers_in_either_order(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    task, _ = load_task("ibm_speech_likert")
    docs = load_task_data(task, "local", str(DATA_DIR)).docs[50:54]
    got = {}
    for name, order in (("forward", docs), ("reverse", docs[::-1])):
        records, _ = asyncio.run(run_samples(task, order, LocalModel("smollm2"), tmp_path / f"{name}.jsonl", RunSettings(concurrency=1, use_cache=False, progress=False)))
        got[name] = {r.doc_id: (r.status, r.prediction, r.response) for r in records}
    assert got["forward"] == got["reverse"] and len(got["forward"]) == 4
