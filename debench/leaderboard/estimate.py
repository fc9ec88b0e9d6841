"""What a canonical judge's run of a task will cost, counted by the job itself before it runs.

Nothing a submission claims (its usage, its records' token counts) enters the estimate. The job
runs the judge method itself — the task's prompts rendered from the real data exactly as the run
will send them, the method's own requests per document (one for ``direct``, a chain of about a
hundred for Debatrix) — against a stand-in model that sends nothing: it counts each request's
prompt and answers with ``max_tokens`` tokens of filler, so a chain's later prompts, which quote
earlier answers, are counted at their longest. The estimate is the number of requests and the
sum of each request's prompt tokens plus its ``max_tokens``: an upper bound on what the answers
can cost.

Prompt tokens are counted (``prompt_counter``) with litellm's tokenizer where it is the model's own
(OpenAI's models: litellm counts them with their tiktoken encoding, shipped with litellm), else
with a bound that holds for every byte-level tokenizer (BPE, SentencePiece with byte fallback):
a token covers at least one byte, so a prompt has at most its UTF-8 bytes plus
``BOUND_PER_MESSAGE`` tokens per message and ``BOUND_PER_REQUEST`` per request for the chat
template. The runtime count (``debench.leaderboard.allowance``) uses the same counter.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from debench.data.base import Doc
from debench.data.prompts import Message
from debench.leaderboard.maintainers import Budget
from debench.models.base import Model, ModelResponse, Request, Usage
from debench.task.config import TaskConfig

BOUND_PER_MESSAGE = 16
"""Chat-template tokens a message may add around its text (role markers, separators)."""
BOUND_PER_REQUEST = 64
"""Chat-template tokens a request may add (a default system prompt, the answer's opening)."""
_LITELLM_OWN_TOKENIZER = ("openai", "azure", "text-completion-openai")
"""litellm providers whose models litellm counts with their own tokenizer (tiktoken's encodings)."""


@dataclass(frozen=True)
class PromptCounter:
    """Counts a request's prompt tokens; ``by`` says how (litellm's tokenizer or the byte bound)."""

    count: Callable[[list[Message]], int]
    by: str


def byte_bound(messages: list[Message]) -> int:
    """At most this many tokens for any byte-level tokenizer (see the module docstring)."""
    return BOUND_PER_REQUEST + sum(len(m["content"].encode("utf-8")) + BOUND_PER_MESSAGE for m in messages)


def _litellm_knows(model: str) -> bool:
    """litellm counts ``model`` with its own tokenizer: one of OpenAI's models in litellm's table."""
    import litellm

    litellm.suppress_debug_info = True  # its "Provider List" banner for a model it does not list
    try:
        provider = litellm.get_model_info(model).get("litellm_provider")
    except Exception:  # noqa: BLE001 - a model litellm does not list: the bound
        return False
    return provider in _LITELLM_OWN_TOKENIZER


def prompt_counter(model: str) -> PromptCounter:
    """How the job counts the prompt tokens of ``model``'s requests (see the module docstring)."""
    if _litellm_knows(model):
        import litellm

        def count(messages: list[Message]) -> int:
            return int(litellm.token_counter(model=model, messages=messages))

        return PromptCounter(count, f"litellm's tokenizer for {model}")
    return PromptCounter(
        byte_bound, f"the byte bound ({BOUND_PER_MESSAGE} per message, {BOUND_PER_REQUEST} per request)"
    )


def filler(n_tokens: int) -> str:
    """An answer of at least ``n_tokens`` tokens under either counter (``" x"`` is one token of
    OpenAI's encodings, two bytes of the bound)."""
    return " x" * n_tokens


class _CountingModel(Model):
    """Sends nothing: counts each request's prompt and answers with ``max_tokens`` of filler."""

    cacheable = False

    def __init__(self, judge: Model, counter: PromptCounter) -> None:
        self.name = judge.name
        self.generation_overrides = judge.generation_overrides
        self.counter = counter
        self.spent = Budget(requests=0, tokens=0)

    def identity(self) -> dict[str, Any]:
        return {"name": self.name}

    async def generate(self, request: Request) -> ModelResponse:
        prompt, answer = self.counter.count(request.messages), request.generation.max_tokens
        self.spent = Budget(requests=self.spent.requests + 1, tokens=self.spent.tokens + prompt + answer)
        return ModelResponse(text=filler(answer), usage=Usage(prompt_tokens=prompt, completion_tokens=answer))


def estimate_run(task: TaskConfig, docs: Iterable[Doc], method: str, judge: Model, counter: PromptCounter) -> Budget:
    """Requests and tokens the run of ``judge`` with ``method`` on ``docs`` can cost at most
    (see the module docstring)."""
    from debench.judging.base import JudgeContext, get_method

    counting = _CountingModel(judge, counter)
    ctx = JudgeContext.stand_in(task, counting, store_messages=False)
    judge_doc = get_method(method)

    async def every() -> None:
        for doc in docs:
            await judge_doc(ctx, doc)

    asyncio.run(every())
    return counting.spent
