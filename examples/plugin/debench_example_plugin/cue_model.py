"""``cue/<words>``: an offline judge answering from one cue in its prompt, its length. It answers
in text like a language model (the task's parser reads the answer): the k-th of the task's
choices, k = the prompt's words // <words>, capped at the last choice. Deterministic, no network."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from debench.plugin_types import Model, ModelRequest, ModelResponse, Request, UserError


class CueModel(Model):
    kind = "cue"
    cacheable = False
    makes_requests = False
    default_concurrency = 16

    def __init__(self, name: str, words_per_step: int):
        self.name = name
        self.words_per_step = words_per_step

    def identity(self) -> dict[str, Any]:
        return {"name": self.name}

    async def generate(self, request: Request) -> ModelResponse:
        choices = list(request.task.parser.choices or []) if request.task is not None else []
        if not choices:
            raise UserError("cue/ models answer only tasks with parser.choices")
        words = sum(len(str(m.get("content", "")).split()) for m in request.messages)
        step = min(len(choices) - 1, words // self.words_per_step)
        return ModelResponse(text=str(choices[step]))


@dataclass(frozen=True)
class CueKind:
    description: str = (
        "cue/<words>: answers the k-th choice, k = the prompt's words // <words> (offline, deterministic)"
    )
    keys: frozenset[str] = frozenset()

    def make(self, request: ModelRequest) -> Model:
        words = request.base.removeprefix("cue/")
        if not words.isdigit() or int(words) < 1:
            raise UserError(
                f"'{request.base}': expected cue/<words per step>, a positive whole number", field="--model"
            )
        model = CueModel(request.base, int(words))
        model.name = request.name
        return model


CUE = CueKind()
