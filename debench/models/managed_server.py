"""Servers debench starts as child processes (``vllm serve``) and always stops.

A ``ManagedServer`` runs one command on 127.0.0.1 and a free port, in a process group of its own
(its own session: a Ctrl-C in the terminal reaches debench, which then stops the server, not the
server directly), with its output in a log file. It is started by the first request that needs it
(a run answered from the cache starts nothing) and is ready when ``GET /v1/models`` lists the
served model. If the process exits first, or does not answer within its startup timeout, the
error is one line followed by the last lines of its log (``UserError``: exit code 2).

Stopping sends SIGTERM to the whole process group, waits ``GRACE_S`` seconds, then sends SIGKILL to
whatever is left of the group (workers included). Servers stop:

* when the ``server_scope()`` in which it was first asked for ends: every CLI command runs in one
  (``debench.cli.common.DebenchGroup``), and so do ``debench.aevaluate`` and each entry the
  leaderboard's job runs: on success, on an error, on Ctrl-C (exit 130);
* at interpreter exit (``atexit``), for servers started outside any scope;
* on Linux, when debench itself dies (SIGKILL, an unhandled SIGTERM): the server's main process is
  started with ``PR_SET_PDEATHSIG`` = SIGTERM when debench starts it from its main thread.

One server per distinct ``ServerSpec`` (command, weights and settings) at a time: every model of
the command with the same spec shares it (an arena's debater and judge, ``model@temperature=…``
variants).
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from debench.core.errors import UserError

HOST = "127.0.0.1"
GRACE_S = 15.0
"""Seconds between SIGTERM and SIGKILL."""
POLL_S = 0.25
LOG_LINES = 15


@dataclass(frozen=True)
class ServerSpec:
    argv: tuple[str, ...]
    """The command without ``--host`` / ``--port`` (debench adds them)."""
    served_name: str
    """The model id ``/v1/models`` must list once the server is ready."""
    label: str = field(compare=False)
    """What the user named (the model string), for messages."""
    startup_timeout: float = field(compare=False)
    """(Neither decides which server: a second model with another timeout shares the first's.)"""


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


def _die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child receive SIGTERM when debench dies (Linux; only from the
    main thread: the signal follows the thread that forked, not the process)."""
    if not sys.platform.startswith("linux") or threading.current_thread() is not threading.main_thread():
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up before the fork
    except (OSError, AttributeError):
        return None
    pr_set_pdeathsig = 1

    def preexec() -> None:
        prctl(pr_set_pdeathsig, int(signal.SIGTERM))

    return preexec


def _group_alive(pgid: int) -> bool:
    """Some process of the group still runs (zombies, already dead, do not count)."""
    proc = Path("/proc")
    if proc.is_dir():
        for entry in proc.iterdir():
            if not entry.name.isdigit():
                continue
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            fields = stat[stat.rfind(")") + 2 :].split()
            if len(fields) > 2 and fields[2] == str(pgid) and fields[0] != "Z":
                return True
        return False
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def stop_process_group(proc: subprocess.Popen[bytes], grace: float | None = None) -> None:
    """SIGTERM to the process group, SIGKILL after ``grace`` seconds (default ``GRACE_S``); returns
    when no process of the group is left (the leader reaped)."""
    grace = GRACE_S if grace is None else grace
    pgid = proc.pid  # start_new_session: the leader's pid is the group's id
    _signal_group(pgid, signal.SIGTERM)  # also when the leader is gone: its workers are left
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        _signal_group(pgid, signal.SIGKILL)
        proc.wait()
    deadline = time.monotonic() + min(grace, 2.0)  # workers finishing their own shutdown
    while _group_alive(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    _signal_group(pgid, signal.SIGKILL)


class ManagedServer:
    def __init__(self, spec: ServerSpec):
        self.spec = spec
        self.proc: subprocess.Popen[bytes] | None = None
        self.base_url = ""
        self.log_path: Path | None = None
        self.argv: list[str] = []
        self._start: asyncio.Task[str] | None = None
        self._start_loop: asyncio.AbstractEventLoop | None = None
        self._error: UserError | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def exited(self) -> bool:
        """It ran and is gone (or failed to start)."""
        return self._error is not None or (self.proc is not None and self.proc.poll() is not None)

    async def ensure_ready(self) -> str:
        """The server's base URL (``http://127.0.0.1:<port>/v1``), starting it on first use; every
        caller waits for the one start. A failed start raises the same error for every caller."""
        if self._error is not None:
            raise self._error
        if self.base_url and self.proc is not None and self.proc.poll() is None:
            return self.base_url
        loop = asyncio.get_running_loop()
        if self._start is None or self._start_loop is not loop:
            self._start, self._start_loop = loop.create_task(self._run()), loop
        return await asyncio.shield(self._start)

    def _spawn(self, port: int) -> None:
        """Start the command (returns at once), its output into a fresh log file."""
        self.argv = [*self.spec.argv, "--host", HOST, "--port", str(port)]
        fd, log = tempfile.mkstemp(prefix="debench-server-", suffix=".log")
        self.log_path = Path(log)
        try:
            self.proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.DEVNULL,
                stdout=fd,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent(),  # noqa: PLW1509 - see _die_with_parent
            )
        except OSError as exc:
            self._fail(
                UserError(f"{self.spec.label}: cannot run {self.argv[0]} ({exc.strerror or type(exc).__name__})")
            )
        finally:
            os.close(fd)

    async def _run(self) -> str:
        port = free_port()
        self._spawn(port)
        try:
            await self._wait_ready(port)
        except UserError as exc:
            self._fail(exc)
        except BaseException:  # cancelled (Ctrl-C) while waiting
            self.stop(keep_log=False)
            raise
        self.base_url = f"http://{HOST}:{port}/v1"
        return self.base_url

    def _fail(self, error: UserError) -> None:
        self.stop(keep_log=True)
        self._error = error
        raise error

    async def _wait_ready(self, port: int) -> None:
        import aiohttp

        assert self.proc is not None
        url = f"http://{HOST}:{port}/v1/models"
        deadline = time.monotonic() + self.spec.startup_timeout
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as session:
            while True:
                code = self.proc.poll()
                if code is not None:
                    raise self.failure(f"exited with code {code} before it answered")
                try:
                    async with session.get(url) as resp:
                        if resp.status == 200:
                            data = await resp.json(content_type=None)
                            ids = [m.get("id") for m in data.get("data", []) if isinstance(m, dict)]
                            if self.spec.served_name in ids:
                                return
                            raise self.failure(
                                f"port {port} answers for {ids}, not for {self.spec.served_name!r} "
                                "(another server took the port?)"
                            )
                except (aiohttp.ClientError, TimeoutError, ValueError, AttributeError):
                    pass
                if time.monotonic() > deadline:
                    raise self.failure(
                        f"did not answer on {url} within {self.spec.startup_timeout:g} s "
                        "(model argument startup_timeout)"
                    )
                await asyncio.sleep(POLL_S)

    def failure(self, what: str) -> UserError:
        """One line saying what happened, then the last lines of the server's log."""
        tail = self.log_tail()
        where = f"; its log: {self.log_path}" if self.log_path else ""
        lines = "".join(f"\n  | {line}" for line in tail) if tail else "\n  | (the log is empty)"
        return UserError(f"{self.spec.label}: the server ({' '.join(self.spec.argv[:2])}) {what}{where}{lines}")

    def log_tail(self, n: int = LOG_LINES) -> list[str]:
        if self.log_path is None or not self.log_path.is_file():
            return []
        with open(self.log_path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 8192))
            text = f.read().decode("utf-8", "replace")
        return [line.rstrip() for line in text.splitlines() if line.strip()][-n:]

    def died_error(self) -> UserError:
        """The error of a server that exited after it was ready (the first caller stops what is
        left of its process group; every caller gets the same error)."""
        if self._error is None:
            code = self.proc.poll() if self.proc is not None else None
            self._error = self.failure(f"exited with code {code} during the run")
            self.stop(keep_log=True)
        return self._error

    def stop(self, keep_log: bool = False) -> None:
        """Stop the process group (idempotent; a second Ctrl-C during it leaves the server to the
        ``atexit`` hook, which stops it again)."""
        self.base_url = ""
        self._start = self._start_loop = None
        if self.proc is not None:
            stop_process_group(self.proc)
            self.proc = None
        if self.log_path is not None and not keep_log:
            with contextlib.suppress(OSError):
                self.log_path.unlink()
            self.log_path = None


