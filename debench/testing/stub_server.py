"""A local OpenAI-compatible chat-completions stub server, with deterministic fault injection.

Tests and the performance / fault benchmarks point litellm (or any OpenAI client) at it instead of a
real provider::

    with StubServer(latency=0.05, responder=likert_responder(seed=1),
                    faults=FaultPlan(rate_limit=0.1)) as srv:
        litellm.completion(model="openai/stub", api_base=srv.base_url, api_key="x", messages=[...])
        srv.stats.outcomes   # {"ok": ..., "429": ...}

The server binds to 127.0.0.1 only and runs on its own event loop in a background thread
(``StubServer``, this module). It can also run in the foreground as a separate process
(``python -m debench.testing.stub_server --help``, ``debench.testing.stub_cli``); the first line it
prints is the base URL. ``StubProcess`` (``debench.testing.stub_process``) runs it in a child
process, so that a client in this process does not share its interpreter, and drives it through
its endpoints.

Endpoints: ``POST /v1/chat/completions`` (also ``/chat/completions``), ``GET /v1/models`` (also
``/models``), OpenAI's Files and Batch endpoints (``/v1/files``, ``/v1/batches``: see
``debench.testing.stub_batches``), ``GET /health``, ``GET /_stub/stats`` (the statistics as JSON,
without request bodies), ``POST /_stub/reset`` (zero the statistics) and ``POST /_stub/config``
(change the latency, the fault plan, the simulated prompt cache or the batch plan of a running
server, see ``StubConfig``). Only the live completion endpoints are subject to latency and faults.

The parts, one job each: ``stub_app`` (the request handling), ``stub_faults`` (the fault plan and
the order in which its faults apply), ``stub_answers`` (the responders and the OpenAI JSON bodies),
``stub_prompts`` (a prompt's key, tokens and the simulated prompt cache), ``stub_stats`` (the
statistics). Every public name is importable from this module.

The fixed ``latency`` is slept before every completion response, faults included; a ``slow``
outcome then sleeps ``slow_seconds`` more before answering normally.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
import threading

from debench.testing.stub_answers import (
    LIKERT_TEMPLATES,
    LIKERT_UNPARSEABLE,
    Responder,
    cycle_responder,
    fixed_responder,
    likert_responder,
)
from debench.testing.stub_app import HOST, StubConfig, StubCore
from debench.testing.stub_batches import BatchDesk, BatchPlan
from debench.testing.stub_cli import main
from debench.testing.stub_faults import FaultKind, FaultPlan, Outcome
from debench.testing.stub_process import StubProcess
from debench.testing.stub_prompts import prompt_key
from debench.testing.stub_stats import StubStats

__all__ = [
    "HOST",
    "LIKERT_TEMPLATES",
    "LIKERT_UNPARSEABLE",
    "BatchPlan",
    "FaultKind",
    "FaultPlan",
    "Outcome",
    "Responder",
    "StubConfig",
    "StubProcess",
    "StubServer",
    "StubStats",
    "cycle_responder",
    "fixed_responder",
    "likert_responder",
    "main",
    "prompt_key",
]


class StubServer:
    """The stub server on its own event loop in a background thread; use it as a context manager.

    ``port=0`` picks a free port. ``responder`` defaults to ``likert_responder()``, ``faults`` to a
    plan without faults. ``record_requests=False`` keeps no request bodies (for benchmarks).
    ``batch_endpoints=False`` serves no Files and Batch endpoints (a server ``--batch`` cannot use).
    """

    def __init__(
        self,
        *,
        port: int = 0,
        latency: float = 0.0,
        responder: Responder | None = None,
        faults: FaultPlan | None = None,
        model: str = "stub",
        record_requests: bool = True,
        prefix_cache: bool = False,
        batch: BatchPlan | None = None,
        batch_endpoints: bool = True,
    ) -> None:
        self._core = StubCore(
            latency=latency,
            responder=responder or likert_responder(),
            faults=faults or FaultPlan(),
            model=model,
            record_requests=record_requests,
            prefix_cache=prefix_cache,
            batch_endpoints=batch_endpoints,
        )
        if batch is not None:
            self._core.batches.plan = batch
        self._requested_port = port
        self._port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._ready = threading.Event()
        self._startup_error: BaseException | None = None

    # -- lifecycle -------------------------------------------------------------------------------

    def start(self) -> StubServer:
        """Start serving; returns once the port is bound (or raises the bind error)."""
        if self._thread is not None:
            raise RuntimeError("StubServer already started")
        self._ready.clear()
        self._thread = threading.Thread(target=self._run, name="debench-stub-server", daemon=True)
        self._thread.start()
        self._ready.wait()
        if self._startup_error is not None:
            self._thread.join()
            self._thread = None
            raise self._startup_error
        return self

    def stop(self, timeout: float = 10.0) -> None:
        """Stop serving, cancel in-flight requests and join the thread. Idempotent."""
        thread, loop = self._thread, self._loop
        if thread is None or loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop may already be closed
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)
        if thread.is_alive():
            raise RuntimeError("stub server thread did not stop")
        self._thread = None
        self._loop = None
        self._port = None

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        self._loop = loop
        try:
            try:
                runner, self._port = loop.run_until_complete(self._core.start(self._requested_port))
            except BaseException as exc:  # noqa: BLE001 - reported to start() in the caller's thread
                self._startup_error = exc
                return
            finally:
                self._ready.set()
            try:
                loop.run_forever()
            finally:
                loop.run_until_complete(self._core.close(runner))
        finally:
            _drain_and_close(loop)

    # -- access ----------------------------------------------------------------------------------

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("StubServer is not running")
        return self._port

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT`` (where ``/health`` lives)."""
        return f"http://{HOST}:{self.port}"

    @property
    def base_url(self) -> str:
        """The OpenAI base URL, ``http://127.0.0.1:PORT/v1``."""
        return f"{self.root_url}/v1"

    @property
    def stats(self) -> StubStats:
        """A consistent snapshot of the statistics (safe from any thread)."""
        return self._core.stats()

    def reset_stats(self) -> None:
        """Zero the statistics (fault state such as the script position is kept)."""
        self._core.recorder.reset()

    @property
    def faults(self) -> FaultPlan:
        return self._core.faults

    def set_faults(self, plan: FaultPlan) -> None:
        """Replace the fault plan; its script and per-prompt attempt counts start afresh."""
        self._core.set_faults(plan)

    def set_batch_plan(self, plan: BatchPlan) -> None:
        """How batches created from now on are processed."""
        self._core.batches.plan = plan

    @property
    def batch_desk(self) -> BatchDesk:
        """The server's files and batches (read them in tests)."""
        return self._core.batches

    @property
    def latency(self) -> float:
        return self._core.latency

    @latency.setter
    def latency(self, seconds: float) -> None:
        if seconds < 0:
            raise ValueError("latency must be >= 0")
        self._core.latency = seconds


def _drain_and_close(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel leftover tasks, stop the default executor and close ``loop``."""
    try:
        pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.run_until_complete(loop.shutdown_default_executor())
    finally:
        loop.close()


if __name__ == "__main__":
    sys.exit(main())
