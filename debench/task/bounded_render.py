"""Prompt templates rendered within bounds that hold whatever the template does.

A *plain* template (``prompt_sandbox.plain``: text, variables, conditions, ``~``, arithmetic and a
few filters; nothing that loops, calls, assigns or runs twice) renders in this process: every step
runs once and is bounded by the sandbox's checks, so its rendering costs what it always did. Any
other template renders in a worker process with an address-space limit (``MAX_RENDER_BYTES``) and
a CPU-time limit, and the worker is killed when an answer takes longer than ``MAX_RENDER_S`` (plus
``GRACE_S``): however long a loop runs or however much it keeps, the rendering ends within its time
bound and its memory stays within the worker's limit, and a template past a bound is one
``TemplateBoundError`` (one line, exit code 2). The sandbox's own checks run in the worker too, so
the common refusals say what was past its bound. The worker starts on first use (~0.3 s), renders
every later template of the process (~0.5 ms each: the context goes through a pipe), is started
again after it was killed, and ends with the process or when its pipe closes.

``python -m debench.task.bounded_render`` is the worker itself.
"""

from __future__ import annotations

import atexit
import math
import os
import pickle
import signal
import subprocess
import sys
import threading
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from debench.task import prompt_sandbox
from debench.task.prompt_sandbox import TemplateBoundError, plain, render_here

MAX_RENDER_BYTES = 1 << 30
"""The worker's address-space limit (1 GiB; about 25 MB of it is the interpreter and Jinja2)."""
GRACE_S = 1.0
"""How much longer than ``MAX_RENDER_S`` an answer is waited for before the worker is killed."""


def render(text: str, context: dict[str, Any]) -> str:
    """``text`` rendered with ``context`` within the bounds: here when it is plain, else in the worker."""
    return render_here(text, context) if plain(text) else _WORKER.render(text, context)


def _time_bound() -> TemplateBoundError:
    return TemplateBoundError(f"the prompt template takes more than {prompt_sandbox.MAX_RENDER_S:g} s to render")


def _memory_bound() -> TemplateBoundError:
    return TemplateBoundError(f"the prompt template needs more than {MAX_RENDER_BYTES >> 20} MB of memory to render")


class _Worker:
    """The parent's side: one worker process, one rendering at a time."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.requests: Connection | None = None
        self.answers: Connection | None = None
        self.lock = threading.Lock()

    def _start(self) -> None:
        package_root = str(Path(__file__).resolve().parents[2])
        path = os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)
        worker_stdin, request_end = os.pipe()  # (read, write)
        answer_end, worker_stdout = os.pipe()
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-P", "-m", "debench.task.bounded_render"],
                stdin=worker_stdin,
                stdout=worker_stdout,
                stderr=subprocess.DEVNULL,
                env={**os.environ, "PYTHONPATH": path},
            )
        finally:
            os.close(worker_stdin)
            os.close(worker_stdout)
        self.requests = Connection(request_end, readable=False)
        self.answers = Connection(answer_end, writable=False)
        atexit.register(self.close)

    def close(self) -> int | None:
        """Stop the worker (killed if it is still rendering); its exit code, or None if none ran."""
        proc, self.proc = self.proc, None
        for conn in (self.requests, self.answers):
            if conn is not None:
                conn.close()
        self.requests = self.answers = None
        if proc is None:
            return None
        atexit.unregister(self.close)
        proc.kill()
        return proc.wait()

    def _ask(self, request: tuple[Any, ...]) -> tuple[str, Any]:
        if self.proc is None or self.proc.poll() is not None:
            self.close()
            self._start()
        assert self.requests is not None and self.answers is not None
        self.requests.send(request)
        if not self.answers.poll(prompt_sandbox.MAX_RENDER_S + GRACE_S):
            self.close()
            raise _time_bound()
        try:
            answer: tuple[str, Any] = self.answers.recv()
        except EOFError:  # the worker ended: its CPU-time limit (SIGXCPU), or killed for its memory
            code = self.close()
            raise _time_bound() if code == -getattr(signal, "SIGXCPU", 0) else _memory_bound() from None
        return answer

    def render(self, text: str, context: dict[str, Any]) -> str:
        with self.lock:
            kind, value = self._ask((text, context, prompt_sandbox.MAX_RENDER_S, prompt_sandbox.MAX_OUTPUT_CHARS))
        if kind == "bound":
            raise TemplateBoundError(value)
        if kind == "error":
            raise value
        return str(value)


_WORKER = _Worker()


def _limit(resource_name: str, soft: int) -> None:
    """Lower a soft limit of this process (never above its hard limit); where the platform has no
    such limit, the parent's time bound still holds."""
    try:
        import resource

        which = getattr(resource, resource_name)
        _, hard = resource.getrlimit(which)
        resource.setrlimit(which, (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
    except (ImportError, AttributeError, ValueError, OSError):
        pass


def _cpu_used() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _answer(text: str, context: dict[str, Any]) -> tuple[str, Any]:
    """One rendering in the worker: ("ok", text), ("bound", message) or ("error", the exception)."""
    try:
        return "ok", render_here(text, context)
    except TemplateBoundError as exc:
        return "bound", str(exc)
    except MemoryError:
        return "bound", str(_memory_bound())
    except Exception as exc:  # noqa: BLE001 - the template's own error, raised again in the parent
        try:
            pickle.dumps(exc)
        except Exception:  # noqa: BLE001 - an exception that cannot travel is sent as its text
            return "error", RuntimeError(f"{type(exc).__name__}: {exc}")
        return "error", exc


def main() -> None:
    """The worker: renderings read from stdin, answers written to stdout, until stdin closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _limit("RLIMIT_AS", MAX_RENDER_BYTES)
    requests, answers = Connection(0, writable=False), Connection(1, readable=False)
    sys.stdout = sys.stderr
    while True:
        try:
            text, context, seconds, chars = requests.recv()
        except EOFError:
            return
        prompt_sandbox.MAX_RENDER_S, prompt_sandbox.MAX_OUTPUT_CHARS = seconds, chars
        _limit("RLIMIT_CPU", math.ceil(_cpu_used() + seconds + GRACE_S))
        answers.send(_answer(text, context))


if __name__ == "__main__":
    main()
