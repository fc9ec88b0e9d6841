"""Retry policy: exponential backoff with jitter, honouring Retry-After, capped; and the one retry
loop every network model uses (litellm, the direct HTTP client, the batch clients), so that all
classify, wait, cap and count attempts the same way.

Failure kinds (``FailureKind``), decided by each client's ``classify``:

* ``transient`` (429, 408, 409, 5xx, a dropped connection, a timeout): retried with backoff, at
  most ``max_retries`` times, then the sample is an error (``TransientModelError``);
* ``unreachable`` (nothing accepts the connection: refused, unknown host): retried only for
  ``connect_grace`` seconds (default 20) in case the server is starting, then the run stops with
  one line naming the URL (``EndpointError``, exit code 2);
* ``fatal`` (the endpoint cannot work: a missing or rejected key, no credit, a 404 for its path or
  model, a 501: ``classify_status``): the run stops at once, one line naming the URL and the status
  (``EndpointError``);
* ``refused`` (a 400 or 422: the request was malformed as the endpoint judges it):
  ``RefusedRequest``, an ``EndpointError`` the runner decides on (``run.runner``): before the
  endpoint has answered any request of the run it stops the run like a fatal answer (every request
  is built the same way, so every one would be refused); after, it is that document's error;
* ``context`` (the prompt does not fit): the sample is *not completed*;
* ``permanent`` (anything else: a content filter's refusal, a bug): the sample is an error at once.

Every exception raised here carries ``attempts``: the requests that call made.
"""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from debench.core.errors import UserError
from debench.models.base import ContextOverflow, PermanentModelError

log = logging.getLogger(__name__)

T = TypeVar("T")
FailureKind = Literal["context", "permanent", "transient", "unreachable", "fatal", "refused"]

TRANSIENT_STATUS = frozenset({408, 409, 429})
"""HTTP statuses retried besides 5xx: timeout, conflict, rate limit."""
FATAL_STATUS = frozenset({401, 402, 403, 404, 405, 501})
"""Answers no request to this endpoint can get past: a missing or rejected key (401, 403), no credit
(402), a path or model the server does not have (404, 405), a method it does not implement (501).
The run stops at the first one with one line naming the URL and the status (exit code 2; finished
work is kept)."""
REFUSED_STATUS = frozenset({400, 422})
"""A request the endpoint judged malformed: fatal while it has answered no request of the run (the
requests are all built the same way), that document's error once it has (a provider that refuses
one document's prompt)."""
FATAL_MARKERS = (
    "insufficient_quota",
    "billing_hard_limit",
    "exceeded your current quota",
    "missing credentials",
    "api_key client option must be set",
)
"""Lower-case fragments of an error (with any status) no retry can get past: no credit left
(OpenAI sends it with a 429), or no key at all (the OpenAI client's own refusal, which litellm
reports as a 500)."""
PER_SAMPLE_MARKERS = (
    "content_policy",
    "content_filter",
    "content management policy",
    "safety system",
    "invalid_prompt",
)
"""Lower-case fragments of a 400 that concern one prompt's content (a provider's content filter):
that sample fails, the others can still be answered."""
TRANSIENT_EXCEPTIONS: tuple[type[BaseException], ...] = (TimeoutError, asyncio.TimeoutError, ConnectionError)
"""Failures of the network itself (a refused or dropped connection, a timeout), in any client."""
CONTEXT_MARKERS = (
    "context_length_exceeded",
    "maximum context length",
    "context window",
    "context size",
    "exceed_context_size",
    "too many tokens",
    "prompt is too long",
    "input is too long",
)
"""Lower-case fragments of a 400 answer that mean "the prompt does not fit" (OpenAI, vLLM, llama.cpp)."""


def classify_status(status: int, message: str = "") -> FailureKind:
    """What an HTTP error answer is, in every client (the one place failure classes are decided):

    * a 400 or 413 whose message says the prompt does not fit: ``context`` (that sample is not
      completed); a 400 from a content filter: ``permanent`` (that sample fails);
    * no credit left (``insufficient_quota``, with any status) and ``FATAL_STATUS`` (401, 402,
      403, 404, 405, 501): ``fatal``, the run stops at once;
    * ``REFUSED_STATUS`` (400, 422): ``refused`` (see ``RefusedRequest``);
    * 429 / 408 / 409 / other 5xx: ``transient``, retried;
    * anything else (another 4xx): ``permanent``."""
    lower = message.lower()
    if status in (400, 413) and any(m in lower for m in CONTEXT_MARKERS):
        return "context"
    if status == 400 and any(m in lower for m in PER_SAMPLE_MARKERS):
        return "permanent"
    if status in FATAL_STATUS or any(m in lower for m in FATAL_MARKERS):
        return "fatal"
    if status in REFUSED_STATUS:
        return "refused"
    if status in TRANSIENT_STATUS or status >= 500:
        return "transient"
    return "permanent"


