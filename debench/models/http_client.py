"""A small HTTP/1.1 client for one endpoint (``openai_http``'s): JSON POSTs over keep-alive
connections on asyncio's own transports, TLS for https.

Why not aiohttp: at 128 requests in flight on 2 cores, aiohttp's client took ~160-215 µs of the
event loop per request (and ~0.13 s of CPU to import, two TLS contexts built, before the first
request); the answers of a burst wait for each other's share, so the request window lost ~4% of
its ideal (``benchmarks/``, ``docs/performance.md``). This client does what an OpenAI-compatible
endpoint needs and no more: one request at a time per connection, idle connections reused,
``Content-Length`` / chunked / until-close bodies (``http_response``), a total and a connect
timeout. No proxy, no redirect (a 3xx is an error answer like any non-200), no compression
(``Accept-Encoding: identity``).
"""

from __future__ import annotations

import asyncio
import functools
import ssl
from collections.abc import Mapping
from typing import cast
from urllib.parse import urlsplit

from debench.models.http_response import (
    BadHTTPResponse,
    ConnectTimeout,
    Response,
    ResponseReader,
    ServerDisconnected,
    TLSFailure,
)


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """The system's trusted certificates, verified (built once per process, for https only)."""
    return ssl.create_default_context()


class _Connection(asyncio.Protocol):
    """One keep-alive connection: at most one request on it at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.reader = ResponseReader()
        self.waiter: asyncio.Future[Response] | None = None
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # A stream transport, though not necessarily of asyncio's classes (uvloop's are its own).
        self.transport = cast(asyncio.Transport, transport)

    def data_received(self, data: bytes) -> None:
        waiter = self.waiter
        if waiter is None or waiter.done():
            self.abort()  # bytes nobody asked for: the connection cannot be trusted with a request
            return
        try:
            if self.reader.feed(data):
                waiter.set_result(self.reader.response())
        except BadHTTPResponse as exc:
            waiter.set_exception(exc)
            self.abort()

    def eof_received(self) -> bool:
        self._ended(None)
        return False  # close the transport: connection_lost follows

    def connection_lost(self, exc: Exception | None) -> None:
        self._ended(exc)

    def _ended(self, exc: Exception | None) -> None:
        self.closed = True
        waiter = self.waiter
        if waiter is None or waiter.done():
            return
        if exc is None and self.reader.finish_at_eof():
            waiter.set_result(self.reader.response())  # a body that ends with the connection
        else:
            waiter.set_exception(exc if exc is not None else ServerDisconnected())

    def send(self, data: bytes) -> asyncio.Future[Response]:
        """Write one request; the future is its response."""
        assert self.transport is not None
        self.reader = ResponseReader()
        self.waiter = asyncio.get_running_loop().create_future()
        self.transport.write(data)
        return self.waiter

    def time_out(self) -> None:
        """The request's deadline passed: it fails with ``TimeoutError`` and the connection closes."""
        if self.waiter is not None and not self.waiter.done():
            self.waiter.set_exception(TimeoutError())
        self.abort()

    def reusable(self) -> bool:
        return not self.closed and self.transport is not None and not self.transport.is_closing()

    def abort(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()


class HTTPEndpoint:
    """POSTs to one URL, with a pool of idle connections (the caller bounds the requests in flight)."""

    def __init__(self, url: str, headers: Mapping[str, str], *, timeout: float, connect_timeout: float) -> None:
        self.url = url
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {url!r}")
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == "https" else 80)
        self.tls = parts.scheme == "https"
        self.timeout = timeout
        self.connect_timeout = min(timeout, connect_timeout)
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        host = parts.netloc.rpartition("@")[2]  # never the URL's user:password
        lines = [f"POST {path} HTTP/1.1", f"Host: {host}", "Accept: application/json", "Accept-Encoding: identity"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        self._head = ("\r\n".join(lines) + "\r\nContent-Length: ").encode("latin-1")
        self._idle: list[_Connection] = []
        self._loop: asyncio.AbstractEventLoop | None = None

    async def post(self, body: bytes) -> Response:
        """One request and its whole response, within the total timeout (``TimeoutError``)."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            self._idle.clear()  # connections of a loop that has ended
            self._loop = loop
        deadline = loop.time() + self.timeout
        conn = self._idle_connection()
        if conn is None:
            async with asyncio.timeout_at(deadline):
                conn = await self._connect(loop)
        # A timer on the connection, not asyncio.timeout: a fifth of the client's CPU per request.
        timer = loop.call_at(deadline, conn.time_out)
        try:
            response = await conn.send(self._head + b"%d\r\n\r\n" % len(body) + body)
        except BaseException:
            conn.abort()  # a half-read answer, a timeout or a cancellation: never reused
            raise
        finally:
            timer.cancel()
        if response.keep_alive and not conn.reader.buf and conn.reusable():
            self._idle.append(conn)
        else:
            conn.abort()
        return response

    def _idle_connection(self) -> _Connection | None:
        while self._idle:
            conn = self._idle.pop()
            if conn.reusable():
                return conn
        return None

    async def _connect(self, loop: asyncio.AbstractEventLoop) -> _Connection:
        tls = _tls_context() if self.tls else None
        try:
            async with asyncio.timeout(self.connect_timeout):
                _, conn = await loop.create_connection(
                    _Connection, self.host, self.port, ssl=tls, server_hostname=self.host if tls else None
                )
        except TimeoutError:
            raise ConnectTimeout(
                f"no connection to {self.host}:{self.port} within {self.connect_timeout:g} s"
            ) from None
        except ssl.SSLError as exc:
            raise TLSFailure(f"TLS with {self.host}:{self.port} failed: {exc}") from exc
        return conn

    def close(self) -> None:
        """Close the idle connections (a request under way closes its own); those of an event loop
        that has ended are only dropped."""
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        for conn in self._idle:
            conn.closed = True
            if conn.transport is not None and self._loop is running:
                conn.transport.close()
        self._idle.clear()
