"""debench's own HTTP/1.1 client (``debench.models.http_client``, ``http_response``): any framing
of a response, split anywhere, reads the same; what is not HTTP or is too large is refused; a
connection is reused only when its last answer ended cleanly; timeouts, drops, refusals and a
failed TLS handshake are the failures ``classify_http_exception`` sorts. Against raw asyncio
servers on 127.0.0.1 written here, so that each misbehaviour is exact."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Awaitable, Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from debench.models import http_response
from debench.models.http_client import HTTPEndpoint
from debench.models.http_errors import classify_http_exception
from debench.models.http_response import BadHTTPResponse, ResponseReader, ServerDisconnected, TLSFailure

# ---------------------------------------------------------------------------------- the reader

_token = st.text(alphabet="abcdefghijklmnopqrstuvwxyz-", min_size=1, max_size=12).filter(
    lambda s: s not in ("content-length", "transfer-encoding", "content-encoding", "connection")
)


def _wire(status: int, headers: dict[str, str], body: bytes, framing: str, chunks: list[int], interim: bool) -> bytes:
    """A response as a server writes it."""
    head = [f"HTTP/1.1 {status} Whatever It Says"] + [f"{k}: {v}" for k, v in headers.items()]
    if framing == "length":
        head.append(f"Content-Length: {len(body)}")
        payload = body
    elif framing == "chunked":
        head.append("Transfer-Encoding: chunked")
        parts, at = [], 0
        for size in chunks:
            if at >= len(body):
                break
            piece = body[at : at + size]
            parts.append(b"%x;ext=1\r\n%s\r\n" % (len(piece), piece))
            at += len(piece)
        if at < len(body):
            parts.append(b"%x\r\n%s\r\n" % (len(body) - at, body[at:]))
        payload = b"".join(parts) + b"0\r\nx-trailer: t\r\n\r\n"
    else:  # until-close
        payload = body
    prefix = b"HTTP/1.1 100 Continue\r\n\r\n" if interim else b""
    return prefix + ("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + payload


def _cuts(data: bytes, points: list[int]) -> list[bytes]:
    at = sorted({p % (len(data) + 1) for p in points})
    return [data[a:b] for a, b in zip([0, *at], [*at, len(data)], strict=True)]


@settings(max_examples=60, deadline=None)
@given(
    status=st.sampled_from([200, 201, 400, 404, 429, 500, 503]),
    headers=st.dictionaries(_token, st.text(alphabet="abc 123:/", max_size=20).map(str.strip), max_size=4),
    body=st.binary(max_size=600),
    framing=st.sampled_from(["length", "chunked", "until-close"]),
    chunks=st.lists(st.integers(1, 200), min_size=1, max_size=6),
    points=st.lists(st.integers(0, 10_000), max_size=8),
    interim=st.booleans(),
)
def test_any_framing_split_anywhere_reads_the_same(
    status: int, headers: dict[str, str], body: bytes, framing: str, chunks: list[int], points: list[int], interim: bool
) -> None:
    wire = _wire(status, headers, body, framing, chunks, interim)
    reader = ResponseReader()
    done = False
    for piece in _cuts(wire, points):
        assert not done, "the reader said the response was whole before its last byte"
        done = reader.feed(piece)
    if framing == "until-close":
        assert not done
        done = reader.finish_at_eof()
    assert done
    resp = reader.response()
    assert (resp.status, resp.body) == (status, body)
    assert all(resp.headers[k] == v for k, v in headers.items())
    assert resp.keep_alive is (framing != "until-close")
    assert not reader.buf


@pytest.mark.parametrize(
    ("wire", "says"),
    [
        (b"SSH-2.0-OpenSSH\r\n\r\n", "not an HTTP/1.x status line"),
        (b"HTTP/1.1 2000 OK\r\n\r\n", "not an HTTP/1.x status line"),
        (b"HTTP/1.1 200 OK\r\nno colon here\r\n\r\n", "not a header line"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n", "not a Content-Length"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n", "exceeds"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", "not a chunk size"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabXX", "not followed by CRLF"),
        (b"HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 0\r\n\r\n", "compressed"),
        (b"HTTP/1.1 200 OK\r\nX: " + b"y" * (70 * 1024), "headers exceed"),
        (b"HTTP/1.1 200 OK\r\nX: " + b"y" * (70 * 1024) + b"\r\n\r\n", "headers exceed"),
        (b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + b"x" * 2000 + b"\r\n", "chunk size line"),
        (
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nT: " + b"t" * (70 * 1024) + b"\r\n",
            "trailer line",
        ),
    ],
)
def test_what_is_not_a_readable_response_is_refused(wire: bytes, says: str) -> None:
    with pytest.raises(BadHTTPResponse, match=says):
        ResponseReader().feed(wire)
    assert classify_http_exception(BadHTTPResponse("x")) == "permanent"


def test_a_body_is_read_only_up_to_its_ceiling(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http_response, "MAX_BODY_BYTES", 100)
    reader = ResponseReader()
    reader.feed(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n40\r\n" + b"a" * 64 + b"\r\n")
    with pytest.raises(BadHTTPResponse, match="exceeds 100 bytes"):
        reader.feed(b"40\r\n")
    reader = ResponseReader()
    reader.feed(b"HTTP/1.1 200 OK\r\n\r\n" + b"a" * 90)
    with pytest.raises(BadHTTPResponse, match="exceeds 100 bytes"):
        reader.feed(b"a" * 20)


# ---------------------------------------------------------------------------------- the client

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


async def _read_request(reader: asyncio.StreamReader) -> bytes:
    head = await reader.readuntil(b"\r\n\r\n")
    length = next(
        int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")
    )
    return await reader.readexactly(length)


def _ok(body: bytes, extra: str = "") -> bytes:
    return f"HTTP/1.1 200 OK\r\nContent-Length: {len(body)}\r\n{extra}\r\n".encode() + body


async def _with_server(handler: Handler, work: Callable[[int, list[int]], Awaitable[None]]) -> list[int]:
    """Run ``work(port, connections)`` against a server calling ``handler`` per connection;
    ``connections`` counts the connections it accepted."""
    accepted: list[int] = []

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        accepted.append(1)
        try:
            await handler(reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        await work(port, accepted)
    return accepted


def _endpoint(port: int, timeout: float = 5.0, scheme: str = "http") -> HTTPEndpoint:
    return HTTPEndpoint(
        f"{scheme}://127.0.0.1:{port}/v1/chat/completions",
        {"Authorization": "Bearer k"},
        timeout=timeout,
        connect_timeout=5.0,
    )


async def _echo(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    while True:
        body = await _read_request(reader)
        writer.write(_ok(body))
        await writer.drain()


def test_one_connection_carries_every_request_in_turn() -> None:
    async def work(port: int, accepted: list[int]) -> None:
        ep = _endpoint(port)
        for i in range(5):
            resp = await ep.post(b'{"n": %d}' % i)
            assert (resp.status, resp.body) == (200, b'{"n": %d}' % i)
        ep.close()

    assert len(asyncio.run(_with_server(_echo, work))) == 1


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 40), concurrency=st.integers(1, 16))
def test_concurrent_requests_each_get_their_own_answer(seed: int, n: int, concurrency: int) -> None:
    """Whatever order the answers come back in, every request gets its own answer, and no more
    connections are opened than requests are ever in flight at once."""
    rng = random.Random(seed)
    delays = [rng.randint(0, 3) for _ in range(n)]

    async def answer_late(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            body = await _read_request(reader)
            for _ in range(delays[json.loads(body)["i"]]):
                await asyncio.sleep(0)  # other connections' answers overtake this one
            writer.write(_ok(body))
            await writer.drain()

    async def work(port: int, accepted: list[int]) -> None:
        ep = _endpoint(port)
        gate = asyncio.Semaphore(concurrency)

        async def one(i: int) -> None:
            async with gate:
                resp = await ep.post(json.dumps({"i": i}).encode())
                assert json.loads(resp.body) == {"i": i}

        await asyncio.gather(*(one(i) for i in range(n)))
        ep.close()

    assert len(asyncio.run(_with_server(answer_late, work))) <= min(n, concurrency)


@pytest.mark.parametrize(
    "how",
    [
        "Connection: close\r\n",  # the server says so
        "",  # an HTTP/1.0 answer without keep-alive
    ],
)
def test_a_connection_the_server_ends_is_not_reused(how: str) -> None:
    async def once(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        body = await _read_request(reader)
        reply = _ok(body, how)
        writer.write(reply if how else reply.replace(b"HTTP/1.1", b"HTTP/1.0", 1))
        await writer.drain()

    async def work(port: int, accepted: list[int]) -> None:
        ep = _endpoint(port)
        for i in range(3):
            assert (await ep.post(b"%d" % i)).body == b"%d" % i
        ep.close()

    assert len(asyncio.run(_with_server(once, work))) == 3


def test_a_body_that_ends_with_the_connection_is_read_whole() -> None:
    async def until_close(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(b'HTTP/1.1 200 OK\r\n\r\n{"a": 1}')
        await writer.drain()

    async def work(port: int, accepted: list[int]) -> None:
        ep = _endpoint(port)
        assert (await ep.post(b"{}")).body == b'{"a": 1}'
        assert (await ep.post(b"{}")).body == b'{"a": 1}'

    assert len(asyncio.run(_with_server(until_close, work))) == 2


def test_an_answer_cut_short_is_a_dropped_connection_and_retried() -> None:
    async def cut(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        writer.write(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"half')
        await writer.drain()

    async def work(port: int, accepted: list[int]) -> None:
        with pytest.raises(ServerDisconnected) as info:
            await _endpoint(port).post(b"{}")
        assert classify_http_exception(info.value) == "transient"

    asyncio.run(_with_server(cut, work))


def test_bytes_after_the_answer_make_the_connection_unusable() -> None:
    async def chatty(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:
            body = await _read_request(reader)
            writer.write(_ok(body) + b"HTTP/1.1 200 OK\r\n")
            await writer.drain()

    async def work(port: int, accepted: list[int]) -> None:
        ep = _endpoint(port)
        assert (await ep.post(b"1")).body == b"1"
        assert (await ep.post(b"2")).body == b"2"
        ep.close()

    assert len(asyncio.run(_with_server(chatty, work))) == 2


def test_no_answer_within_the_timeout_closes_the_connection() -> None:
    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await _read_request(reader)
        assert await reader.read() == b""  # the client gave up and closed: end of stream

    async def work(port: int, accepted: list[int]) -> None:
        ep = _endpoint(port, timeout=0.2)
        with pytest.raises(TimeoutError) as info:
            await ep.post(b"{}")
        assert classify_http_exception(info.value) == "transient"
        assert not ep._idle

    asyncio.run(_with_server(silent, work))


def test_a_refused_connection_is_an_unreachable_endpoint() -> None:
    async def main() -> None:
        server = await asyncio.start_server(_echo, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        server.close()
        await server.wait_closed()
        with pytest.raises(ConnectionRefusedError) as info:
            await _endpoint(port).post(b"{}")
        assert classify_http_exception(info.value) == "unreachable"

    asyncio.run(main())


def test_a_failed_tls_handshake_stops_the_run() -> None:
    """https to a server that does not speak TLS: the handshake fails, and no retry can help."""

    async def plain(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(100)
        writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
        await writer.drain()

    async def work(port: int, accepted: list[int]) -> None:
        with pytest.raises(TLSFailure, match=r"TLS with 127\.0\.0\.1") as info:
            await _endpoint(port, scheme="https").post(b"{}")
        assert classify_http_exception(info.value) == "fatal"

    asyncio.run(_with_server(plain, work))


def test_the_request_says_what_it_is() -> None:
    seen: list[bytes] = []

    async def record(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        seen.append(head)
        await reader.readexactly(2)
        writer.write(_ok(b"{}"))
        await writer.drain()

    async def work(port: int, accepted: list[int]) -> None:
        ep = HTTPEndpoint(
            f"http://user:secret@127.0.0.1:{port}/v1/chat/completions?x=1",
            {"Authorization": "Bearer k", "Content-Type": "application/json"},
            timeout=5,
            connect_timeout=5,
        )
        await ep.post(b"{}")

    asyncio.run(_with_server(record, work))
    lines = seen[0].decode().split("\r\n")
    assert lines[0] == "POST /v1/chat/completions?x=1 HTTP/1.1"
    assert "Content-Length: 2" in lines and "Authorization: Bearer k" in lines
    assert "Accept-Encoding: identity" in lines
    assert not any("secret" in line for line in lines)
    with pytest.raises(ValueError, match="not an http"):
        HTTPEndpoint("ftp://example.org/x", {}, timeout=1, connect_timeout=1)
