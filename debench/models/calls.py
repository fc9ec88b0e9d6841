"""The one way every command calls a model (judging, debating, writing speeches, ensembles).

A call applies the model's own generation settings over the caller's, looks the answer up in the
response cache (a hit makes no request), checks that the prompt fits the model's context window
(a prompt that does not is ``ContextOverflow``: *not completed*, never sent), asks the model, stores
the answer, and counts the requests made (retries included). A caller may carry a ``RequestGuard``
(the leaderboard's budgets): it is asked before every request is sent — it stops the run by
raising — and told what each one cost, the answer or the failure (a cancelled call included).
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from typing import Protocol

from debench.data.base import Doc
from debench.data.prompts import Message
from debench.models.base import ContextOverflow, Model, ModelResponse, Request
from debench.models.cache import ResponseCache, cache_key
from debench.task.config import GenerationConfig, TaskConfig


@dataclass
class CallResult:
    response: ModelResponse
    cached: bool
    latency_s: float


def check_fits(model: Model, messages: list[Message], max_tokens: int) -> None:
    """Raise ``ContextOverflow`` when the prompt and the answer cannot fit the model's window."""
    window = model.context_window()
    if window is None:
        return
    n = model.count_tokens(messages)
    if n is not None and n + max_tokens > window:
        raise ContextOverflow(
            f"{model.name}: prompt of {n} tokens + {max_tokens} to generate exceeds the {window}-token context window"
        )


class RequestGuard(Protocol):
    """Asked before each request a caller sends, and told what it cost."""

    def admit(self, messages: list[Message], max_tokens: int) -> object:
        """A ticket for the request about to be sent; raises (a ``UserError``) to stop the run before it."""
        ...

    def settle(self, ticket: object, response: ModelResponse | None, attempts: int) -> None:
        """The admitted request ended: its answer, or None when it failed or was cancelled."""
        ...


class Caller:
    """Calls through one response cache; ``n_requests`` counts the requests made (retries and the
    attempts of calls that failed included)."""

    def __init__(
        self,
        cache: ResponseCache | None = None,
        *,
        seed_offset: int | None = None,
        max_in_flight: int | None = None,
        guard: RequestGuard | None = None,
    ):
        self.cache = cache
        self.guard = guard
        self.n_requests = 0
        self._slots = asyncio.Semaphore(max_in_flight) if max_in_flight else None
        """Bounds the requests in flight when a job makes several at once (Debatrix's columns)."""
        self.seed_offset = seed_offset
        """Repeat k of a run (``eval --repeats``): every request's seed becomes ``(seed or 0) + k``."""

    async def call(
        self,
        model: Model,
        messages: list[Message],
        generation: GenerationConfig,
        grammar_text: str | None = None,
        *,
        doc: Doc | None = None,
        task: TaskConfig | None = None,
    ) -> CallResult:
        gen = model.generation_for(generation)
        if self.seed_offset is not None:
            gen = gen.model_copy(update={"seed": (gen.seed or 0) + self.seed_offset})
        # model_construct: the fields are already validated objects (validating again re-checks the
        # whole task config, templates included, on every call)
        request = Request.model_construct(
            messages=messages, generation=gen, doc=doc, task=task, grammar_text=grammar_text
        )
        if model.composite:  # an ensemble: its members are called through this caller, one by one
            started = time.perf_counter()
            response = await model.generate_with(self, request)
            return CallResult(response, False, time.perf_counter() - started)
        key = None
        if self.cache is not None and model.cacheable:
            key = cache_key(model.identity(), messages, gen.model_dump(), grammar_text)
            hit = self.cache.get(key)
            if hit is not None:
                return CallResult(hit, True, 0.0)
        if model.makes_requests:
            model.check_ready()  # a missing key or dependency: one line, before the first request
            check_fits(model, messages, gen.max_tokens)
        started = time.perf_counter()
        response = await self._send(model, request)
        if key is not None and self.cache is not None:
            self.cache.put(key, response)
        return CallResult(response, False, time.perf_counter() - started)

    async def _send(self, model: Model, request: Request) -> ModelResponse:
        """One request (and its retries) to the model: admitted by the guard, counted, settled."""
        guard = self.guard if model.makes_requests else None
        ticket = guard.admit(request.messages, request.generation.max_tokens) if guard is not None else None
        try:
            if self._slots is None:
                response = await model.generate(request)
            else:
                async with self._slots:
                    response = await model.generate(request)
        except BaseException as exc:
            attempts = getattr(exc, "attempts", 0)
            if model.makes_requests and isinstance(exc, Exception):  # a failed call made requests too
                self.n_requests += attempts
            if guard is not None:
                guard.settle(ticket, None, attempts)
            raise
        if guard is not None:
            guard.settle(ticket, response, response.attempts)
        if model.makes_requests:
            self.n_requests += response.attempts
        return response

    def close(self) -> None:
        if self.cache is not None:
            self.cache.close()
