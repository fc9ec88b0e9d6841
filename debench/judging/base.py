"""What every judge method gets: one cached, counted way to call the model."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debench.cache import ResponseCache, cache_key
from debench.data.base import Doc
from debench.errors import UserError
from debench.models.base import ContextOverflow, Model, ModelResponse, Request
from debench.prompts import Message
from debench.samples import SampleRecord
from debench.task import GenerationConfig, TaskConfig

GRAMMARS_DIR = Path(__file__).resolve().parent.parent / "grammars"


def load_grammar(name: str | None) -> str | None:
    if name is None:
        return None
    path = GRAMMARS_DIR / f"{name}.gbnf"
    if not path.is_file():
        raise UserError(f"unknown grammar '{name}' (no {path.name} in debench/grammars)", field="generation.grammar")
    return path.read_text(encoding="utf-8")


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
    context_margin: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def check_fits(self, messages: list[Message], max_tokens: int) -> None:
        """Raise ContextOverflow when the prompt cannot fit the model's context window."""
        window = self.model.context_window()
        if window is None:
            return
        n = self.model.count_tokens(messages)
        if n is not None and n + max_tokens > window:
            raise ContextOverflow(f"prompt of {n} tokens + {max_tokens} to generate exceeds the {window}-token context window")

    async def call(self, messages: list[Message], doc: Doc, generation: GenerationConfig | None = None) -> CallResult:
        gen = generation or self.generation
        key = None
        if self.cache is not None and self.model.cacheable:
            key = cache_key(self.model.identity(), messages, gen.model_dump(), self.grammar_text)
            hit = self.cache.get(key)
            if hit is not None:
                return CallResult(hit, True, 0.0)
        if self.model.kind != "baseline":
            self.check_fits(messages, gen.max_tokens)
        started = time.perf_counter()
        response = await self.model.generate(
            Request(messages=messages, generation=gen, doc=doc, task=self.task, grammar_text=self.grammar_text)
        )
        self.n_requests += response.attempts if self.model.kind != "baseline" else 0
        if key is not None and self.cache is not None:
            self.cache.put(key, response)
        return CallResult(response, False, time.perf_counter() - started)


JudgeMethod = Callable[[JudgeContext, Doc], Awaitable[SampleRecord]]
_METHODS: dict[str, JudgeMethod] = {}


def register_method(name: str) -> Callable[[JudgeMethod], JudgeMethod]:
    def deco(fn: JudgeMethod) -> JudgeMethod:
        _METHODS[name] = fn
        return fn

    return deco


def get_method(name: str) -> JudgeMethod:
    from debench.judging import load_builtin_methods

    load_builtin_methods()
    if name not in _METHODS:
        raise UserError(f"unknown judge method '{name}' (known: {', '.join(sorted(_METHODS))})")
    return _METHODS[name]
