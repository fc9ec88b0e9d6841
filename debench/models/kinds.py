"""Model kinds: what a model string's prefix (``baseline/``, ``local/``, ``gguf/``, ``vllm/``, or a
plug-in's ``acme/``) makes, and which ``--model-args`` keys it takes.

The kinds are entry points of ``debench.models`` (debench's own in ``debench.models.builtin_kinds``,
declared in its pyproject.toml); the entry's name is the prefix. A model string whose prefix names
no kind goes to the ``server`` kind (litellm or debench's own OpenAI-compatible HTTP client); no
plug-in takes a prefix the server kind serves (``debench.core.provider_names``). The interface a
kind implements is ``ModelKind`` (all four interfaces: ``debench.plugin_types``); another package's
kind is guarded (``GuardedKind``): its failures name it, and its models carry its identity
(``debench.models.plugin_model``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from debench.core.entry_points import Declared, PluginError, check_clash, declared
from debench.core.errors import UserError
from debench.core.registries import Registry
from debench.models.args import CLIENT_KEYS, GENERATION_KEYS, SERVER_KEYS, ModelArgs
from debench.models.base import Model
from debench.models.plugin_model import PluginModel
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
    kind_args: BaseModel | None = None
    """The keys the kind declares itself (an instance of its ``args`` model), checked; None when it
    declares none."""


@runtime_checkable
class ModelKind(Protocol):
    """What a model-string prefix makes (the interface of a ``debench.models`` entry point).

    Optionally, ``args``: a pydantic model of ``--model-args`` keys of the kind's own (typed fields
    with defaults, none of them a debench key); given keys are checked against it before anything
    runs, handed to ``make`` as ``request.kind_args`` and recorded in the model's identity."""

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


def own_args(kind: object) -> type[BaseModel] | None:
    """A kind's own ``--model-args`` (its optional ``args`` model), None when it declares none."""
    args = getattr(kind, "args", None)
    return args if isinstance(args, type) and issubclass(args, BaseModel) else None


def _not_a_kind(obj: object) -> str | None:
    missing = [a for a in ("keys", "description", "make") if not hasattr(obj, a)]
    if missing:
        return f"lacks {', '.join(missing)} (see debench.models.kinds.ModelKind)"
    if not isinstance(getattr(obj, "keys"), frozenset):  # noqa: B009 - a plug-in's object, checked before use
        return "keys must be a frozenset of --model-args names"
    if getattr(obj, "args", None) is not None and own_args(obj) is None:
        return "args must be a pydantic model class (its own --model-args keys)"
    own = own_args(obj)
    taken = sorted(set(own.model_fields) & {*GENERATION_KEYS, *CLIENT_KEYS, *SERVER_KEYS}) if own else []
    if taken:
        return f"its args declare '{taken[0]}', a key debench's --model-args already have"
    return None


class GuardedKind:
    """Another package's model kind: whatever its ``make`` raises (but a ``UserError``, its own
    one-line message) is one line naming the plug-in, and its models are ``PluginModel``s."""

    def __init__(self, inner: Any, item: Declared):
        self.inner = inner
        self.item = item
        self.description = str(inner.description)

    @property
    def keys(self) -> frozenset[str]:
        keys: frozenset[str] = self.inner.keys
        return keys

    @property
    def args(self) -> type[BaseModel] | None:
        return own_args(self.inner)

    def make(self, request: ModelRequest) -> Model:
        try:
            model = self.inner.make(request)
        except UserError:
            raise
        except Exception as exc:  # noqa: BLE001 - a plug-in's failure, reported as one line naming it
            raise PluginError(self.item.failed(exc, "make")) from None
        if not isinstance(model, Model):
            raise PluginError(f"{self.item.described}: make returned {type(model).__name__}, not a debench Model")
        given = request.kind_args.model_dump(mode="json", exclude_unset=True) if request.kind_args else {}
        return PluginModel(model, self.item, given)


def _guarded(kind: ModelKind, item: Declared) -> ModelKind:
    return GuardedKind(kind, item)


MODEL_KINDS: Registry[ModelKind] = Registry(
    "model kind", field="--model", group="debench.models", check=_not_a_kind, guard=_guarded
)


def kind_of(spec: str) -> str:
    """The kind a model string names: its prefix before the first ``/`` when a kind has that
    name, else ``server``. A prefix a plug-in may not take (``entry_points.clashes``) is said once,
    and served as if the plug-in were not there; one two plug-ins declare is refused."""
    prefix, slash, _ = spec.partition("/")
    if not slash or prefix == FALLBACK:
        return FALLBACK
    check_clash("debench.models", prefix)
    return prefix if prefix in declared("debench.models") else FALLBACK


def kind_keys(kind: str) -> frozenset[str]:
    """The ``--model-args`` keys a kind takes (its declaration)."""
    return MODEL_KINDS.get(kind).keys
