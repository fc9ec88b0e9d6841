"""How an OpenAI-compatible server's answers fail: HTTP errors named like the openai SDK's, and
which of them are worth retrying (used by the direct client and the batch client)."""

from __future__ import annotations

import json
import ssl
import sys
from collections.abc import Mapping

from debench.models.http_response import TLSFailure
from debench.models.retry import (
    TRANSIENT_EXCEPTIONS,
    FailureKind,
    classify_status,
    retry_after_from_headers,
    unreachable,
)


class HTTPStatusError(Exception):
    """A non-200 answer: its status, the server's error message and its headers (``retry_after``
    read from them by ``retry.retry_after_from_headers``, as for litellm's exceptions)."""

    def __init__(self, status: int, message: str, headers: Mapping[str, str] | None):
        super().__init__(f"HTTP {status}: {message}")
        self.status = status
        self.message = message
        self.headers = dict(headers or {})
        self.retry_after = retry_after_from_headers(self.headers)


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


def http_error(status: int, message: str, headers: Mapping[str, str] | None) -> HTTPStatusError:
    cls = _BY_STATUS.get(status) or (InternalServerError if status >= 500 else HTTPStatusError)
    return cls(status, message, headers)


class MalformedResponse(Exception):
    """A 200 answer without a usable completion."""


def classify_http_exception(exc: BaseException) -> FailureKind:
    """'context' | 'permanent' | 'transient' | 'unreachable' | 'fatal' | 'refused' (``debench.models.retry``):
    an error answer as ``retry.classify_status`` says (as for litellm's); dropped connections,
    timeouts and unreadable answers are retried; a refused connection only for the grace period;
    a TLS handshake that fails stops the run; anything else (an answer that is not HTTP) fails its
    sample at once. The failures of debench's own client (``http_client``) and of aiohttp's (the
    batch client's); aiohttp's classes are looked at only when it is loaded (none of its
    exceptions can exist otherwise), so that the direct client never imports it."""
    if isinstance(exc, HTTPStatusError):
        return classify_status(exc.status, exc.message)
    if unreachable(exc):
        return "unreachable"
    aiohttp = sys.modules.get("aiohttp")
    if isinstance(exc, TLSFailure) or (aiohttp is not None and isinstance(exc, aiohttp.ClientSSLError)):
        return "fatal"
    # A connection that was made and then failed (dropped, reset, timed out, cut short, its TLS
    # stream broken) is worth retrying; aiohttp's other errors (a malformed URL, too many
    # redirects) are not.
    transient: tuple[type[BaseException], ...] = (MalformedResponse, ssl.SSLError, *TRANSIENT_EXCEPTIONS)
    if aiohttp is not None:
        transient += (
            aiohttp.ServerDisconnectedError,
            aiohttp.ServerTimeoutError,
            aiohttp.ClientPayloadError,
            aiohttp.ClientOSError,
        )
    return "transient" if isinstance(exc, transient) else "permanent"


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
