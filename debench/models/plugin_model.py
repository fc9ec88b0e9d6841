"""A model made by another package's model kind, as debench runs it.

Its identity is the plug-in model's own plus the plug-in's (``plugin``: package, version, sha256 of
its module files) and the kind's own ``--model-args`` as given (``kind_args``): so an upgraded or
edited plug-in neither resumes an old samples log (the run fingerprint) nor is served an old answer
(the response cache key), and the results name it. debench's own kinds are never wrapped: their
identities, fingerprints and cache keys stay what they were.

Whatever the plug-in's code raises is one line naming its package and entry point: in ``generate``
a ``PluginFailure`` (that sample is an error; the run stops with the line when every sample fails),
in any other hook a ``PluginError`` (exit 2). Its own ``UserError``s and debench's model errors
(``PermanentModelError``, ``TransientModelError``, ``ContextOverflow``) pass as they are.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from debench.core.entry_points import Declared, PluginError, PluginFailure, PluginIdentity
from debench.core.errors import UserError
from debench.data.prompts import Message
from debench.models.base import ContextOverflow, Model, ModelResponse, PermanentModelError, Request, Usage
from debench.models.retry import TransientModelError
from debench.task.config import GenerationConfig, TaskConfig

R = TypeVar("R")

PASSED_ON = (
    UserError,
    ContextOverflow,
    PermanentModelError,
    TransientModelError,
    PluginFailure,
    asyncio.CancelledError,
)
"""What a plug-in model may raise as it is: its one-line errors and debench's model failures."""


class PluginModel(Model):
    def __init__(self, inner: Model, item: Declared, kind_args: dict[str, Any]):
        plugin = item.identity()
        assert plugin is not None  # only another package's kind is wrapped
        self.inner = inner
        self.item = item
        self.plugin: PluginIdentity = plugin
        self.kind_args = kind_args
        self.name = inner.name
        self.kind = inner.kind
        self.cacheable = inner.cacheable
        self.makes_requests = inner.makes_requests
        self.composite = inner.composite
        self.default_concurrency = inner.default_concurrency
        self.generation_overrides = inner.generation_overrides

    def _hook(self, step: str, call: Callable[..., R], *args: Any) -> R:
        """A hook of the plug-in's model, its failure one line naming the plug-in."""
        try:
            return call(*args)
        except PASSED_ON:
            raise
        except Exception as exc:  # noqa: BLE001 - a plug-in's failure, reported as one line naming it
            raise PluginError(self.item.failed(exc, step)) from None

    def identity(self) -> dict[str, Any]:
        own = self._hook("identity", self.inner.identity)
        if not isinstance(own, dict):
            raise PluginError(f"{self.item.described}: identity() returned {type(own).__name__}, not a dict")
        extra = {"kind_args": dict(sorted(self.kind_args.items()))} if self.kind_args else {}
        return {**own, "plugin": self.plugin.code(), **extra}

    def describe(self) -> dict[str, Any]:
        identity = self.identity()
        return {**self._hook("describe", self.inner.describe), "plugin": identity["plugin"], "identity": identity}

    def plugins(self) -> list[PluginIdentity]:
        return [self.plugin]

    async def generate(self, request: Request) -> ModelResponse:
        return self._answer(await self._step("generate", lambda: self.inner.generate(request)))

    async def generate_with(self, caller: Any, request: Request) -> ModelResponse:
        return self._answer(await self._step("generate_with", lambda: self.inner.generate_with(caller, request)))

    async def _step(self, step: str, answer: Callable[[], Any]) -> Any:
        try:
            return await answer()
        except PASSED_ON:
            raise
        except Exception as exc:
            raise PluginFailure(self.item.failed(exc, step)) from exc

    def _answer(self, response: Any) -> ModelResponse:
        if not isinstance(response, ModelResponse):
            raise PluginFailure(
                f"{self.item.described}: generate returned {type(response).__name__}, not a debench ModelResponse"
            )
        return response

    def generation_for(self, generation: GenerationConfig) -> GenerationConfig:
        return self._hook("generation_for", self.inner.generation_for, generation)

    def not_sent(self, generation: GenerationConfig) -> list[str]:
        return self._hook("not_sent", self.inner.not_sent, generation)

    def check_ready(self) -> None:
        self._hook("check_ready", self.inner.check_ready)

    def prepare(self, docs: Iterable[Any], task: TaskConfig) -> None:
        self._hook("prepare", self.inner.prepare, docs, task)

    def context_window(self) -> int | None:
        return self._hook("context_window", self.inner.context_window)

    def count_tokens(self, messages: list[Message]) -> int | None:
        return self._hook("count_tokens", self.inner.count_tokens, messages)

    def batch_api(self) -> Any:
        return self._hook("batch_api", self.inner.batch_api)

    def batch_body(self, request: Request) -> dict[str, Any]:
        return self._hook("batch_body", self.inner.batch_body, request)

    def batch_cost(self, usage: Usage) -> float | None:
        return self._hook("batch_cost", self.inner.batch_cost, usage)

    async def aclose(self) -> None:
        try:
            await self.inner.aclose()
        except PASSED_ON:
            raise
        except Exception as exc:  # noqa: BLE001 - a plug-in's failure, reported as one line naming it
            raise PluginError(self.item.failed(exc, "aclose")) from None
