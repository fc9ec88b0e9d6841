"""What the runner needs from any judge model."""

from __future__ import annotations

import abc
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel, Field

from debench.core.entry_points import PluginIdentity
from debench.data.base import Doc
from debench.data.prompts import Message
from debench.task.config import GenerationConfig, TaskConfig


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_prompt_tokens: int = 0
    """The part of ``prompt_tokens`` the provider served from its prompt cache (a repeated prefix),
    billed at its cached rate: ``prompt_tokens_details.cached_tokens`` (OpenAI, vLLM, xAI),
    ``cache_read_input_tokens`` (Anthropic), ``prompt_cache_hit_tokens`` (DeepSeek)."""

    @classmethod
    def of(cls, usage: Any) -> Usage:
        """From a provider's ``usage`` (a JSON object, or litellm's object with the same fields)."""

        def get(obj: Any, name: str) -> Any:
            return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)

        if usage is None:
            return cls()
        details = get(usage, "prompt_tokens_details")
        cached = (
            (get(details, "cached_tokens") if details is not None else None)
            or get(usage, "cache_read_input_tokens")
            or get(usage, "prompt_cache_hit_tokens")
        )
        return cls(
            prompt_tokens=int(get(usage, "prompt_tokens") or 0),
            completion_tokens=int(get(usage, "completion_tokens") or 0),
            cached_prompt_tokens=int(cached or 0),
        )

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class ModelResponse(BaseModel):
    text: str | None = None
    """Raw answer text (goes through the task's parser)."""
    prediction: Any = None
    """A parsed value produced directly (baselines); bypasses the parser when ``direct`` is set."""
    direct: bool = False
    parse_error: str | None = None
    """With ``direct``: why no prediction could be formed (e.g. no ensemble member's answer parsed)."""
    parts: list[dict[str, Any]] = Field(default_factory=list)
    """The answers a composite judge (an ensemble) combined, one dict per member; kept in the
    sample's ``steps``."""
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None
    attempts: int = 1


class Request(BaseModel):
    """One call: the messages plus the context a model without an LLM (a baseline) needs."""

    model_config = {"arbitrary_types_allowed": True}

    messages: list[Message]
    generation: GenerationConfig
    doc: Doc | None = None
    task: TaskConfig | None = None
    grammar_text: str | None = None


class PermanentModelError(Exception):
    """A failure that retrying will not fix (bad request, authentication, unknown model)."""


class ContextOverflow(Exception):
    """The prompt does not fit the model's context window: the sample is 'not completed'."""


class Model(abc.ABC):
    """A judge. ``identity`` must include everything about the model that changes its answers."""

    name: str
    kind: str = "llm"
    cacheable: bool = True
    makes_requests: bool = True
    """False for judges that call no model (baselines): no request counting, no context check."""
    composite: bool = False
    """True for a judge made of other models (an ensemble): called through ``generate_with``."""
    default_concurrency: int = 8
    generation_overrides: Mapping[str, Any] = MappingProxyType({})
    """The model's own generation settings (``--model-args``, ``model@key=value``): they override
    the task's, field by field, in every request."""

    @abc.abstractmethod
    def identity(self) -> dict[str, Any]: ...

    @abc.abstractmethod
    async def generate(self, request: Request) -> ModelResponse: ...

    async def generate_with(self, caller: Any, request: Request) -> ModelResponse:
        """A composite judge answers by calling its members through ``caller`` (``debench.models.calls.Caller``)."""
        raise NotImplementedError

    def generation_for(self, generation: GenerationConfig) -> GenerationConfig:
        """The settings this model's requests use: the caller's, with the model's own on top."""
        if not self.generation_overrides:
            return generation
        return generation.model_copy(update=self.generation_overrides)

    def with_generation(self, ident: dict[str, Any]) -> dict[str, Any]:
        """``ident`` plus the model's own generation settings, when it has any."""
        return (
            {**ident, "generation": dict(sorted(self.generation_overrides.items()))}
            if self.generation_overrides
            else ident
        )

    def not_sent(self, generation: GenerationConfig) -> list[str]:
        """Settings of ``generation`` this model's provider does not accept, so they are not sent."""
        return []

    def check_ready(self) -> None:  # noqa: B027 - optional hook
        """Called before the first request of a run: a missing key, an unknown provider or a
        missing dependency is a ``UserError`` here, not a run of failed samples."""

    def prepare(self, docs: Iterable[Doc], task: TaskConfig) -> None:  # noqa: B027 - optional hook
        """Called once with every document of the run before any request (baselines use it).
        ``docs`` may be read from its file as it is iterated: iterate it once per use."""

    def context_window(self) -> int | None:
        """Input token limit, when known."""
        return None

    def batch_api(self) -> Any:
        """The ``debench.models.batch_api.BatchAPI`` that runs this model's requests as batches
        (``eval --batch``); a model without one is a one-line error."""
        from debench.core.errors import UserError

        raise UserError(
            f"{self.name} has no batch API: --batch needs an OpenAI-compatible provider or server (openai/<name> "
            "--api-base URL, gpt-4o, azure/...)",
            field="--batch",
        )

    def batch_body(self, request: Request) -> dict[str, Any]:
        """The chat-completion request body of ``request``, as a line of a batch sends it."""
        raise NotImplementedError

    def batch_cost(self, usage: Usage) -> float | None:
        """An answer's price through the batch API, None when unknown."""
        return None

    def count_tokens(self, messages: list[Message]) -> int | None:
        return None

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        pass

    def plugins(self) -> list[PluginIdentity]:
        """The plug-ins (other packages' model kinds) whose code makes this model's answers: none for
        debench's own kinds (``debench.models.plugin_model``)."""
        return []

    def describe(self) -> dict[str, Any]:
        """What results files record about the model: its name, kind and identity."""
        ident = self.identity()
        return {
            "name": self.name,
            "kind": self.kind,
            **{k: v for k, v in ident.items() if k != "name"},
            "identity": ident,
        }
