"""Retry policy: exponential backoff with jitter, honouring Retry-After, capped; and the one retry
loop every network model uses (litellm or the direct HTTP client), so that both classify, wait,
cap and count attempts the same way."""

from __future__ import annotations

import asyncio
import email.utils
import logging
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, TypeVar

from debench.errors import UserError
from debench.models.base import ContextOverflow, PermanentModelError

log = logging.getLogger(__name__)

T = TypeVar("T")
FailureKind = Literal["context", "permanent", "transient"]

TRANSIENT_STATUS = frozenset({408, 409, 429})
"""HTTP statuses retried besides 5xx: timeout, conflict, rate limit."""
TRANSIENT_EXCEPTIONS: tuple[type[BaseException], ...] = (TimeoutError, asyncio.TimeoutError, ConnectionError)
"""Failures of the network itself (a refused or dropped connection, a timeout), in any client."""


class TransientModelError(Exception):
    """A transient failure (rate limit, 5xx, dropped connection, timeout) still failing at the cap."""


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 6
    """Retries after the first attempt (so at most ``max_retries + 1`` requests per sample)."""
    base_delay: float = 1.0
    max_delay: float = 60.0
    """Cap on any single wait, including a server's Retry-After."""
    timeout: float = 120.0
    """Per-request timeout in seconds."""

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


def retry_after_from_exception(exc: BaseException) -> float | None:
    """Find a Retry-After header on an exception raised by litellm / openai / httpx."""
    candidates: list[Any] = []
    for attr in ("litellm_response_headers", "headers"):
        candidates.append(getattr(exc, attr, None))
    response = getattr(exc, "response", None)
    candidates.append(getattr(response, "headers", None))
    for headers in candidates:
        if not headers:
            continue
        try:
            for key in ("retry-after-ms", "Retry-After-Ms"):
                if key in headers:
                    return max(0.0, float(headers[key]) / 1000.0)
            for key in ("retry-after", "Retry-After"):
                if key in headers:
                    return parse_retry_after(headers[key])
        except (TypeError, ValueError):
            continue
    return None


def _first_line(exc: BaseException, limit: int) -> str:
    text = str(exc)
    return text.splitlines()[0][:limit] if text else ""


async def call_with_retries(
    call: Callable[[], Awaitable[T]],
    *,
    policy: RetryPolicy,
    rng: random.Random,
    classify: Callable[[BaseException], FailureKind],
    retry_after: Callable[[BaseException], float | None],
) -> tuple[T, int]:
    """Run ``call`` until it succeeds; returns (result, attempts).

    A context overflow raises ``ContextOverflow`` and a permanent error ``PermanentModelError`` at
    once; a transient one is retried after ``policy.backoff`` (honouring Retry-After), at most
    ``policy.max_retries`` times, then raises ``TransientModelError``. A ``UserError`` is raised
    as it is (it stops the run).
    """
    attempt = 0
    while True:
        attempt += 1
        try:
            return await call(), attempt
        except (asyncio.CancelledError, UserError):
            raise  # a problem the user must fix (e.g. their model's server died): never retried
        except Exception as exc:  # noqa: BLE001 - classified below
            kind = classify(exc)
            if kind == "context":
                raise ContextOverflow(_first_line(exc, 300)) from exc
            if kind == "permanent":
                raise PermanentModelError(f"{type(exc).__name__}: {_first_line(exc, 300)}") from exc
            if attempt > policy.max_retries:
                raise TransientModelError(f"gave up after {attempt} attempts: {type(exc).__name__}: {_first_line(exc, 200)}") from exc
            wait = policy.backoff(attempt, rng, retry_after(exc))
            log.debug("attempt %d failed (%s); retrying in %.2fs", attempt, type(exc).__name__, wait)
            await asyncio.sleep(wait)
