"""The stub server in a child process (``python -m debench.testing.stub_server``), driven through
its own endpoints (``/_stub/stats``, ``/_stub/reset``, ``/_stub/config``)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from collections.abc import Sequence
from typing import Any

from debench.testing.stub_app import StubConfig
from debench.testing.stub_batches import BatchPlan
from debench.testing.stub_faults import FaultPlan
from debench.testing.stub_stats import StubStats


class StubProcess:
    """The stub server in a child process (``python -m debench.testing.stub_server``).

    Benchmarks use it so that the server never competes with the client for one interpreter.
    ``args`` are extra CLI arguments (e.g. ``["--seed", "3"]``). Statistics, latency and faults are
    read and changed over HTTP; ``stats`` carries no request bodies.
    """

    def __init__(self, *, latency: float = 0.0, args: Sequence[str] = (), python: str | None = None) -> None:
        self._cmd = [python or sys.executable, "-m", "debench.testing.stub_server", "--latency", str(latency), *args]
        self._proc: subprocess.Popen[str] | None = None
        self.base_url = ""

    def start(self) -> StubProcess:
        self._proc = subprocess.Popen(self._cmd, stdout=subprocess.PIPE, text=True)
        assert self._proc.stdout is not None
        line = self._proc.stdout.readline().strip()
        if not line.startswith("http://"):
            self.stop()
            raise RuntimeError(f"stub server did not start (printed {line!r})")
        self.base_url = line
        return self

    @property
    def pid(self) -> int:
        assert self._proc is not None
        return self._proc.pid

    @property
    def root_url(self) -> str:
        return self.base_url.removesuffix("/v1")

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.root_url + path, data=data, method=method, headers={"content-type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=30) as resp:
            return json.loads(resp.read())

    @property
    def stats(self) -> StubStats:
        raw = self._call("GET", "/_stub/stats")
        raw.pop("window_s", None)
        return StubStats(**raw)

    def reset_stats(self) -> None:
        self._call("POST", "/_stub/reset", {})

    def configure(
        self,
        *,
        latency: float | None = None,
        faults: FaultPlan | None = None,
        prefix_cache: bool | None = None,
        batch: BatchPlan | None = None,
    ) -> None:
        update = StubConfig(latency=latency, faults=faults, prefix_cache=prefix_cache, batch=batch)
        self._call("POST", "/_stub/config", update.model_dump(mode="json"))

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()

    def __enter__(self) -> StubProcess:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
