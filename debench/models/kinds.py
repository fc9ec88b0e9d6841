"""Model kinds: what a model string's prefix (``baseline/``, ``local/``, ``gguf/``, ``vllm/``, or a
plug-in's ``acme/``) makes, and which ``--model-args`` keys it takes.

The kinds are entry points of ``debench.models`` (debench's own in ``debench.models.builtin_kinds``,
declared in its pyproject.toml); the entry's name is the prefix. A model string whose prefix names
no kind goes to the ``server`` kind (litellm or debench's own OpenAI-compatible HTTP client). The
interface a kind implements is ``ModelKind`` (all four interfaces: ``debench.plugin_types``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from debench.core.entry_points import declared
from debench.core.registries import Registry
from debench.models.args import ModelArgs
from debench.models.base import Model
from debench.models.retry import RetryPolicy

FALLBACK = "server"
"""The kind of a model string whose prefix names no kind: a litellm string or an OpenAI-compatible
server's model."""


@dataclass(frozen=True)
class ModelRequest:
    """What ``make_model`` hands a kind: the model string (``name``, as the user wrote it, and
    ``base``, without its ``@settings``), its checked arguments and how to reach it."""

    name: str
    base: str
    args: ModelArgs
    api_bases: list[str] | None
    api_key: str | None
    retry: RetryPolicy | None
    seed: int


@runtime_checkable
class ModelKind(Protocol):
    """What a model-string prefix makes (the interface of a ``debench.models`` entry point)."""

    description: str
    """One line for docs and listings."""

    @property
    def keys(self) -> frozenset[str]:
        """The ``--model-args`` keys (``debench.models.args``: generation, client and server settings)
        this kind applies; any other key given is refused before anything runs. A key that changes
        the answers must also be in the model's ``identity()``."""
        ...

    def make(self, request: ModelRequest) -> Model:
        """The model for ``request.base`` (the model string without its ``@settings``), with
        ``request.args`` applied; a ``debench.core.errors.UserError`` for a string it cannot serve. Set
        ``model.name = request.name``. Its ``identity()`` must come out the same when the model is
        rebuilt from it (the leaderboard's own run and the self-check do)."""
        ...


def _not_a_kind(obj: object) -> str | None:
    missing = [a for a in ("keys", "description", "make") if not hasattr(obj, a)]
    if missing:
        return f"lacks {', '.join(missing)} (see debench.models.kinds.ModelKind)"
    if not isinstance(getattr(obj, "keys"), frozenset):  # noqa: B009 - a plug-in's object, checked before use
        return "keys must be a frozenset of --model-args names"
    return None


MODEL_KINDS: Registry[ModelKind] = Registry("model kind", field="--model", group="debench.models", check=_not_a_kind)


def kind_of(spec: str) -> str:
    """The kind a model string names: its prefix before the first ``/`` when a kind has that
    name, else ``server``."""
    prefix, slash, _ = spec.partition("/")
    if slash and prefix != FALLBACK and prefix in declared("debench.models"):
        return prefix
    return FALLBACK


def kind_keys(kind: str) -> frozenset[str]:
    """The ``--model-args`` keys a kind takes (its declaration)."""
    return MODEL_KINDS.get(kind).keys
