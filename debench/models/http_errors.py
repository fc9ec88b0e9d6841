"""How an OpenAI-compatible server's answers fail: HTTP errors named like the openai SDK's, and
which of them are worth retrying (used by the direct client and the batch client)."""

from __future__ import annotations

import json
from typing import Any

import aiohttp

from debench.models.retry import FATAL_STATUS, TRANSIENT_EXCEPTIONS, TRANSIENT_STATUS, FailureKind, parse_retry_after, unreachable

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


class HTTPStatusError(Exception):
    """A non-200 answer: its status, the server's error message and any Retry-After."""

    def __init__(self, status: int, message: str, retry_after: float | None):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message
        self.retry_after = retry_after


# Named like litellm's / openai's exceptions, so that error records read the same with either client.
class BadRequestError(HTTPStatusError): ...
class AuthenticationError(HTTPStatusError): ...
class PermissionDeniedError(HTTPStatusError): ...
class NotFoundError(HTTPStatusError): ...
class UnprocessableEntityError(HTTPStatusError): ...
class RateLimitError(HTTPStatusError): ...
class InternalServerError(HTTPStatusError): ...


_BY_STATUS: dict[int, type[HTTPStatusError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    422: UnprocessableEntityError,
    429: RateLimitError,
}


def http_error(status: int, message: str, retry_after: float | None) -> HTTPStatusError:
    cls = _BY_STATUS.get(status) or (InternalServerError if status >= 500 else HTTPStatusError)
    return cls(status, message, retry_after)


class MalformedResponse(Exception):
    """A 200 answer without a usable completion."""


TRANSIENT_AIOHTTP = (aiohttp.ServerDisconnectedError, aiohttp.ServerTimeoutError, aiohttp.ClientPayloadError, aiohttp.ClientOSError)
"""aiohttp's failures of a connection that was made (dropped, reset, timed out, cut short): worth
retrying. Its other errors (a malformed URL, too many redirects, a certificate) are not."""


def classify_http_exception(exc: BaseException) -> FailureKind:
    """'context' | 'permanent' | 'transient' | 'unreachable' | 'fatal' (see ``debench.models.retry``),
    as ``litellm_model.classify_exception`` decides: 429 / 408 / 409 / 5xx, dropped connections,
    timeouts and unreadable answers are retried; a refused connection only for the grace period;
    a 404 stops the run; anything else fails its sample at once."""
    if isinstance(exc, HTTPStatusError):
        if exc.status in TRANSIENT_STATUS or exc.status >= 500:
            return "transient"
        if exc.status in FATAL_STATUS:
            return "fatal"
        if exc.status in (400, 413) and any(m in exc.message.lower() for m in CONTEXT_MARKERS):
            return "context"
        return "permanent"
    if unreachable(exc):
        return "unreachable"
    if isinstance(exc, aiohttp.ClientSSLError):
        return "fatal"
    if isinstance(exc, (*TRANSIENT_AIOHTTP, MalformedResponse, *TRANSIENT_EXCEPTIONS)):
        return "transient"
    return "permanent"


def retry_after_of(exc: BaseException) -> float | None:
    return exc.retry_after if isinstance(exc, HTTPStatusError) else None


def header_retry_after(headers: Any) -> float | None:
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    return parse_retry_after(headers.get("retry-after"))


def error_message(raw: bytes) -> str:
    try:
        body = json.loads(raw)
        err = body.get("error", body) if isinstance(body, dict) else body
        msg = err.get("message") if isinstance(err, dict) else err
        code = err.get("code") if isinstance(err, dict) else None
        text = str(msg if msg is not None else body)
        return f"{text} ({code})" if code else text
    except ValueError:
        return raw[:300].decode("utf-8", "replace")
