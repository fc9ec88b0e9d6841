"""The stub server's request handling (``debench.testing.stub_server``): the aiohttp application,
its configuration and state, shared by the threaded server and the command line.

A completion request is checked (400 otherwise), its outcome decided by the fault plan
(``debench.testing.stub_faults``), the fixed ``latency`` slept (faults included), then it is
answered: with the fault's error, not at all (``drop``), or with the responder's content (after
``slow_seconds`` more for ``slow``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import threading
from typing import Any

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field

from debench.testing.stub_answers import Responder, completion_body, error_body
from debench.testing.stub_batches import BatchDesk, BatchPlan
from debench.testing.stub_faults import FaultPlan, FaultState, Outcome
from debench.testing.stub_prompts import PrefixCache, prompt_key, prompt_tokens
from debench.testing.stub_stats import Recorder, StubStats

HOST = "127.0.0.1"
"""The only address the stub ever binds to."""

_JSON = "application/json"


class StubConfig(BaseModel):
    """The body of ``POST /_stub/config``: what to change on a running server (None = keep)."""

    model_config = ConfigDict(extra="forbid")

    latency: float | None = Field(default=None, ge=0.0)
    faults: FaultPlan | None = None
    prefix_cache: bool | None = None
    """True: report cached prompt tokens from a fresh simulated prompt cache (``PrefixCache``); False: none."""
    batch: BatchPlan | None = None
    """How batches created from now on are processed (``debench.testing.stub_batches``)."""


def _json_response(status: int, body: dict[str, Any], headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(status=status, body=json.dumps(body).encode(), content_type=_JSON, headers=headers)


def _error_response(
    status: int, message: str, kind: str, code: str | None, headers: dict[str, str] | None = None
) -> web.Response:
    return _json_response(status, error_body(message, kind, code), headers)


def _invalid(body: Any) -> tuple[str, str | None] | None:
    """Why a completion request's JSON cannot be answered (message, parameter), or None."""
    if not isinstance(body, dict):
        return "The request body must be a JSON object.", None
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must be a non-empty list.", "messages"
    if not isinstance(body.get("model"), str):
        return "'model' must be a string.", "model"
    if body.get("stream"):
        return "This stub server does not support stream=true.", "stream"
    return None


def _fault_response(outcome: Outcome, plan: FaultPlan, request: web.Request) -> web.Response | None:
    """The answer of a failing outcome (None: the request is answered, ``slow`` ones too)."""
    given = request.headers.get("Authorization", "").removeprefix("Bearer ")
    if outcome == "429":
        headers = {"Retry-After": plan.retry_after} if plan.retry_after else None
        message = "Rate limit reached (simulated by the debench stub server)."
        return _error_response(429, message, "rate_limit_error", "rate_limit_exceeded", headers)
    if outcome == "500":
        message = "The server had an error (simulated by the debench stub server)."
        return _error_response(500, message, "server_error", None)
    if outcome == "400":  # a provider that refuses one prompt as malformed (no content-filter marker)
        return _error_response(
            400, "Invalid request: the prompt could not be processed.", "invalid_request_error", None
        )
    if outcome == "401":  # like a provider that names the key it was given in its error
        return _error_response(401, f"Incorrect API key provided: {given}.", "invalid_request_error", "invalid_api_key")
    if outcome == "filtered":  # a content filter's refusal of one prompt (a per-sample error), naming the key too
        message = f"Request flagged by the content_filter (key {given})."
        return _error_response(400, message, "invalid_request_error", "content_filter")
    if outcome == "drop":
        if request.transport is not None:
            request.transport.abort()
        return web.Response()  # never sent: aiohttp drops writes to an aborted transport
    return None


class StubCore:
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
        self.recorder = Recorder(record_requests)
        self._faults_lock = threading.Lock()
        self._faults = FaultState(faults)
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def faults(self) -> FaultPlan:
        return self._faults.plan

    def set_faults(self, plan: FaultPlan) -> None:
        with self._faults_lock:
            self._faults = FaultState(plan)

    def stats(self) -> StubStats:
        snap = self.recorder.snapshot()
        return dataclasses.replace(snap, batches_created=self.batches.n_batches_created)

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

    # -- the stub's own endpoints ----------------------------------------------------------------

    async def _health(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})

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

    # -- OpenAI's endpoints ----------------------------------------------------------------------

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
        problem = _invalid(body)
        if problem is not None:
            return self._bad_request(*problem)
        messages = body["messages"]
        key = prompt_key(messages)
        self.recorder.request(key, body)
        with self._faults_lock:
            faults = self._faults
            # the messages' text only for a plan that refuses by content (a few KiB joined per request)
            text = (
                "\n".join(str(m.get("content", "")) for m in messages if isinstance(m, dict))
                if faults.plan.refuse
                else ""
            )
            outcome = faults.decide(key, text)
        self.recorder.outcome(outcome)

        if self.latency:
            await asyncio.sleep(self.latency)
        failed = _fault_response(outcome, faults.plan, request)
        if failed is not None:
            return failed
        if outcome == "slow":
            await asyncio.sleep(faults.plan.slow_seconds)
        status, answer = self._respond(body, messages)
        if status != 200:
            self.recorder.outcome("responder_error")
        return _json_response(status, answer)

    def _answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """One request of a batch: answered like a live one, without latency or faults."""
        messages = body.get("messages")
        if not isinstance(messages, list) or not messages or not isinstance(body.get("model"), str):
            return 400, error_body("'model' and a non-empty 'messages' are required.")
        return self._respond(body, messages)

    def _respond(self, body: dict[str, Any], messages: list[Any]) -> tuple[int, dict[str, Any]]:
        """A valid request's answer: the responder's content, or a 500 when the responder raises."""
        try:
            content = self.responder(body)
        except Exception as exc:  # noqa: BLE001 - a broken responder is a test bug: make it visible to the client
            return 500, error_body(f"responder failed: {exc!r}", "server_error", "responder_error")
        prompt = prompt_tokens(messages)
        cached = min(self.prefix_cache.cached_tokens(messages), prompt) if self.prefix_cache is not None else 0
        self.recorder.tokens(prompt, cached)
        return 200, completion_body(f"chatcmpl-stub-{next(self._ids)}", body["model"], content, prompt, cached)
