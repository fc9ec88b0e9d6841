"""A local OpenAI-compatible chat-completions stub server, with deterministic fault injection.

Tests and the performance / fault benchmarks point litellm (or any OpenAI client) at it instead of a
real provider::

    with StubServer(latency=0.05, responder=likert_responder(seed=1),
                    faults=FaultPlan(rate_limit=0.1)) as srv:
        litellm.completion(model="openai/stub", api_base=srv.base_url, api_key="x", messages=[...])
        srv.stats.outcomes   # {"ok": ..., "429": ...}

The server binds to 127.0.0.1 only and runs on its own event loop in a background thread. It can also
run in the foreground as a separate process (``python -m debench.testing.stub_server --help``); the
first line it prints is the base URL.

Endpoints: ``POST /v1/chat/completions`` (also ``/chat/completions``), ``GET /v1/models`` (also
``/models``), OpenAI's Files and Batch endpoints (``/v1/files``, ``/v1/batches``: see
``debench.testing.stub_batches``), ``GET /health``, ``GET /_stub/stats`` (the statistics as JSON,
without request bodies), ``POST /_stub/reset`` (zero the statistics) and ``POST /_stub/config``
(change the latency, the fault plan, the simulated prompt cache or the batch plan of a running
server, see ``StubConfig``). Only the live completion endpoints are subject to latency and faults. ``StubProcess`` runs the server in a child process (so that a client in this
process does not share its interpreter) and drives it through these endpoints.

Faults are decided per completion request, in this order of precedence:

1. ``FaultPlan.script``: successive requests take the listed outcomes in order until the list is used up;
2. ``FaultPlan.fail_first_n_per_prompt``: the first N attempts of each distinct prompt get ``fail_kind``;
3. the rates (``rate_limit``, ``server_error``, ``drop``, ``slow``): one seeded draw per request, keyed on
   (seed, prompt key, attempt number of that prompt), so each prompt sees the same sequence of outcomes
   whatever order concurrent requests arrive in.

Otherwise the request succeeds. The fixed ``latency`` is slept before every completion response,
faults included; a ``slow`` outcome then sleeps ``slow_seconds`` more before answering normally.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import dataclasses
import hashlib
import itertools
import json
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field, model_validator

from debench.testing.stub_batches import BatchDesk, BatchPlan

__all__ = [
    "HOST",
    "LIKERT_TEMPLATES",
    "LIKERT_UNPARSEABLE",
    "BatchPlan",
    "FaultKind",
    "FaultPlan",
    "Outcome",
    "Responder",
    "StubConfig",
    "StubProcess",
    "StubServer",
    "StubStats",
    "cycle_responder",
    "fixed_responder",
    "likert_responder",
    "main",
    "prompt_key",
]

HOST = "127.0.0.1"
"""The only address the stub ever binds to."""

Outcome = Literal["ok", "429", "500", "drop", "slow", "401", "filtered"]
"""What the server does with one completion request (the values of ``FaultPlan.script``)."""
FaultKind = Literal["429", "500", "drop", "slow"]
Responder = Callable[[dict[str, Any]], str]
"""Maps the request JSON to the assistant's content."""

_JSON = "application/json"


# --------------------------------------------------------------------------------------------------
# Helpers


