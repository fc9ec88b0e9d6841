"""What the runner needs from any judge model."""

from __future__ import annotations

import abc
from typing import Any

from pydantic import BaseModel, Field

from debench.data.base import Doc
from debench.prompts import Message
from debench.task import GenerationConfig, TaskConfig


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0

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
    default_concurrency: int = 8

    @abc.abstractmethod
    def identity(self) -> dict[str, Any]: ...

    @abc.abstractmethod
    async def generate(self, request: Request) -> ModelResponse: ...

    def prepare(self, docs: list[Doc], task: TaskConfig) -> None:  # noqa: B027 - optional hook
        """Called once with every document of the run before any request (baselines use it)."""

    def context_window(self) -> int | None:
        """Input token limit, when known."""
        return None

    def count_tokens(self, messages: list[Message]) -> int | None:
        return None

    async def aclose(self) -> None:  # noqa: B027 - optional hook
        pass

    def describe(self) -> dict[str, Any]:
        """What results files record about the model: its name, kind and identity."""
        ident = self.identity()
        return {"name": self.name, "kind": self.kind, **{k: v for k, v in ident.items() if k != "name"}, "identity": ident}
