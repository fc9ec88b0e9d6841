"""The direct HTTP client's prices: a snapshot of litellm's model table shipped with debench
(``debench/models/openai_prices.json``), checked against litellm's own cost functions; a model or
a table that is not there gives ``cost: null``, never a failure or a guessed price."""

from __future__ import annotations

import json
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from debench.models import price_table
from debench.models.base import Usage
from debench.models.litellm_model import LiteLLMModel
from debench.models.price_table import (
    lookup,
    price_of,
    snapshot,
    snapshot_from,
    snapshot_json,
)


@pytest.fixture
def fresh_tables() -> Iterator[None]:
    snapshot.cache_clear()
    lookup.cache_clear()
    yield
    snapshot.cache_clear()
    lookup.cache_clear()


@pytest.mark.parametrize("model", ["gpt-4o-mini", "gpt-4o", "gpt-4.1-nano"])
def test_a_row_prices_as_litellm_does(model: str) -> None:
    """A row of the installed litellm's table, as the snapshot keeps it, gives the figures of
    litellm's own ``cost_per_token`` (regular and cached prompt tokens) and ``get_model_info``."""
    import litellm

    price = price_of(litellm.model_cost[model])
    assert price is not None and lookup(f"openai/{model}") is not None
    for usage in (
        Usage(prompt_tokens=1000, completion_tokens=50),
        Usage(prompt_tokens=1000, completion_tokens=50, cached_prompt_tokens=600),
    ):
        prompt, completion = litellm.cost_per_token(
            model=model, prompt_tokens=1000, completion_tokens=50, cache_read_input_tokens=usage.cached_prompt_tokens
        )
        assert price.cost(usage) == pytest.approx(prompt + completion, rel=1e-12)
    info = litellm.get_model_info(model)
    assert price.context_window == (info["max_input_tokens"] or info["max_tokens"])


def test_the_snapshot_is_the_installed_litellms_table_when_it_names_that_version() -> None:
    """``scripts/refresh_prices.py`` wrote the committed file from the litellm it names; with that
    litellm installed, a refresh changes nothing, so every shipped figure is litellm's. (With
    another litellm, prices may have moved since: the file is as fresh as its ``source`` says.)"""
    import litellm

    table = snapshot()
    assert table is not None and len(table.rows) > 50
    version = metadata.version("litellm")
    if not table.source.startswith(f"litellm {version} "):
        pytest.skip(f"the snapshot came from another litellm ({table.source}); {version} is installed")
    assert snapshot_json(snapshot_from(litellm.model_cost, table.source)) == price_table.SNAPSHOT.read_text(
        encoding="utf-8"
    )


def test_the_snapshot_is_what_the_script_writes() -> None:
    """Whatever litellm is installed: the committed file is the script's own output for the rows it
    holds (no hand edit, every row a chat model of OpenAI's that prices), and its source names a
    litellm version."""
    table = snapshot()
    assert table is not None and len(table.rows) > 50
    rows = {
        name: {**price.model_dump(exclude_none=True), "litellm_provider": "openai", "mode": "chat"}
        for name, price in table.rows.items()
    }
    assert snapshot_json(snapshot_from(rows, table.source)) == price_table.SNAPSHOT.read_text(encoding="utf-8")
    assert table.source.startswith("litellm ") and "OpenAI chat models" in table.source


def test_only_openai_chat_models_are_kept() -> None:
    table = {
        "gpt-x": {
            "litellm_provider": "openai",
            "mode": "chat",
            "input_cost_per_token": 1e-6,
            "output_cost_per_token": 2e-6,
            "supports_vision": True,
        },
        "gpt-image": {"litellm_provider": "openai", "mode": "image_generation", "output_cost_per_image": 0.04},
        "claude-x": {
            "litellm_provider": "anthropic",
            "mode": "chat",
            "input_cost_per_token": 3e-6,
            "output_cost_per_token": 1.5e-5,
        },
        "sample_spec": "not a row",
    }
    made = snapshot_from(table, "test")
    assert list(made.rows) == ["gpt-x"]
    assert json.loads(snapshot_json(made))["rows"] == {
        "gpt-x": {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6}
    }


@pytest.mark.parametrize("model", ["openai/stub", "openai/claude-3-5-sonnet-20240620", "anthropic/gpt-4o"])
def test_a_model_not_in_the_snapshot_has_no_price(model: str) -> None:
    assert lookup(model) is None


@pytest.mark.parametrize(
    "content", [None, b"{not json", b'{"source": "x", "rows": {"gpt-4o": {"input_cost_per_token": "free"}}}']
)
def test_a_missing_or_broken_snapshot_gives_null_costs(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fresh_tables: None,
    caplog: pytest.LogCaptureFixture,
    content: bytes | None,
) -> None:
    from debench.models.openai_http import OpenAIHTTPModel

    path = tmp_path / "openai_prices.json"
    if content is not None:
        path.write_bytes(content)
    monkeypatch.setattr(price_table, "SNAPSHOT", path)
    assert lookup("openai/gpt-4o") is None
    model = OpenAIHTTPModel("openai/gpt-4o", api_base="http://127.0.0.1:9/v1")
    assert model.context_window() is None and model.batch_cost(Usage(prompt_tokens=10, completion_tokens=1)) is None
    assert "no price table" in caplog.text


def test_the_litellm_client_prices_batches_from_litellms_table() -> None:
    import litellm

    usage = Usage(prompt_tokens=1000, completion_tokens=100)
    info = litellm.get_model_info("gpt-4o-mini")
    expected = 1000 * info["input_cost_per_token_batches"] + 100 * info["output_cost_per_token_batches"]
    assert LiteLLMModel("openai/gpt-4o-mini").batch_cost(usage) == pytest.approx(expected)
    assert LiteLLMModel("openai/not-a-model-anyone-prices").batch_cost(usage) is None
