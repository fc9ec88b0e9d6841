"""An HTTP server on 127.0.0.1 answering every POST with one fixed status and JSON body: an
endpoint that cannot work (a rejected key, a path or model it does not have), a content filter, a
rate limit with its headers. Tests and benchmarks use it where the stub server
(``debench.testing.stub_server``) answers through its fault plan instead::

    with FixedStatusServer(401, {"error": {"message": "invalid key"}}) as srv:
        ...  # a client at srv.base_url
    srv.hits  # the paths asked, in order
"""

from __future__ import annotations

import http.server
import json
import threading
from collections.abc import Mapping
from typing import Any


class FixedStatusServer:
    """Answers every POST with ``status``, ``body`` (as JSON) and ``headers``; records the paths
    asked in ``hits``. Use it as a context manager."""

    def __init__(self, status: int, body: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> None:
        self.hits: list[str] = []
        raw = json.dumps(body).encode()
        extra = dict(headers or {})
        hits = self.hits

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                hits.append(self.path)
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: object) -> None:
                pass

        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, name="debench-fixed-status", daemon=True)

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> FixedStatusServer:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
