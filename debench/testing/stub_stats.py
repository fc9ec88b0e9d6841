"""The stub server's statistics about completion requests (``debench.testing.stub_server``):
``Recorder`` counts them from the server loop, ``StubStats`` is a snapshot read from any thread."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from debench.testing.stub_prompts import prompt_key


@dataclass(frozen=True)
class StubStats:
    """A snapshot of the server's statistics about completion requests.

    ``outcomes`` counts ``Outcome`` values plus ``"400"`` (invalid request) and ``"responder_error"``
    (the responder raised; answered with HTTP 500). ``attempts_per_prompt`` is keyed by
    ``prompt_key(messages)``; ``requests`` holds the received bodies (empty when recording is off).
    """

    total_requests: int = 0
    outcomes: dict[str, int] = field(default_factory=dict)
    attempts_per_prompt: dict[str, int] = field(default_factory=dict)
    in_flight: int = 0
    peak_in_flight: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)
    prompt_tokens: int = 0
    """Prompt tokens (whitespace words) of the completions answered."""
    cached_prompt_tokens: int = 0
    """Of those, the tokens reported as cached (with the simulated prompt cache on)."""
    batches_created: int = 0
    """Batches created through ``POST /v1/batches``."""
    first_request_at: float | None = None
    """``time.monotonic()`` when the first completion request arrived (system-wide clock)."""
    last_response_at: float | None = None
    """``time.monotonic()`` when the last completion request was answered (or dropped)."""

    @property
    def window_s(self) -> float | None:
        """Seconds from the first request's arrival to the last answer: the busy window clients see."""
        if self.first_request_at is None or self.last_response_at is None:
            return None
        return max(0.0, self.last_response_at - self.first_request_at)

    def attempts(self, messages: Any) -> int:
        """How many requests carried these ``messages``."""
        return self.attempts_per_prompt.get(prompt_key(messages), 0)

    def to_json(self) -> dict[str, Any]:
        """The statistics without request bodies, as served by ``GET /_stub/stats``."""
        return {
            "total_requests": self.total_requests,
            "outcomes": self.outcomes,
            "attempts_per_prompt": self.attempts_per_prompt,
            "in_flight": self.in_flight,
            "peak_in_flight": self.peak_in_flight,
            "prompt_tokens": self.prompt_tokens,
            "cached_prompt_tokens": self.cached_prompt_tokens,
            "batches_created": self.batches_created,
            "first_request_at": self.first_request_at,
            "last_response_at": self.last_response_at,
            "window_s": self.window_s,
        }


class Recorder:
    """Thread-safe counters, written from the server loop and read from any thread."""

    def __init__(self, record_requests: bool) -> None:
        self.record_requests = record_requests
        self._lock = threading.Lock()
        self._in_flight = 0
        self.reset()

    def reset(self) -> None:
        """Zero the counters; requests still in flight stay counted as such."""
        with self._lock:
            self._total = 0
            self._outcomes: dict[str, int] = {}
            self._attempts: dict[str, int] = {}
            self._peak = self._in_flight
            self._requests: list[dict[str, Any]] = []
            self._tokens = [0, 0]
            self._first: float | None = None
            self._last: float | None = None

    def enter(self) -> None:
        now = time.monotonic()
        with self._lock:
            if self._first is None:
                self._first = now
            self._total += 1
            self._in_flight += 1
            if self._in_flight > self._peak:
                self._peak = self._in_flight

    def leave(self) -> None:
        now = time.monotonic()
        with self._lock:
            self._in_flight -= 1
            self._last = now

    def request(self, key: str, body: dict[str, Any]) -> None:
        with self._lock:
            self._attempts[key] = self._attempts.get(key, 0) + 1
            if self.record_requests:
                self._requests.append(body)

    def tokens(self, prompt: int, cached: int) -> None:
        with self._lock:
            self._tokens[0] += prompt
            self._tokens[1] += cached

    def outcome(self, outcome: str) -> None:
        with self._lock:
            self._outcomes[outcome] = self._outcomes.get(outcome, 0) + 1

    def snapshot(self) -> StubStats:
        with self._lock:
            return StubStats(
                total_requests=self._total,
                outcomes=dict(self._outcomes),
                attempts_per_prompt=dict(self._attempts),
                in_flight=self._in_flight,
                peak_in_flight=self._peak,
                requests=list(self._requests),
                prompt_tokens=self._tokens[0],
                cached_prompt_tokens=self._tokens[1],
                first_request_at=self._first,
                last_response_at=self._last,
            )
