"""What the stub server answers (``debench.testing.stub_server``): the assistant's content, from a
``Responder``, and the OpenAI JSON bodies around it (a chat completion, an error)."""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from debench.testing.stub_prompts import prompt_key

Responder = Callable[[dict[str, Any]], str]
"""Maps the request JSON to the assistant's content."""

LIKERT_TEMPLATES: tuple[str, ...] = (
    "Score: {n}",
    "{n}",
    "Rating: [[{n}]]",
    "I would rate this speech {n} out of 5.",
    "Score: {n}/5",
    "**Score:** {n}",
    "My rating is {n}.",
    "The speech states its case clearly, though its evidence is thin in places.\nScore: {n}",
)
"""Parseable raw judge answers for a 1-5 Likert rating; ``{n}`` is the score."""

LIKERT_UNPARSEABLE: tuple[str, ...] = (
    "This speech is quite persuasive.",
    "I cannot rate this.",
    "The speech is well organised but its arguments are not convincing.",
    "Somewhere between agree and strongly agree.",
    "As an AI, I have no personal opinion about debate speeches.",
)
"""Raw judge answers that carry no usable score."""

_LIKERT_WEIGHTS = {1: 0.06, 2: 0.17, 3: 0.30, 4: 0.32, 5: 0.15}


def likert_responder(seed: int = 0, unparseable_rate: float = 0.1) -> Responder:
    """Realistic raw answers of a judge rating a speech 1-5, deterministic per (seed, messages).

    A fraction ``unparseable_rate`` of prompts get an answer without a score
    (from ``LIKERT_UNPARSEABLE``); the rest get a score, skewed towards 3-4, in one of the
    ``LIKERT_TEMPLATES`` forms. Retrying the same prompt gives the same answer.
    """
    if not 0.0 <= unparseable_rate <= 1.0:
        raise ValueError("unparseable_rate must be within [0, 1]")
    scores = list(_LIKERT_WEIGHTS)
    weights = list(_LIKERT_WEIGHTS.values())

    def respond(request: dict[str, Any]) -> str:
        rng = random.Random(f"likert:{seed}:{prompt_key(request.get('messages'))}")
        if rng.random() < unparseable_rate:
            return rng.choice(LIKERT_UNPARSEABLE)
        score = rng.choices(scores, weights)[0]
        return rng.choice(LIKERT_TEMPLATES).format(n=score)

    return respond


def fixed_responder(text: str) -> Responder:
    """Always answers ``text``."""

    def respond(request: dict[str, Any]) -> str:
        return text

    return respond


def cycle_responder(texts: Sequence[str]) -> Responder:
    """Answers ``texts`` in turn, one per successful request, starting over after the last."""
    if not texts:
        raise ValueError("cycle_responder needs at least one text")
    items = itertools.cycle(list(texts))
    lock = threading.Lock()

    def respond(request: dict[str, Any]) -> str:
        with lock:
            return next(items)

    return respond


def error_body(message: str, kind: str = "invalid_request_error", code: str | None = None) -> dict[str, Any]:
    """An OpenAI error answer's JSON."""
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def completion_body(
    completion_id: str, model: str, content: str, prompt_tokens: int, cached_tokens: int
) -> dict[str, Any]:
    """An OpenAI chat completion's JSON answering ``content`` (its tokens are whitespace words)."""
    completion_tokens = len(content.split())
    return {
        "id": completion_id,
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
            "prompt_tokens_details": {"cached_tokens": cached_tokens},
        },
    }
