"""``clihelp.with_default_sigint``: a command the tests interrupt gets SIGINT's default disposition
even when the test process started with SIGINT ignored (a background job of a non-interactive shell,
``bash -c 'pytest ... &'``), and without it the command would not be interruptible at all: the
cause of the Ctrl-C tests' failures in such runs (docs/testing.md)."""

from __future__ import annotations

import signal
import subprocess
import sys

from clihelp import with_default_sigint

IGNORE_SIGINT_THEN_EXEC = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); os.execv(sys.argv[1], sys.argv[1:])"
)
"""What a non-interactive shell does for a background job: SIGINT ignored, then the command."""

PROBE = [
    sys.executable,
    "-c",
    "import signal, sys; print(signal.getsignal(signal.SIGINT) is "
    "signal.default_int_handler, flush=True); sys.stdin.read()",
]
"""Says whether Python installed its KeyboardInterrupt handler, then reads stdin to its end: an
interrupted probe exits by SIGINT, one that ignored it exits 0 once stdin is closed."""


def _interrupt(cmd: list[str]) -> tuple[str, int]:
    """Start ``cmd`` from a parent that ignores SIGINT, read its first line, send it SIGINT, then close
    its stdin: the line and the exit code."""
    with subprocess.Popen(
        [sys.executable, "-I", "-S", "-c", IGNORE_SIGINT_THEN_EXEC, *cmd],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        line = proc.stdout.readline().strip()  # the probe is running, its handler (or none) in place
        proc.send_signal(signal.SIGINT)
        proc.stdin.close()
        code = proc.wait(timeout=60)
    return line, code


def test_an_ignored_sigint_is_inherited_and_the_command_cannot_be_interrupted() -> None:
    line, code = _interrupt(PROBE)
    assert line == "False"  # no KeyboardInterrupt handler
    assert code == 0  # SIGINT did nothing: the probe ran to its end, as the interrupted commands did


def test_with_default_sigint_makes_the_command_interruptible_again() -> None:
    line, code = _interrupt(with_default_sigint(PROBE))
    assert line == "True"
    assert code == -signal.SIGINT  # KeyboardInterrupt uncaught: Python ends by SIGINT, as a shell expects