_SERVERS: dict[ServerSpec, ManagedServer] = {}
_SCOPES: list[set[ServerSpec]] = []
_LOCK = threading.Lock()


def shared_server(spec: ServerSpec) -> ManagedServer:
    """The one server of this spec (started on its first request); it belongs to the innermost
    ``server_scope`` open when it was first asked for."""
    with _LOCK:
        server = _SERVERS.get(spec)
        if server is None:
            server = _SERVERS[spec] = ManagedServer(spec)
            if _SCOPES:
                _SCOPES[-1].add(spec)
        return server


def _stop(specs: list[ServerSpec]) -> None:
    for spec in specs:
        with _LOCK:
            server = _SERVERS.get(spec)
        if server is not None:
            server.stop(keep_log=server._error is not None)
            with _LOCK:
                _SERVERS.pop(spec, None)


def stop_all() -> None:
    with _LOCK:
        specs = list(_SERVERS)
    _stop(specs)


@contextlib.contextmanager
def server_scope() -> Iterator[None]:
    """Servers first asked for inside the scope (and not in an enclosing one) are stopped when it
    ends, however it ends: a command's, a Python API call's, the leaderboard's run of one entry."""
    mine: set[ServerSpec] = set()
    with _LOCK:
        _SCOPES.append(mine)
    try:
        yield
    finally:
        with _LOCK:
            _SCOPES.remove(mine)
        _stop(list(mine))


atexit.register(stop_all)
