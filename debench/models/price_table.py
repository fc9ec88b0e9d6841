"""Prices and context windows of OpenAI's chat models for the direct HTTP client, from a snapshot of
litellm's model table shipped with debench (``openai_prices.json``), read without importing litellm.

Importing litellm costs ~4 s and ~200 MB, which the direct client (``openai_http.py``) exists to
avoid; it only needs the rows of the models it can call, OpenAI's chat models. The snapshot is
taken from litellm's public ``litellm.model_cost`` by ``scripts/refresh_prices.py`` and names the
litellm version it came from. A model not in it gets ``cost: null`` (never a guessed price). The
litellm client prices with litellm's own table (``litellm.completion_cost``, ``get_model_info``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from debench.models.base import Usage


class ModelPrice(BaseModel):
    """The part of one table row the harness uses."""

    input_cost_per_token: float | None = None
    output_cost_per_token: float | None = None
    cache_read_input_token_cost: float | None = None
    """Per prompt token served from the provider's prompt cache (None: billed as any prompt token)."""
    input_cost_per_token_batches: float | None = None
    output_cost_per_token_batches: float | None = None
    max_input_tokens: int | None = None
    max_tokens: int | None = None

    @property
    def context_window(self) -> int | None:
        return self.max_input_tokens or self.max_tokens

    def cost(self, usage: Usage, *, batch: bool = False) -> float | None:
        """USD for one answer: cached prompt tokens at the cached rate; through a batch API, at the
        table's batch rates (the same discount applied to the cached rate)."""
        if self.input_cost_per_token is None or self.output_cost_per_token is None:
            return None
        cached = min(usage.cached_prompt_tokens, usage.prompt_tokens)
        cached_rate = (
            self.input_cost_per_token if self.cache_read_input_token_cost is None else self.cache_read_input_token_cost
        )
        prompt = (usage.prompt_tokens - cached) * self.input_cost_per_token + cached * cached_rate
        completion = usage.completion_tokens * self.output_cost_per_token
        if batch:
            prompt *= self.batch_ratio("input")
            completion *= self.batch_ratio("output")
        return prompt + completion

    def batch_ratio(self, side: str) -> float:
        """Batch price / regular price for ``input`` or ``output`` tokens (``BATCH_DISCOUNT`` off
        when the table has no batch price for the model)."""
        regular = getattr(self, f"{side}_cost_per_token")
        batch = getattr(self, f"{side}_cost_per_token_batches")
        if batch is None or not regular:
            return 1.0 - BATCH_DISCOUNT
        return float(batch) / float(regular)


BATCH_DISCOUNT = 0.5
"""OpenAI's Batch API price cut, used for a model whose table row gives no batch price."""


SNAPSHOT = Path(__file__).resolve().parent / "openai_prices.json"


class PriceSnapshot(BaseModel):
    """``openai_prices.json``: rows keyed by the model's name at OpenAI (``gpt-4o-mini``)."""

    source: str
    """Where the rows came from: the litellm version and its table."""
    rows: dict[str, ModelPrice]


def price_of(row: Mapping[str, Any] | None) -> ModelPrice | None:
    """The fields the harness uses of one row of litellm's table (``litellm.model_cost[name]`` or
    ``litellm.get_model_info(name)``); None without one."""
    if not row:
        return None
    return ModelPrice.model_validate({k: row.get(k) for k in ModelPrice.model_fields})


@lru_cache(maxsize=1)
def snapshot() -> PriceSnapshot | None:
    """The shipped table, or None (and a warning) when it is missing or unreadable: every cost is
    then null, nothing fails."""
    path = SNAPSHOT
    try:
        return PriceSnapshot.model_validate_json(path.read_bytes())
    except (OSError, ValueError) as exc:
        logging.getLogger(__name__).warning("no price table (%s: %s): costs are null", path, exc)
        return None


@lru_cache(maxsize=64)
def lookup(model: str) -> ModelPrice | None:
    """The row of an ``openai/<name>`` (or bare) OpenAI model string, or None when the snapshot has none."""
    table = snapshot()
    return table.rows.get(model.removeprefix("openai/")) if table else None


def snapshot_from(model_cost: Mapping[str, Mapping[str, Any]], source: str) -> PriceSnapshot:
    """The rows of ``openai_prices.json`` from litellm's table (``litellm.model_cost``): OpenAI's
    chat models, the fields ``ModelPrice`` keeps (``scripts/refresh_prices.py`` writes it)."""
    rows = {}
    for name, row in sorted(model_cost.items()):
        if isinstance(row, Mapping) and row.get("litellm_provider") == "openai" and row.get("mode") == "chat":
            price = price_of(row)
            if price is not None:
                rows[name] = price
    return PriceSnapshot(source=source, rows=rows)


def snapshot_json(table: PriceSnapshot) -> str:
    """The file's text: one row per line, unset fields left out, so a refresh diffs row by row."""
    lines = [
        json.dumps(name) + ": " + json.dumps(price.model_dump(exclude_none=True), sort_keys=True)
        for name, price in table.rows.items()
    ]
    return '{"source": ' + json.dumps(table.source) + ',\n "rows": {\n  ' + ",\n  ".join(lines) + "\n }\n}\n"
