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

TABLE_FILE = "model_prices_and_context_window_backup.json"


class ModelPrice(BaseModel):
    """The part of one table row the harness uses."""

    input_cost_per_token: float | None = None
    output_cost_per_token: float | None = None
    max_input_tokens: int | None = None
    max_tokens: int | None = None

    @property
    def context_window(self) -> int | None:
        return self.max_input_tokens or self.max_tokens

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        if self.input_cost_per_token is None or self.output_cost_per_token is None:
            return None
        return prompt_tokens * self.input_cost_per_token + completion_tokens * self.output_cost_per_token


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
