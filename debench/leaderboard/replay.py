"""Replaying a multi-step (Debatrix) record: were its prompts the installed task's?

The chain is run again with the installed task, each call answered with the answer the record
holds for that very prompt. A Debatrix record keeps, for every step, the hash of the messages the model was asked
(``prompt_sha256``) and its answer. ``replay`` runs the record's judge method on the document with a
``ReplayModel`` that answers a prompt only when the record holds a step with that prompt's hash. So
the installed task and debench's own prompts are rendered again, step after step, each from the
recorded answers of the steps before it; the first prompt the record does not hold is a prompt
that was not debench's (an edited task, a patched copy of debench), and the replayed chain must end
with the recorded verdict. No model is called.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict, deque
from typing import Any

from debench.data.base import Doc
from debench.data.prompts import messages_sha256
from debench.data.samples import SampleRecord
from debench.judging.base import JudgeContext, get_method
from debench.models.base import Model, ModelResponse, Request
from debench.task.config import TaskConfig


class PromptNotInRecord(Exception):
    def __init__(self, messages: list[dict[str, str]]):
        super().__init__("a prompt the record does not hold")
        self.messages = messages


class ReplayModel(Model):
    """Answers each prompt with the recorded answer of the step that was asked exactly that prompt."""

    kind = "replay"
    cacheable = False
    makes_requests = False
    default_concurrency = 1

    def __init__(self, steps: list[dict[str, Any]]):
        self.name = "replay"
        self._answers: dict[str, deque[str]] = defaultdict(deque)
        for s in steps:
            self._answers[str(s.get("prompt_sha256"))].append(str(s.get("answer", "")))

    def identity(self) -> dict[str, Any]:
        return {"name": self.name}

    async def generate(self, request: Request) -> ModelResponse:
        queue = self._answers.get(messages_sha256(request.messages))
        if not queue:
            raise PromptNotInRecord(request.messages)
        return ModelResponse(text=queue.popleft())


def replay(task: TaskConfig, method: str, doc: Doc, rec: SampleRecord) -> SampleRecord | list[dict[str, str]]:
    """The replayed record, or the first prompt the installed task renders that the record does not hold."""
    model = ReplayModel(rec.steps)
    ctx = JudgeContext.stand_in(task, model)

    async def run() -> SampleRecord:
        return await get_method(method)(ctx, doc)

    try:
        return asyncio.run(run())
    except PromptNotInRecord as exc:
        return exc.messages