class TransientModelError(Exception):
    """A transient failure (rate limit, 5xx, dropped connection, timeout) still failing at the cap."""


class EndpointError(UserError):
    """An endpoint that cannot work (nothing listening past the grace period, a 404 for its path):
    the run stops with one line naming it (exit code 2); finished work is kept. Its message is
    redacted (a server's answer may echo the key it was sent)."""

    def __init__(self, message: str):
        from debench.core.redact import Redactor

        super().__init__(Redactor().text(message))


class RefusedRequest(EndpointError):
    """A 400 or 422: fatal while the endpoint has answered no request of the run, else that
    document's error (``run.runner`` decides)."""


def unreachable(exc: BaseException) -> bool:
    """Nothing accepted the connection (refused, unknown host, connect timeout), in any client:
    debench's own (``http_client``), aiohttp's (the batch client), httpx's (litellm) or the
    socket's own error, anywhere in the exception's chain. aiohttp's and httpx's classes are looked
    at only when they are loaded: none of their exceptions can exist otherwise."""
    import socket

    from debench.models.http_response import ConnectTimeout

    kinds: tuple[type[BaseException], ...] = (ConnectionRefusedError, socket.gaierror, ConnectTimeout)
    ssl: tuple[type[BaseException], ...] = ()
    aiohttp, httpx = sys.modules.get("aiohttp"), sys.modules.get("httpx")
    if aiohttp is not None:
        kinds += (aiohttp.ClientConnectorError, aiohttp.ConnectionTimeoutError)
        ssl = (aiohttp.ClientSSLError,)
    if httpx is not None:
        kinds += (httpx.ConnectError, httpx.ConnectTimeout)
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, kinds) and not isinstance(cur, ssl):
            return True
        cur = cur.__cause__ or cur.__context__
    return False


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 6
    """Retries after the first attempt (so at most ``max_retries + 1`` requests per sample)."""
    base_delay: float = 1.0
    max_delay: float = 60.0
    """Cap on any single wait, including a server's Retry-After."""
    timeout: float = 120.0
    """Per-request timeout in seconds."""
    connect_grace: float = 20.0
    """Seconds a request keeps retrying an endpoint that refuses connections (a server still
    starting) before the run stops with one line naming it."""

    def backoff(self, attempt: int, rng: random.Random, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based)."""
        if retry_after is not None and retry_after >= 0:
            # The server said when to come back: wait that long (plus a little jitter), capped.
            return min(self.max_delay, retry_after + rng.uniform(0, 0.1 * max(retry_after, 0.1)))
        exp = self.base_delay * (2 ** (attempt - 1))
        # "Full jitter" on the upper half keeps retries of concurrent samples apart.
        return min(self.max_delay, rng.uniform(exp / 2, exp))


def parse_retry_after(value: str | None) -> float | None:
    """A Retry-After header value (seconds or an HTTP date) in seconds, or None."""
    if value is None:
        return None
    value = str(value).strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def retry_after_from_headers(headers: Any) -> float | None:
    """Seconds to wait from a response's headers (any mapping, names in any case): ``retry-after-ms``
    first, then ``Retry-After`` (seconds or an HTTP date); None when neither is readable."""
    try:
        named = {str(k).lower(): v for k, v in headers.items()}
    except (AttributeError, TypeError, ValueError):
        return None
    try:
        if "retry-after-ms" in named:
            return max(0.0, float(named["retry-after-ms"]) / 1000.0)
    except (TypeError, ValueError):
        pass
    return parse_retry_after(named.get("retry-after"))


def retry_after_from_exception(exc: BaseException) -> float | None:
    """The Retry-After of a failed request, from the headers an exception carries: debench's own
    HTTP client's (``http_errors.HTTPStatusError.headers``) or litellm / openai / httpx's."""
    response = getattr(exc, "response", None)
    for headers in (
        getattr(exc, "litellm_response_headers", None),
        getattr(exc, "headers", None),
        getattr(response, "headers", None),
    ):
        if headers:
            wait = retry_after_from_headers(headers)
            if wait is not None:
                return wait
    return None


_ANSWERED: set[str] = set()
"""The endpoints (``where``) that have answered a request in this process: a timeout from one that
never did is not a slow answer but a server that does not answer (see ``_give_up``)."""


def is_timeout(exc: BaseException) -> bool:
    """A request that ran out of time, in any client (asyncio's, aiohttp's, httpx's, litellm's or
    openai's timeout classes), anywhere in the exception's chain."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        seen.add(id(cur))
        if isinstance(cur, (TimeoutError, asyncio.TimeoutError)) or any(
            "Timeout" in t.__name__ for t in type(cur).__mro__
        ):
            return True
        cur = cur.__cause__ or cur.__context__
    return False


def _describe(exc: BaseException, policy: RetryPolicy, limit: int) -> str:
    """``Type: first line`` of a failure; a timeout says which timeout and its value (a bare
    ``TimeoutError`` has no message)."""
    if is_timeout(exc):
        return (
            f"no answer within the request timeout of {policy.timeout:g} s ({type(exc).__name__}; "
            "--model-args timeout=S changes it)"
        )
    return f"{type(exc).__name__}: {_first_line(exc, limit)}"


def _first_line(exc: BaseException, limit: int) -> str:
    text = str(exc)
    return text.splitlines()[0][:limit] if text else ""


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    policy: RetryPolicy,
    rng: random.Random,
    classify: Callable[[BaseException], FailureKind],
    retry_after: Callable[[BaseException], float | None] = retry_after_from_exception,
    where: str = "the model's endpoint",
) -> tuple[T, int]:
    """Run ``call`` until it succeeds; returns (result, attempts).

    A context overflow raises ``ContextOverflow`` and a permanent error ``PermanentModelError`` at
    once; a transient one is retried after ``policy.backoff`` (honouring Retry-After), at most
    ``policy.max_retries`` times, then raises ``TransientModelError``; an unreachable endpoint is
    retried for ``policy.connect_grace`` seconds, then (like a fatal answer at once) raises
    ``EndpointError`` naming ``where`` (the URL called). A ``UserError`` is raised as it is (it
    stops the run).
    """
    attempt = 0
    down_since: float | None = None
    while True:
        attempt += 1
        try:
            result = await call()
        except (asyncio.CancelledError, UserError):
            raise  # a problem the user must fix (e.g. their model's server died): never retried
        except Exception as exc:
            kind = classify(exc)
            error = _give_up(exc, kind, attempt, policy, where, down_since)
            if error is not None:
                error.attempts = attempt  # type: ignore[attr-defined]  # any error carries the requests it made; the runner reads it with getattr
                raise error from exc
            wait = policy.backoff(attempt, rng, retry_after(exc))
            if kind == "unreachable":
                down_since = time.monotonic() if down_since is None else down_since
                wait = max(0.0, min(wait, down_since + policy.connect_grace - time.monotonic()))
            log.debug("attempt %d failed (%s); retrying in %.2fs", attempt, type(exc).__name__, wait)
            await asyncio.sleep(wait)
        else:
            _ANSWERED.add(where)
            return result, attempt


