"""The embedded model answers the same whatever came before (issue 29): llama.cpp's prompt cache
made a greedy answer depend on the previous request (docs/leaderboard.md); every request now
sends ``cache_prompt: false``, so the leaderboard's own run of the embedded model is reproducible
in any order (shown on real speeches in test_local_model.py, with the other tests that start the
model). ``cache_prompt=true`` (a model argument) turns the cache back on for chains that share long
prefixes, and joins the identity, so such runs are never mistaken for the default's."""

from __future__ import annotations

import pytest

from debench.leaderboard.rebuild import model_from_identity
from debench.models.base import Request
from debench.models.factory import make_model
from debench.models.local import LocalModel
from debench.run.task_lookup import load_task


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
