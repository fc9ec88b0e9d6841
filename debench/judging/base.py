"""What every judge method gets: the task, the model and the run's one way to call it."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from debench.core.entry_points import Declared, PluginFailure
from debench.core.registries import Registry
from debench.data.base import Doc
from debench.data.prompts import Message
from debench.data.samples import SampleRecord
from debench.models.base import Model
from debench.models.calls import Caller, CallResult
from debench.models.plugin_model import PASSED_ON
from debench.task.config import GenerationConfig, TaskConfig

TASK_GRAMMAR = object()
"""Sentinel: use the task's own grammar."""

__all__ = ["METHODS", "TASK_GRAMMAR", "CallResult", "JudgeContext", "JudgeMethod", "get_method", "register_method"]


@dataclass
class JudgeContext:
    task: TaskConfig
    model: Model
    caller: Caller
    generation: GenerationConfig
    grammar_text: str | None
    store_messages: bool = True

    @classmethod
    def stand_in(cls, task: TaskConfig, model: Model, *, store_messages: bool = True) -> JudgeContext:
        """A context asking a stand-in ``model`` (one that replays or counts requests, sends
        nothing) with the task's own settings and grammar, through a caller without a cache."""
        from debench.task.grammars import load_grammar

        return cls(
            task=task,
            model=model,
            caller=Caller(None),
            generation=task.generation,
            grammar_text=load_grammar(task.generation.grammar),
            store_messages=store_messages,
        )

    async def call(
        self,
        messages: list[Message],
        doc: Doc,
        generation: GenerationConfig | None = None,
        grammar_text: str | object | None = TASK_GRAMMAR,
    ) -> CallResult:
        """One call for ``doc``: the task's generation settings and grammar unless given."""
        grammar = self.grammar_text if grammar_text is TASK_GRAMMAR else grammar_text
        assert grammar is None or isinstance(grammar, str)
        return await self.caller.call(
            self.model, messages, generation or self.generation, grammar, doc=doc, task=self.task
        )


JudgeMethod = Callable[[JudgeContext, Doc], Awaitable[SampleRecord]]


def _not_a_method(obj: object) -> str | None:
    if inspect.iscoroutinefunction(obj) or inspect.iscoroutinefunction(getattr(obj, "__call__", None)):  # noqa: B004
        return None
    what = "a function that is not async (def, not async def)" if callable(obj) else type(obj).__name__
    return f"expected an async function (JudgeContext, Doc) -> SampleRecord, got {what}"


def _guarded(method: JudgeMethod, item: Declared) -> JudgeMethod:
    """Another package's method: what its code raises (but a ``UserError``, its own one-line
    message, and the model's failures, which ``ctx.call`` raises) is a ``PluginFailure`` naming it,
    as is an answer that is not a ``SampleRecord``."""

    @functools.wraps(method)
    async def guarded(ctx: JudgeContext, doc: Doc) -> SampleRecord:
        try:
            record = await method(ctx, doc)
        except PASSED_ON:
            raise
        except Exception as exc:
            raise PluginFailure(item.failed(exc)) from exc
        if not isinstance(record, SampleRecord):
            raise PluginFailure(f"{item.described}: returned {type(record).__name__}, not a debench SampleRecord")
        return record

    return guarded


METHODS: Registry[JudgeMethod] = Registry(
    "judge method", field="--method", group="debench.methods", check=_not_a_method, guard=_guarded
)
"""The judge methods by the name ``--method`` and a task's ``method:`` take: entry points of
``debench.methods`` (debench's own in its pyproject.toml; docs/plugins.md)."""
register_method = METHODS.register
get_method = METHODS.get