def _give_up(
    exc: BaseException, kind: FailureKind, attempt: int, policy: RetryPolicy, where: str, down_since: float | None
) -> Exception | None:
    """The exception that ends this call, or None to retry it."""
    what = _describe(exc, policy, 300)
    if kind == "context":
        return ContextOverflow(_first_line(exc, 300))
    if kind == "permanent":
        return PermanentModelError(what)
    if kind in ("fatal", "refused"):
        status = getattr(exc, "status", None) or getattr(exc, "status_code", None)
        named = f"status {status}: " if isinstance(status, int) and f"HTTP {status}" not in what else ""
        error = EndpointError if kind == "fatal" else RefusedRequest
        return error(f"{where}: {named}{what}{_hint(exc, where)}")
    if kind == "unreachable":
        waited = 0.0 if down_since is None else time.monotonic() - down_since
        if waited >= policy.connect_grace or attempt > policy.max_retries:
            return EndpointError(
                f"cannot connect to {where} ({_first_line(exc, 160)}); gave up after {attempt} "
                f"attempts in {waited:.1f} s (is the server running? --model-args connect_grace=S "
                "waits longer for one that is starting)"
            )
        return None
    if attempt <= policy.max_retries:
        return None
    if is_timeout(exc) and where not in _ANSWERED:  # every other sample would wait as long for nothing
        return EndpointError(
            f"{where} has not answered any request: {attempt} attempts each ran out of the request timeout of "
            f"{policy.timeout:g} s (is the server working? --model-args timeout=S waits longer)"
        )
    return TransientModelError(f"gave up after {attempt} attempts: {_describe(exc, policy, 200)}")


def _hint(exc: BaseException, where: str) -> str:
    status = getattr(exc, "status", None) or getattr(exc, "status_code", None)
    if status == 404 and "/v1" not in where and "://" in where:
        return " (an OpenAI-compatible server's api base usually ends in /v1)"
    return ""
