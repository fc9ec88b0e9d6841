"""Reading one HTTP/1.1 response from a byte stream (``http_client``'s connections): the status
line, the headers, and the body framed by ``Content-Length``, by chunks, or by the end of the
connection, within size ceilings; and the ways an exchange fails.

A response is fed as it arrives (``ResponseReader.feed``, in pieces split anywhere), which says
when it is whole. What is not HTTP, a header block over ``MAX_HEAD_BYTES``, a body over
``MAX_BODY_BYTES`` or a compressed body (debench asks for none) is ``BadHTTPResponse``: no retry
reads it better (``http_errors.classify_http_exception``: permanent). A connection the server
closes mid-answer is ``ServerDisconnected`` (retried); a connection not made in time is
``ConnectTimeout`` (an unreachable endpoint, ``retry.unreachable``); a TLS handshake that fails is
``TLSFailure`` (the run stops).
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_HEAD_BYTES = 64 * 1024
"""The status line and headers of one response, at most (aiohttp's default is 8 KiB per line)."""
MAX_BODY_BYTES = 64 * 1024 * 1024
"""One response's body, at most: a chat completion is a few KiB; a server sending more is broken
or hostile, and is not read into memory."""


class BadHTTPResponse(Exception):
    """The server's bytes are not an HTTP/1.x response debench can read."""


class ServerDisconnected(ConnectionError):
    """The server closed the connection before its answer was complete."""

    def __init__(self, message: str = "the server closed the connection before its answer was complete") -> None:
        super().__init__(message)


class ConnectTimeout(TimeoutError):
    """No connection was accepted within the connect timeout."""


class TLSFailure(Exception):
    """The TLS handshake failed (a certificate not trusted, a server that does not speak TLS)."""


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    """Header names in lower case (a name given twice keeps its last value)."""
    body: bytes
    keep_alive: bool
    """The connection may carry the next request."""


@dataclass
class _Head:
    status: int
    headers: dict[str, str]
    version: str


@dataclass
class ResponseReader:
    """The state of one response being read; ``feed`` returns True once it is whole."""

    head: _Head | None = None
    buf: bytearray = field(default_factory=bytearray)
    body: bytearray = field(default_factory=bytearray)
    remaining: int | None = None
    """Body bytes still expected: of the whole body (Content-Length) or of the current chunk."""
    mode: str = "head"
    """'head', 'length', 'chunk-size', 'chunk-data', 'chunk-end', 'trailers', 'until-close', 'done'."""
    body_framed: bool = False
    """The body's end was given by its length or its last chunk (not by the connection's end)."""

    def feed(self, data: bytes) -> bool:
        self.buf += data
        while self.mode != "done":
            if not self._step():
                break
        return self.mode == "done"

    def finish_at_eof(self) -> bool:
        """The server closed the connection: True when that ends the body (no length given)."""
        if self.mode == "until-close":
            self.mode = "done"
            return True
        return self.mode == "done"

    def response(self) -> Response:
        assert self.head is not None and self.mode == "done"
        h = self.head
        connection = h.headers.get("connection", "").lower()
        reusable = "close" not in connection and (h.version != "HTTP/1.0" or "keep-alive" in connection)
        return Response(
            status=h.status, headers=h.headers, body=bytes(self.body), keep_alive=self.body_framed and reusable
        )

    def _step(self) -> bool:
        """One state's work on the buffer; False when it needs more bytes."""
        steps = {
            "head": self._head,
            "length": self._length,
            "chunk-size": self._chunk_size,
            "chunk-data": self._chunk_data,
            "chunk-end": self._chunk_end,
            "trailers": self._trailers,
            "until-close": self._until_close,
        }
        return steps[self.mode]()

    def _line_end(self, mark: bytes, limit: int, too_long: str) -> int:
        """Where ``mark`` (a line's or the headers' end) begins in the buffer, -1 while it has not
        arrived. What comes before it is refused (``too_long``) past ``limit`` bytes, whether it
        arrived whole or in pieces: the bound does not depend on how the bytes were split."""
        end = self.buf.find(mark)
        if (end if end >= 0 else len(self.buf)) > limit:
            raise BadHTTPResponse(too_long)
        return end

    def _head(self) -> bool:
        end = self._line_end(b"\r\n\r\n", MAX_HEAD_BYTES, f"the response's headers exceed {MAX_HEAD_BYTES} bytes")
        if end < 0:
            return False
        raw = bytes(self.buf[:end]).decode("latin-1")
        del self.buf[: end + 4]
        head = _parse_head(raw)
        if 100 <= head.status < 200:
            return True  # an interim answer (100 Continue): the real one follows
        self.head = head
        self._start_body(head)
        return True

    def _start_body(self, head: _Head) -> None:
        coding = head.headers.get("content-encoding", "identity").strip().lower()
        if coding not in ("", "identity"):
            raise BadHTTPResponse(f"the server compressed its answer (Content-Encoding: {coding}), unasked")
        if "chunked" in head.headers.get("transfer-encoding", "").lower():
            self.mode = "chunk-size"
        elif head.status in (204, 304):
            self.remaining, self.mode = 0, "length"
        elif "content-length" in head.headers:
            self.remaining, self.mode = _content_length(head.headers["content-length"]), "length"
        else:
            self.mode = "until-close"

    def _take(self) -> bool:
        """Move the expected body bytes that have arrived; True once none is expected."""
        assert self.remaining is not None
        take = min(self.remaining, len(self.buf))
        self.body += self.buf[:take]
        del self.buf[:take]
        self.remaining -= take
        return not self.remaining

    def _length(self) -> bool:
        if not self._take():
            return False
        self.mode, self.body_framed = "done", True
        return True

    def _chunk_size(self) -> bool:
        end = self._line_end(b"\r\n", 1024, "a chunk size line over 1024 bytes")
        if end < 0:
            return False
        text = bytes(self.buf[:end]).split(b";", 1)[0].strip()
        del self.buf[: end + 2]
        try:
            size = int(text, 16)
        except ValueError:
            raise BadHTTPResponse(f"not a chunk size: {text[:40]!r}") from None
        if size < 0 or len(self.body) + size > MAX_BODY_BYTES:
            raise BadHTTPResponse(f"the response's body exceeds {MAX_BODY_BYTES} bytes")
        self.remaining, self.mode = size, ("chunk-data" if size else "trailers")
        return True

    def _chunk_data(self) -> bool:
        if not self._take():
            return False
        self.mode = "chunk-end"
        return True

    def _chunk_end(self) -> bool:
        if len(self.buf) < 2:
            return False
        if self.buf[:2] != b"\r\n":
            raise BadHTTPResponse("a chunk not followed by CRLF")
        del self.buf[:2]
        self.mode = "chunk-size"
        return True

    def _trailers(self) -> bool:
        end = self._line_end(b"\r\n", MAX_HEAD_BYTES, f"a trailer line over {MAX_HEAD_BYTES} bytes")
        if end < 0:
            return False
        del self.buf[: end + 2]
        if end == 0:  # the empty line after the last chunk (and any trailer lines)
            self.mode, self.body_framed = "done", True
        return True

    def _until_close(self) -> bool:
        if len(self.body) + len(self.buf) > MAX_BODY_BYTES:
            raise BadHTTPResponse(f"the response's body exceeds {MAX_BODY_BYTES} bytes")
        self.body += self.buf
        self.buf.clear()
        return False


def _parse_head(raw: str) -> _Head:
    status_line, _, rest = raw.partition("\r\n")
    parts = status_line.split(" ", 2)
    if len(parts) < 2 or parts[0] not in ("HTTP/1.1", "HTTP/1.0") or not (parts[1].isdigit() and len(parts[1]) == 3):
        raise BadHTTPResponse(f"not an HTTP/1.x status line: {status_line[:80]!r}")
    headers: dict[str, str] = {}
    for line in rest.split("\r\n") if rest else ():
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise BadHTTPResponse(f"not a header line: {line[:80]!r}")
        headers[name.lower()] = value.strip()
    return _Head(status=int(parts[1]), headers=headers, version=parts[0])


def _content_length(value: str) -> int:
    if not value.strip().isdigit():
        raise BadHTTPResponse(f"not a Content-Length: {value[:40]!r}")
    n = int(value)
    if n > MAX_BODY_BYTES:
        raise BadHTTPResponse(f"the response's body ({n} bytes) exceeds {MAX_BODY_BYTES} bytes")
    return n
