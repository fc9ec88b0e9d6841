"""The embedded model answers the same whatever came before (issue 29): llama.cpp's prompt cache
made a greedy answer depend on the previous request (docs/leaderboard.md); every request now
sends ``cache_prompt: false``, so the leaderboard's own run of the embedded model is reproducible
in any order. ``cache_prompt=true`` (a model argument) turns the cache back on for chains that
share long prefixes, and joins the identity, so such runs are never mistaken for the default's."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from conftest import DATA_DIR, real_data_dir

from debench.data.loading import load_task_data
from debench.leaderboard.spot_check import model_from_identity
from debench.models.base import Request
from debench.models.factory import make_model
from debench.models.local import LocalModel
from debench.runner import RunSettings, run_samples
from debench.task_lookup import load_task


def test_llama_cpp_requests_go_without_the_prompt_cache() -> None:
    task, _ = load_task("ibm_speech_likert")
    request = Request(messages=[{"role": "user", "content": "x"}], generation=task.generation)
    assert LocalModel("smollm2")._params(request)["extra_body"]["cache_prompt"] is False
    assert "cache_prompt" not in LocalModel("smollm2").identity()


@pytest.mark.parametrize("spec", ["local/smollm2@cache_prompt=true", "local/smollm2@cache_prompt=true;temperature=0.5"])
def test_cache_prompt_is_a_model_argument_in_the_identity(spec: str) -> None:
    task, _ = load_task("ibm_speech_likert")
    request = Request(messages=[{"role": "user", "content": "x"}], generation=task.generation)
    model = make_model(spec)
    assert model._params(request)["extra_body"]["cache_prompt"] is True
    ident = model.identity()
    assert ident["cache_prompt"] is True and ident != make_model("local/smollm2").identity()
    rebuilt = model_from_identity(ident, None)  # the leaderboard rebuilds it as it was run
    assert rebuilt.identity() == ident and rebuilt._params(request)["extra_body"]["cache_prompt"] is True
    assert make_model("local/smollm2@cache_prompt=false").identity() == make_model("local/smollm2").identity()


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
