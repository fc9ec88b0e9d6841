"""The model-string prefixes debench's ``server`` kind serves, which no plug-in model kind may take:
``openai`` and ``anthropic`` (debench's own HTTP client and price table name them) and every
provider of the installed litellm (``litellm.provider_list``, the list litellm routes a
``provider/model`` string by).

litellm's list is the values of its ``LlmProviders`` enum. They are read from the installed
litellm's source (``litellm/types/utils.py``), offline and without importing litellm (an import
costs seconds); when the enum is not found there (another layout of litellm), litellm itself is
imported and asked.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
from pathlib import Path

OWN = {"openai": "debench's OpenAI-compatible client", "anthropic": "an Anthropic model through litellm"}


def _enum_values(source: str, enum: str) -> list[str]:
    """The string values of the class ``enum`` of a module's source (``NAME = "value"`` lines)."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef) and node.name == enum:
            return [
                st.value.value
                for st in node.body
                if isinstance(st, ast.Assign) and isinstance(st.value, ast.Constant) and isinstance(st.value.value, str)
            ]
    return []


def litellm_providers() -> list[str]:
    """litellm's providers (``litellm.provider_list``), as the installed litellm declares them;
    empty when litellm is not installed."""
    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return []
    for folder in spec.submodule_search_locations:
        path = Path(folder) / "types" / "utils.py"
        try:
            values = _enum_values(path.read_text(encoding="utf-8"), "LlmProviders")
        except (OSError, UnicodeDecodeError, SyntaxError):
            values = []
        if values:
            return values
    import litellm  # another layout: ask litellm itself

    return [str(getattr(p, "value", p)) for p in litellm.provider_list]


@functools.cache
def server_prefixes() -> dict[str, str]:
    """prefix -> what serves it (for messages): the providers litellm routes, openai and anthropic."""
    out = {name: f"litellm provider '{name}'" for name in litellm_providers()}
    return {**out, **{name: what for name, what in OWN.items() if name not in out}}
