"""What every judge method gets: one cached, counted way to call the model."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from debench.cache import ResponseCache, cache_key
from debench.data.base import Doc
from debench.models.base import ContextOverflow, Model, ModelResponse, Request
from debench.prompts import Message
from debench.registries import Registry
from debench.samples import SampleRecord
from debench.task import GenerationConfig, TaskConfig

TASK_GRAMMAR = object()
"""Sentinel: use the task's own grammar."""


@dataclass
class CallResult:
    response: ModelResponse
    cached: bool
    latency_s: float


@dataclass
class JudgeContext:
    task: TaskConfig
    model: Model
    cache: ResponseCache | None
    generation: GenerationConfig
    grammar_text: str | None
    store_messages: bool = True
    n_requests: int = 0

    def check_fits(self, messages: list[Message], max_tokens: int) -> None:
        """Raise ContextOverflow when the prompt cannot fit the model's context window."""
        window = self.model.context_window()
        if window is None:
            return
        n = self.model.count_tokens(messages)
        if n is not None and n + max_tokens > window:
            raise ContextOverflow(f"prompt of {n} tokens + {max_tokens} to generate exceeds the {window}-token context window")

    async def call(
        self,
        messages: list[Message],
        doc: Doc,
        generation: GenerationConfig | None = None,
        grammar_text: str | None | object = TASK_GRAMMAR,
    ) -> CallResult:
        """One call for ``doc``: the task's generation settings and grammar unless given."""
        gen = generation or self.generation
        grammar = self.grammar_text if grammar_text is TASK_GRAMMAR else grammar_text
        assert grammar is None or isinstance(grammar, str)
        result = await cached_generate(
            self.model,
            self.cache,
            messages,
            gen,
            grammar,
            doc=doc,
            task=self.task,
            before_request=None if self.model.kind == "baseline" else lambda: self.check_fits(messages, gen.max_tokens),
        )
        if not result.cached and self.model.kind != "baseline":
            self.n_requests += result.response.attempts
        return result


async def cached_generate(
    model: Model,
    cache: ResponseCache | None,
    messages: list[Message],
    generation: GenerationConfig,
    grammar_text: str | None,
    *,
    doc: Doc | None = None,
    task: TaskConfig | None = None,
    before_request: Callable[[], None] | None = None,
) -> CallResult:
    """One model call through the response cache (a hit makes no request).

    ``before_request`` runs on a cache miss, before the request (e.g. the context-window check).
    """
    key = None
    if cache is not None and model.cacheable:
        key = cache_key(model.identity(), messages, generation.model_dump(), grammar_text)
        hit = cache.get(key)
        if hit is not None:
            return CallResult(hit, True, 0.0)
    if before_request is not None:
        before_request()
    started = time.perf_counter()
    # model_construct: the fields are already validated objects (validating again re-checks the
    # whole task config, templates included, on every call)
    response = await model.generate(
        Request.model_construct(messages=messages, generation=generation, doc=doc, task=task, grammar_text=grammar_text)
    )
    if key is not None and cache is not None:
        cache.put(key, response)
    return CallResult(response, False, time.perf_counter() - started)


JudgeMethod = Callable[[JudgeContext, Doc], Awaitable[SampleRecord]]
METHODS: Registry[JudgeMethod] = Registry("judge method", ["debench.judging.direct", "debench.judging.debatrix"], field="--method")
register_method = METHODS.register
get_method = METHODS.get
