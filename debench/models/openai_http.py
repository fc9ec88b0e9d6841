"""A lean direct client for one OpenAI-compatible server: ``openai/<name> --api-base URL``.

The default for that model string (``--model-args client=litellm`` selects litellm instead). It
posts to ``<api base>/chat/completions`` over debench's own keep-alive connections
(``http_client``) and behaves like the litellm path in everything the harness relies on:

* the same retry loop (``retry.call_with_retries``): 429 / 408 / 409 / 5xx, dropped connections,
  timeouts and unreadable answers are transient (retried with backoff honouring ``Retry-After``
  and ``retry-after-ms``, capped by ``max_retries`` and ``max_delay``); a refused connection is
  retried for ``connect_grace`` seconds, then the run stops naming the URL, as it does at once on
  a 404; other 4xx fail their sample at once; a context-length error becomes
  ``ContextOverflow`` (the sample is *not completed*);
* a per-request ``timeout``; the api key from ``--api-key`` or ``OPENAI_API_KEY`` (local servers
  get a placeholder);
* the same request body litellm sends (``extra_body`` and the GBNF ``grammar`` merged into it),
  the server's usage, and the cost and context window from debench's snapshot of the OpenAI rows
  of litellm's model table (``price_table.py``) when the model is in it, else ``cost: null``;
* the same ``identity``, so cache keys and run fingerprints do not depend on the client.

Why it exists: on 2 cores litellm's per-call overhead (~4 ms: a thread hop, the OpenAI SDK's
request transforms, cost bookkeeping) caps a run at ~250 requests/s and its import costs ~200 MB,
so a fast server at high concurrency waited on the harness (see ``benchmarks/``).
"""

from __future__ import annotations

import json
import os
import random
from typing import Any

import pydantic_core

from debench.data.prompts import Message
from debench.models.base import Model, ModelResponse, Request, Usage
from debench.models.http_client import HTTPEndpoint
from debench.models.http_errors import (  # noqa: F401 - re-exported: the client's errors
    HTTPStatusError,
    MalformedResponse,
    classify_http_exception,
    error_message,
    http_error,
)
from debench.models.price_table import ModelPrice, lookup
from debench.models.retry import RetryPolicy, call_with_retries

CONNECT_TIMEOUT_S = 10.0
"""A connection not accepted within this is an unreachable endpoint (retried for the grace period)."""


class OpenAIHTTPModel(Model):
    kind = "openai-http"

    def __init__(
        self,
        name: str,
        *,
        api_base: str,
        served_name: str | None = None,
        api_key: str | None = None,
        retry: RetryPolicy | None = None,
        send_grammar: bool = False,
        context_window: int | None = None,
        extra: dict[str, Any] | None = None,
        generation: dict[str, Any] | None = None,
        seed: int = 0,
    ):
        if served_name is None and not name.startswith("openai/"):
            raise ValueError("the direct HTTP client serves openai/<name> model strings (or a served_name)")
        self.name = name
        self.base_name = name
        self.served_name = served_name if served_name is not None else name.removeprefix("openai/")
        self.generation_overrides = dict(generation or {})
        self.api_base = api_base.rstrip("/")
        self.url = self.api_base + "/chat/completions"
        self.retry = retry or RetryPolicy()
        self.send_grammar = send_grammar
        self._context_window = context_window
        self.extra = dict(extra or {})
        self._rng = random.Random(seed)
        self._headers = {
            "Authorization": f"Bearer {api_key or os.environ.get('OPENAI_API_KEY') or 'sk-no-key-needed'}",
            "Content-Type": "application/json",
        }
        self._price: ModelPrice | None = lookup(name)
        self._endpoint = self._new_endpoint()

    def identity(self) -> dict[str, Any]:
        # The same as LiteLLMModel's: the client does not change the answer.
        ident: dict[str, Any] = {"name": self.base_name, "send_grammar": self.send_grammar, "api_base": [self.api_base]}
        if self.extra:
            ident["extra"] = self.extra
        return self.with_generation(ident)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "client": "http"}

    def context_window(self) -> int | None:
        if self._context_window is not None:
            return self._context_window
        return self._price.context_window if self._price else None

    def count_tokens(self, messages: list[Message]) -> int | None:
        # Only asked when a context window is known (a model in litellm's table): count as litellm does.
        try:
            import litellm

            return int(litellm.token_counter(model=self.name, messages=messages))
        except Exception:  # noqa: BLE001 - a model litellm cannot count for: the context check is skipped
            return None

    def batch_body(self, request: Request) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.served_name,
            "messages": request.messages,
            **request.generation.sampling(),
        }
        body.update(self.extra.get("extra_body", {}))
        if self.send_grammar and request.grammar_text:
            body["grammar"] = request.grammar_text
        return body

    def _body(self, request: Request) -> bytes:
        """The request's JSON, by pydantic-core's serializer (compact; a fifth of ``json.dumps``'s CPU
        on a long prompt, which the event loop spends once per request); what it cannot write (a
        lone surrogate) goes through ``json.dumps``, which fails on it as it always did."""
        body = self.batch_body(request)
        try:
            return pydantic_core.to_json(body, inf_nan_mode="constants")
        except pydantic_core.PydanticSerializationError:
            return json.dumps(body, ensure_ascii=False).encode("utf-8")

    def batch_api(self) -> Any:
        from debench.models.batch_api import HTTPBatchAPI

        return HTTPBatchAPI(self.api_base, self._headers["Authorization"].removeprefix("Bearer "), self.retry)

    def batch_cost(self, usage: Usage) -> float | None:
        """An answer's price through the batch API (the table's batch rates)."""
        return self._price.cost(usage, batch=True) if self._price else None

    def _new_endpoint(self) -> HTTPEndpoint:
        return HTTPEndpoint(self.url, self._headers, timeout=self.retry.timeout, connect_timeout=CONNECT_TIMEOUT_S)

    def _current_endpoint(self) -> HTTPEndpoint:
        """The connections to the model's URL as it is now: a server debench starts (``vllm``) has
        its URL once it has started, after the model was built."""
        if self._endpoint.url != self.url:
            self._endpoint.close()
            self._endpoint = self._new_endpoint()
        return self._endpoint

    async def _post(self, body: bytes) -> dict[str, Any]:
        resp = await self._current_endpoint().post(body)
        if resp.status != 200:
            raise http_error(resp.status, error_message(resp.body), resp.headers)
        try:
            data: dict[str, Any] = json.loads(resp.body)
            data["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise MalformedResponse(f"unreadable completion: {resp.body[:200]!r}") from exc
        return data

    async def generate(self, request: Request) -> ModelResponse:
        body = self._body(request)
        data, attempts = await call_with_retries(
            lambda: self._post(body),
            policy=self.retry,
            rng=self._rng,
            classify=classify_http_exception,
            where=f"POST {self.url}",
        )
        u = Usage.of(data.get("usage"))
        cost = self._price.cost(u) if self._price else None
        return ModelResponse(
            text=data["choices"][0]["message"].get("content"), usage=u, cost_usd=cost, attempts=attempts
        )

    async def aclose(self) -> None:
        """Release the idle connections (the next call opens new ones)."""
        self._endpoint.close()