def prompt_key(messages: Any) -> str:
    """A stable short hash of a request's ``messages``: the key of per-prompt statistics and faults."""
    canonical = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def _unit_draw(*parts: object) -> float:
    """A deterministic number in [0, 1) derived from ``parts``."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def _words(content: Any) -> list[str]:
    """Whitespace words of a message content (a string or a list of OpenAI content parts)."""
    if isinstance(content, str):
        return content.split()
    if isinstance(content, list):
        return [w for part in content if isinstance(part, dict) for w in str(part.get("text", "")).split()]
    return []


def _count_words(content: Any) -> int:
    return len(_words(content))


class PrefixCache:
    """A simulated provider prompt cache: the stub's tokens are whitespace words, cached in blocks
    of ``BLOCK`` words; a prompt's cached tokens are its leading blocks that some earlier prompt
    also began with (an unbounded cache, as vLLM's prefix cache with room for everything)."""

    BLOCK = 16

    def __init__(self) -> None:
        self._seen: set[bytes] = set()
        self._lock = threading.Lock()

    def cached_tokens(self, messages: list[Any]) -> int:
        """Cached tokens of ``messages``, which are then remembered for later prompts."""
        words = [w for m in messages if isinstance(m, dict) for w in (f"<{m.get('role')}>", *_words(m.get("content")))]
        digest = b""
        hit, cached = True, 0
        with self._lock:
            for start in range(0, len(words) - self.BLOCK + 1, self.BLOCK):
                digest = hashlib.sha1(digest + " ".join(words[start : start + self.BLOCK]).encode()).digest()
                if hit and digest in self._seen:
                    cached += self.BLOCK
                else:
                    hit = False
                    self._seen.add(digest)
        return cached


# --------------------------------------------------------------------------------------------------
# Responders

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


# --------------------------------------------------------------------------------------------------
# Fault plan


class FaultPlan(BaseModel):
    """Which completion requests fail, and how. The default plan never fails.

    Rates are probabilities per request and must sum to at most 1. See the module docstring for the
    order in which ``script``, ``fail_first_n_per_prompt`` and the rates apply.
    """

    model_config = ConfigDict(extra="forbid")

    rate_limit: float = Field(default=0.0, ge=0.0, le=1.0, description="HTTP 429 with Retry-After")
    server_error: float = Field(default=0.0, ge=0.0, le=1.0, description="HTTP 500")
    drop: float = Field(default=0.0, ge=0.0, le=1.0, description="connection aborted, no response")
    slow: float = Field(default=0.0, ge=0.0, le=1.0, description="answer only after slow_seconds")
    seed: int = 0
    retry_after: str | None = Field(default="1", description="Retry-After header of a 429; None omits it")
    slow_seconds: float = Field(default=30.0, ge=0.0)
    script: list[Outcome] = Field(default_factory=list)
    fail_first_n_per_prompt: int = Field(default=0, ge=0)
    fail_kind: FaultKind = "429"

    @model_validator(mode="after")
    def _rates_sum_to_at_most_one(self) -> FaultPlan:
        if self.rate_limit + self.server_error + self.drop + self.slow > 1.0 + 1e-9:
            raise ValueError("fault rates must sum to at most 1")
        return self


class StubConfig(BaseModel):
    """The body of ``POST /_stub/config``: what to change on a running server (None = keep)."""

    model_config = ConfigDict(extra="forbid")

    latency: float | None = Field(default=None, ge=0.0)
    faults: FaultPlan | None = None
    prefix_cache: bool | None = None
    """True: report cached prompt tokens from a fresh simulated prompt cache (``PrefixCache``); False: none."""
    batch: BatchPlan | None = None
    """How batches created from now on are processed (``debench.testing.stub_batches``)."""


class _FaultState:
    """The mutable side of a ``FaultPlan``: script cursor and attempts per prompt."""

    def __init__(self, plan: FaultPlan) -> None:
        self.plan = plan
        self._script_pos = 0
        self._attempts: dict[str, int] = {}
        self._thresholds = tuple(itertools.accumulate((plan.rate_limit, plan.server_error, plan.drop, plan.slow)))
        self._any_rate = self._thresholds[-1] > 0

    def decide(self, key: str) -> Outcome:
        """The outcome of the next attempt of the prompt ``key``."""
        attempt = self._attempts.get(key, 0) + 1
        self._attempts[key] = attempt
        plan = self.plan
        if self._script_pos < len(plan.script):
            self._script_pos += 1
            return plan.script[self._script_pos - 1]
        if attempt <= plan.fail_first_n_per_prompt:
            return plan.fail_kind
        if self._any_rate:
            draw = _unit_draw(plan.seed, key, attempt)
            faults: tuple[Outcome, ...] = ("429", "500", "drop", "slow")
            for outcome, threshold in zip(faults, self._thresholds, strict=True):
                if draw < threshold:
                    return outcome
        return "ok"


# --------------------------------------------------------------------------------------------------
# Statistics


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


class _Recorder:
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


# --------------------------------------------------------------------------------------------------
# The aiohttp application


def _error_response(
    status: int, message: str, kind: str, code: str | None, headers: dict[str, str] | None = None
) -> web.Response:
    body = {"error": {"message": message, "type": kind, "param": None, "code": code}}
    return web.Response(status=status, body=json.dumps(body).encode(), content_type=_JSON, headers=headers)


class _StubCore:
    """Configuration, state and request handlers shared by the threaded server and the CLI."""

    def __init__(
        self,
        *,
        latency: float,
        responder: Responder,
        faults: FaultPlan,
        model: str,
        record_requests: bool,
        prefix_cache: bool = False,
        batch_endpoints: bool = True,
    ) -> None:
        if latency < 0:
            raise ValueError("latency must be >= 0")
        self.latency = latency
        self.prefix_cache: PrefixCache | None = PrefixCache() if prefix_cache else None
        self.batches = BatchDesk(self._answer)
        self.batch_endpoints = batch_endpoints
        self.responder = responder
        self.model = model
        self.recorder = _Recorder(record_requests)
        self._faults_lock = threading.Lock()
        self._faults = _FaultState(faults)
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def faults(self) -> FaultPlan:
        return self._faults.plan

    def set_faults(self, plan: FaultPlan) -> None:
        with self._faults_lock:
            self._faults = _FaultState(plan)

    def build_app(self) -> web.Application:
        app = web.Application()
        for prefix in ("/v1", ""):
            app.router.add_post(f"{prefix}/chat/completions", self._completions)
            app.router.add_get(f"{prefix}/models", self._models)
            if self.batch_endpoints:
                self.batches.routes(app, prefix)
        app.router.add_get("/health", self._health)
        app.router.add_get("/_stub/stats", self._stats)
        app.router.add_post("/_stub/reset", self._reset)
        app.router.add_post("/_stub/config", self._config)
        return app

    async def start(self, port: int) -> tuple[web.AppRunner, int]:
        """Serve on ``HOST:port`` (0 = a free port); returns the runner and the bound port."""
        runner = web.AppRunner(self.build_app(), access_log=None, shutdown_timeout=0.5)
        await runner.setup()
        site = web.TCPSite(runner, HOST, port, backlog=2048)
        await site.start()
        return runner, runner.addresses[0][1]

    async def close(self, runner: web.AppRunner) -> None:
        """Cancel the handlers still running (slow requests) and stop serving."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.batches.close()
        await runner.cleanup()

    # -- handlers --------------------------------------------------------------------------------

    async def _health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

    def stats(self) -> StubStats:
        snap = self.recorder.snapshot()
        return dataclasses.replace(snap, batches_created=self.batches.n_batches_created)

    async def _stats(self, request: web.Request) -> web.Response:
        return web.json_response(self.stats().to_json())

    async def _reset(self, request: web.Request) -> web.Response:
        self.recorder.reset()
        return web.json_response({"status": "ok"})

    async def _config(self, request: web.Request) -> web.Response:
        """Reconfigure a running server: ``{"latency": seconds, "faults": {FaultPlan fields}}``."""
        try:
            update = StubConfig.model_validate_json(await request.read())
        except ValueError as exc:
            return _error_response(400, str(exc).splitlines()[0], "invalid_request_error", None)
        if update.latency is not None:
            self.latency = update.latency
        if update.faults is not None:
            self.set_faults(update.faults)
        if update.prefix_cache is not None:
            self.prefix_cache = PrefixCache() if update.prefix_cache else None
        if update.batch is not None:
            self.batches.plan = update.batch
        return web.json_response(
            {"latency": self.latency, "faults": self.faults.model_dump(), "prefix_cache": self.prefix_cache is not None}
        )

    async def _models(self, request: web.Request) -> web.Response:
        entry = {"id": self.model, "object": "model", "created": 0, "owned_by": "debench-stub"}
        return web.json_response({"object": "list", "data": [entry]})

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        self.recorder.enter()
        try:
            return await self._complete(request)
        finally:
            self.recorder.leave()
            self._tasks.discard(task)

    def _bad_request(self, message: str, param: str | None = None) -> web.Response:
        self.recorder.outcome("400")
        code = "unsupported_parameter" if param == "stream" else None
        return _error_response(400, message, "invalid_request_error", code)

    async def _complete(self, request: web.Request) -> web.StreamResponse:
        try:
            body = json.loads(await request.read())
        except (ValueError, UnicodeDecodeError):
            return self._bad_request("The request body is not valid JSON.")
        if not isinstance(body, dict):
            return self._bad_request("The request body must be a JSON object.")
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages:
            return self._bad_request("'messages' must be a non-empty list.", "messages")
        if not isinstance(body.get("model"), str):
            return self._bad_request("'model' must be a string.", "model")
        if body.get("stream"):
            return self._bad_request("This stub server does not support stream=true.", "stream")

        key = prompt_key(messages)
        self.recorder.request(key, body)
        with self._faults_lock:
            faults = self._faults
            outcome = faults.decide(key)
        self.recorder.outcome(outcome)

        if self.latency:
            await asyncio.sleep(self.latency)
        if outcome == "429":
            headers = {"Retry-After": faults.plan.retry_after} if faults.plan.retry_after else None
            return _error_response(
                429,
                "Rate limit reached (simulated by the debench stub server).",
                "rate_limit_error",
                "rate_limit_exceeded",
                headers,
            )
        if outcome == "500":
            return _error_response(
                500, "The server had an error (simulated by the debench stub server).", "server_error", None
            )
        if outcome == "401":  # like a provider that names the key it was given in its error
            given = request.headers.get("Authorization", "").removeprefix("Bearer ")
            return _error_response(
                401, f"Incorrect API key provided: {given}.", "invalid_request_error", "invalid_api_key"
            )
        if outcome == "filtered":  # a content filter's refusal of one prompt (a per-sample error), naming the key too
            given = request.headers.get("Authorization", "").removeprefix("Bearer ")
            return _error_response(
                400, f"Request flagged by the content_filter (key {given}).", "invalid_request_error", "content_filter"
            )
        if outcome == "drop":
            if request.transport is not None:
                request.transport.abort()
            return web.Response()  # never sent: aiohttp drops writes to an aborted transport
        if outcome == "slow":
            await asyncio.sleep(faults.plan.slow_seconds)

        try:
            content = self.responder(body)
        except Exception as exc:  # noqa: BLE001 - a broken responder is a test bug: make it visible to the client
            self.recorder.outcome("responder_error")
            return _error_response(500, f"responder failed: {exc!r}", "server_error", "responder_error")
        return web.Response(body=self._completion_json(body, messages, content), content_type=_JSON)

    def _answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """One request of a batch: answered like a live one, without latency or faults."""
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages or not isinstance(body.get("model"), str):
            return 400, {
                "error": {
                    "message": "'model' and a non-empty 'messages' are required.",
                    "type": "invalid_request_error",
                    "param": None,
                    "code": None,
                }
            }
        try:
            content = self.responder(body)
        except Exception as exc:  # noqa: BLE001 - a broken responder is a test bug: visible in the error file
            return 500, {
                "error": {
                    "message": f"responder failed: {exc!r}",
                    "type": "server_error",
                    "param": None,
                    "code": "responder_error",
                }
            }
        return 200, json.loads(self._completion_json(body, messages, content))

    def _completion_json(self, body: dict[str, Any], messages: list[Any], content: str) -> bytes:
        prompt_tokens = sum(_count_words(m.get("content")) for m in messages if isinstance(m, dict))
        completion_tokens = len(content.split())
        cached = min(self.prefix_cache.cached_tokens(messages), prompt_tokens) if self.prefix_cache is not None else 0
        self.recorder.tokens(prompt_tokens, cached)
        return json.dumps(
            {
                "id": f"chatcmpl-stub-{next(self._ids)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body["model"],
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
                    "prompt_tokens_details": {"cached_tokens": cached},
                },
            }
        ).encode()


# --------------------------------------------------------------------------------------------------
# The threaded server


class StubServer:
    """The stub server on its own event loop in a background thread; use it as a context manager.

    ``port=0`` picks a free port. ``responder`` defaults to ``likert_responder()``, ``faults`` to a
    plan without faults. ``record_requests=False`` keeps no request bodies (for benchmarks).
    ``batch_endpoints=False`` serves no Files and Batch endpoints (a server ``--batch`` cannot use).
    """

    def __init__(
        self,
        *,
        port: int = 0,
        latency: float = 0.0,
        responder: Responder | None = None,
        faults: FaultPlan | None = None,
        model: str = "stub",
        record_requests: bool = True,
        prefix_cache: bool = False,
        batch: BatchPlan | None = None,
        batch_endpoints: bool = True,
    ) -> None:
        self._core = _StubCore(
            latency=latency,
            responder=responder or likert_responder(),
            faults=faults or FaultPlan(),
            model=model,
            record_requests=record_requests,
            prefix_cache=prefix_cache,
            batch_endpoints=batch_endpoints,
        )
        if batch is not None:
            self._core.batches.plan = batch
        self._requested_port = port
        self._port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._startup_error: BaseException | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> StubServer:
        """Start serving; returns once the port is bound (or raises the bind error)."""
        if self._thread is not None:
            raise RuntimeError("StubServer already started")
        self._ready.clear()
        self._thread = threading.Thread(target=self._run, name="debench-stub-server", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._startup_error is not None:
            self._thread.join()
            self._thread = None
            raise self._startup_error
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving, cancel in-flight requests and join the thread. Idempotent."""
        thread, loop = self._thread, self._loop
        if thread is None or loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop may already be closed
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)
        if thread.is_alive():
            raise RuntimeError("stub server thread did not stop")
        self._thread = None
        self._loop = None
        self._port = None

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            try:
                runner, self._port = loop.run_until_complete(self._core.start(self._requested_port))
            except BaseException as exc:  # noqa: BLE001 - reported to start() in the caller's thread
                self._startup_error = exc
                return
            finally:
                self._ready.set()
            try:
                loop.run_forever()
            finally:
                loop.run_until_complete(self._core.close(runner))
        finally:
            _drain_and_close(loop)

    # -- access ----------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("StubServer is not running")
        return self._port

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT`` (where ``/health`` lives)."""
        return f"http://{HOST}:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, ``http://127.0.0.1:PORT/v1``."""
        return f"{self.root_url}/v1"

    @property
    def stats(self) -> StubStats:
        """A consistent snapshot of the statistics (safe from any thread)."""
        return self._core.stats()

    def reset_stats(self) -> None:
        """Zero the statistics (fault state such as the script position is kept)."""
        self._core.recorder.reset()

    @property
    def faults(self) -> FaultPlan:
        return self._core.faults

    def set_faults(self, plan: FaultPlan) -> None:
        """Replace the fault plan; its script and per-prompt attempt counts start afresh."""
        self._core.set_faults(plan)

    def set_batch_plan(self, plan: BatchPlan) -> None:
        """How batches created from now on are processed."""
        self._core.batches.plan = plan

    @property
    def batch_desk(self) -> BatchDesk:
        """The server's files and batches (read them in tests)."""
        return self._core.batches

    @property
    def latency(self) -> float:
        return self._core.latency

    @latency.setter
    def latency(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("latency must be >= 0")
        self._core.latency = seconds


def _drain_and_close(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel leftover tasks, stop the default executor and close ``loop``."""
    try:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
    finally:
        loop.close()


# --------------------------------------------------------------------------------------------------
# The server in a child process


class StubProcess:
    """The stub server in a child process (``python -m debench.testing.stub_server``).

    Benchmarks use it so that the server never competes with the client for one interpreter.
    ``args`` are extra CLI arguments (e.g. ``["--seed", "3"]``). Statistics, latency and faults are
    read and changed over HTTP; ``stats`` carries no request bodies.
    """

    def __init__(self, *, latency: float = 0.0, args: Sequence[str] = (), python: str | None = None) -> None:
        self._cmd = [python or sys.executable, "-m", "debench.testing.stub_server", "--latency", str(latency), *args]
        self._proc: subprocess.Popen[str] | None = None
        self.base_url = ""

    def start(self) -> StubProcess:
        self._proc = subprocess.Popen(self._cmd, stdout=subprocess.PIPE, text=True)
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline().strip()
        if not line.startswith("http://"):
            self.stop()
            raise RuntimeError(f"stub server did not start (printed {line!r})")
        self.base_url = line
        return self

    @property
    def pid(self) -> int:
        assert self._proc is not None
        return self._proc.pid

    @property
    def root_url(self) -> str:
        return self.base_url.removesuffix("/v1")

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.root_url + path, data=data, method=method, headers={"content-type": _JSON})
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())

    @property
    def stats(self) -> StubStats:
        raw = self._call("GET", "/_stub/stats")
        raw.pop("window_s", None)
        return StubStats(**raw)

    def reset_stats(self) -> None:
        self._call("POST", "/_stub/reset", {})

    def configure(
        self,
        *,
        latency: float | None = None,
        faults: FaultPlan | None = None,
        prefix_cache: bool | None = None,
        batch: BatchPlan | None = None,
    ) -> None:
        update = StubConfig(latency=latency, faults=faults, prefix_cache=prefix_cache, batch=batch)
        self._call("POST", "/_stub/config", update.model_dump(mode="json"))

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()

    def __enter__(self) -> StubProcess:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


# --------------------------------------------------------------------------------------------------
# Command line


def _parse_responder(spec: str, seed: int, unparseable_rate: float) -> Responder:
    if spec == "likert":
        return likert_responder(seed, unparseable_rate)
    if spec.startswith("fixed:"):
        return fixed_responder(spec.removeprefix("fixed:"))
    if spec.startswith("cycle:"):
        return cycle_responder(spec.removeprefix("cycle:").split("|"))
    raise argparse.ArgumentTypeError(f"unknown responder {spec!r} (likert | fixed:TEXT | cycle:A|B|...)")


def _build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m debench.testing.stub_server",
        description="Run the debench OpenAI-compatible stub server on 127.0.0.1 in the foreground. "
        "Prints the base URL on the first line of stdout.",
    )
    p.add_argument("--port", type=int, default=0, help="port to bind (0 = a free port)")
    p.add_argument("--latency", type=float, default=0.0, help="seconds slept before every completion")
    p.add_argument("--model", default="stub", help="model id listed by /v1/models")
    p.add_argument("--responder", default="likert", help="likert | fixed:TEXT | cycle:A|B|... (default likert)")
    p.add_argument("--seed", type=int, default=0, help="seed of the likert responder and of the faults")
    p.add_argument("--unparseable-rate", type=float, default=0.1, help="likert answers without a score")
    p.add_argument("--fault-rate-429", type=float, default=0.0, help="fraction answered 429")
    p.add_argument("--fault-rate-500", type=float, default=0.0, help="fraction answered 500")
    p.add_argument("--fault-rate-drop", type=float, default=0.0, help="fraction of aborted connections")
    p.add_argument("--fault-rate-slow", type=float, default=0.0, help="fraction answered after --slow-seconds")
    p.add_argument("--retry-after", default="1", help="Retry-After header of 429s ('' omits it)")
    p.add_argument("--slow-seconds", type=float, default=30.0)
    p.add_argument("--script", default="", help="comma-separated outcomes for the first requests, e.g. 429,ok,drop")
    p.add_argument("--fail-first-n", type=int, default=0, help="first N attempts of each prompt fail")
    p.add_argument("--fail-kind", default="429", choices=["429", "500", "drop", "slow"])
    p.add_argument("--record-requests", action="store_true", help="keep request bodies (memory grows)")
    p.add_argument(
        "--prefix-cache", action="store_true", help="report cached prompt tokens from a simulated prompt cache"
    )
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the stub in the foreground until SIGINT / SIGTERM."""
    parser = _build_parser()
    args = parser.parse_args(argv)
    try:
        responder = _parse_responder(args.responder, args.seed, args.unparseable_rate)
        faults = FaultPlan(
            rate_limit=args.fault_rate_429,
            server_error=args.fault_rate_500,
            drop=args.fault_rate_drop,
            slow=args.fault_rate_slow,
            seed=args.seed,
            retry_after=args.retry_after or None,
            slow_seconds=args.slow_seconds,
            script=[s.strip() for s in args.script.split(",") if s.strip()],
            fail_first_n_per_prompt=args.fail_first_n,
            fail_kind=args.fail_kind,
        )
        core = _StubCore(
            latency=args.latency,
            responder=responder,
            faults=faults,
            model=args.model,
            record_requests=args.record_requests,
            prefix_cache=args.prefix_cache,
        )
    except (ValueError, argparse.ArgumentTypeError) as exc:
        parser.error(str(exc).replace("\n", " "))
    asyncio.run(_serve_until_signalled(core, args.port))
    return 0


async def _serve_until_signalled(core: _StubCore, port: int) -> None:
    runner, bound = await core.start(port)
    print(f"http://{HOST}:{bound}/v1", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await core.close(runner)


if __name__ == "__main__":
    sys.exit(main())
