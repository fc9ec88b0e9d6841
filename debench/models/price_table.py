"""Prices and context windows from litellm's bundled model table, read without importing litellm.

Importing litellm costs ~4 s and ~200 MB; the direct HTTP client only needs one row of the table
litellm ships (``model_prices_and_context_window_backup.json``, the one litellm itself uses with
``LITELLM_LOCAL_MODEL_COST_MAP=True``).
"""

from __future__ import annotations

import importlib.util
import json
from functools import lru_cache
from pathlib import Path

from pydantic import BaseModel

from debench.models.base import Usage

TABLE_FILE = "model_prices_and_context_window_backup.json"


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
        cached_rate = self.input_cost_per_token if self.cache_read_input_token_cost is None else self.cache_read_input_token_cost
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


def _table_path() -> Path | None:
    spec = importlib.util.find_spec("litellm")  # locates the package without importing it
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / TABLE_FILE
    return path if path.is_file() else None


@lru_cache(maxsize=64)
def lookup(model: str) -> ModelPrice | None:
    """The row of an ``openai/<name>`` (or bare) model string, or None when the table has none."""
    path = _table_path()
    if path is None:
        return None
    table = json.loads(path.read_text(encoding="utf-8"))
    bare = model.removeprefix("openai/")
    for key in (model, bare):
        row = table.get(key)
        if isinstance(row, dict) and (key == model or row.get("litellm_provider") == "openai"):
            return ModelPrice.model_validate({k: row.get(k) for k in ModelPrice.model_fields})
    return None
