"""Cached prompt tokens: the provider's ``prompt_tokens_details.cached_tokens`` (and the other
providers' names for it) recorded per sample and in the results, and priced at the cached rate.
The stub's simulated prompt cache plays the provider: DebateArt's tasks share the debate first, so
the second task on a debate finds its prompt mostly cached."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from conftest import DATA_DIR, real_data_dir

from debench.data.samples import read_records
from debench.models.base import Usage
from debench.models.factory import make_model
from debench.models.price_table import lookup
from debench.run.pipeline import EvalOptions, evaluate_task
from debench.run.task_lookup import load_task
from debench.testing.stub_server import StubServer, fixed_responder

PRICED = "openai/gpt-4o-mini"
"""A model in litellm's price table, served here by the stub (it answers any model name)."""


@pytest.mark.parametrize(
    ("usage", "cached"),
    [
        (
            {"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 64}},
            64,
        ),  # OpenAI, vLLM
        (
            {"prompt_tokens": 100, "completion_tokens": 5, "cache_read_input_tokens": 80},
            80,
        ),  # Anthropic (through litellm)
        ({"prompt_tokens": 100, "completion_tokens": 5, "prompt_cache_hit_tokens": 32}, 32),  # DeepSeek
        ({"prompt_tokens": 100, "completion_tokens": 5, "prompt_tokens_details": None}, 0),
        ({"prompt_tokens": 100, "completion_tokens": 5}, 0),
    ],
)
def test_cached_tokens_are_read_from_every_provider_format(usage: dict, cached: int) -> None:
    u = Usage.of(usage)
    assert (u.prompt_tokens, u.completion_tokens, u.cached_prompt_tokens) == (100, 5, cached)


def test_cached_and_batch_prices() -> None:
    price = lookup(PRICED)
    assert price is not None and price.cache_read_input_token_cost is not None
    u = Usage(prompt_tokens=1000, completion_tokens=10, cached_prompt_tokens=600)
    plain = (
        400 * price.input_cost_per_token + 600 * price.cache_read_input_token_cost + 10 * price.output_cost_per_token
    )
    assert price.cost(u) == pytest.approx(plain)
    assert price.cost(u, batch=True) == pytest.approx(plain * 0.5)  # the table's batch prices are half the regular ones
    assert price.cost(Usage(prompt_tokens=1000, completion_tokens=10)) > price.cost(u)


def run(srv: StubServer, task_name: str, out: Path, limit: int) -> object:
    task, path = load_task(task_name)
    model = make_model(PRICED, api_bases=[srv.base_url])
    opts = EvalOptions(
        output_dir=out,
        limit=limit,
        concurrency=4,
        data_source="local",
        data_dir=str(DATA_DIR),
        progress=False,
        n_bootstrap=20,
        use_cache=False,
    )

    async def go():
        try:
            return await evaluate_task(task, path, model, opts)
        finally:
            await model.aclose()

    return asyncio.run(go())


@pytest.mark.real_data(
    "the share of a DebateArt prompt that is the debate is a fact of the real debates (the sample's are short)"
)
def test_debateart_tasks_share_the_debate_and_pay_the_cached_rate(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    price = lookup(PRICED)
    assert price is not None
    with StubServer(responder=fixed_responder("Winner: pro"), prefix_cache=True) as srv:
        first = run(srv, "debateart_winner", tmp_path, limit=3)
        after_first = srv.stats
        second = run(srv, "debateart_argument", tmp_path, limit=3)
        stats = srv.stats
    assert (
        after_first.cached_prompt_tokens < 0.1 * after_first.prompt_tokens
    )  # three different debates: little to reuse
    firsts, seconds = read_records(first.samples_path), read_records(second.samples_path)
    for a, b in zip(firsts, seconds, strict=True):
        assert a.doc_id == b.doc_id
        # the second task repeats the system message and the debate: all but the question is cached
        assert b.cached_prompt_tokens > 0.9 * b.prompt_tokens
        fresh = b.prompt_tokens - b.cached_prompt_tokens
        expected = (
            fresh * price.input_cost_per_token
            + b.cached_prompt_tokens * price.cache_read_input_token_cost
            + b.completion_tokens * price.output_cost_per_token
        )
        assert b.cost_usd == pytest.approx(expected)
    results = second.results
    assert (
        results.usage.cached_prompt_tokens
        == sum(r.cached_prompt_tokens for r in seconds)
        == stats.cached_prompt_tokens - after_first.cached_prompt_tokens
    )
    assert results.usage.cost_usd == pytest.approx(sum(r.cost_usd for r in seconds))
