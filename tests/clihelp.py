"""Run the ``debench`` command line as a user does: its exit code, stdout and stderr.

``run_cli`` runs it **in this process** (click's ``CliRunner`` on ``debench.cli.main``, with the
program name, ``sys.argv``, environment, working folder, logging and warnings a new interpreter
would have), which saves the 0.8–1.8 s a new interpreter and its imports cost. The result has the
shape of ``subprocess.run``'s and the same exit codes: 0, 1, 2 for a ``UserError`` or a click usage
error, 130 for Ctrl-C; an unexpected exception exits 1 with its traceback on stderr.

``run_cli_process`` starts ``python -m debench.cli`` for what only a real process shows: signals
and Ctrl-C, a killed process, start-up cost, environment variables that libraries read when they
are imported (``run_cli`` switches to it by itself when a command's environment changes one of
``IMPORT_TIME_ENV``).
``tests/test_cli_in_process.py`` checks that both give the same exit code and output.
"""

from __future__ import annotations

import gc
import logging
import os
import subprocess
import sys
import traceback
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple, TextIO

import debench  # noqa: F401 - before STARTED_WITH: it sets LITELLM_LOCAL_MODEL_COST_MAP's default, which litellm reads at import

PROG_NAME = "python -m debench.cli"
"""What click names the program in usage errors when it is started with ``python -m debench.cli``."""

IMPORT_TIME_ENV = frozenset(
    {
        "LITELLM_LOCAL_MODEL_COST_MAP",  # litellm, when imported
        "HF_HUB_OFFLINE",
        "HF_ENDPOINT",
        "HF_HOME",
        "HF_HUB_CACHE",  # huggingface_hub.constants
        "HF_DATASETS_CACHE",
        "HF_DATASETS_OFFLINE",  # datasets.config
        "PYTHONPATH",
        "PYTHONHASHSEED",
        "PYTHONWARNINGS",  # the interpreter
    }
)
"""Variables read once, at import or at interpreter start: a command whose environment gives one of
them another value than this process started with runs in a new process, where the value takes
effect as it would for a user."""

STARTED_WITH = {key: os.environ.get(key) for key in IMPORT_TIME_ENV}
"""The values the libraries of this process read (the test modules import this module first)."""

DEFAULT_WARNING_FILTERS = (
    ("default", DeprecationWarning, "__main__"),
    ("ignore", DeprecationWarning, ""),
    ("ignore", PendingDeprecationWarning, ""),
    ("ignore", ImportWarning, ""),
    ("ignore", ResourceWarning, ""),
)
"""CPython's warning filters when started without ``-W`` (pytest replaces them during a test)."""

LITELLM_IMPORT_FILTERS = (
    ".*conflict with protected namespace.*",
    ".*Accessing the.*attribute on the instance is deprecated.*",
    ".*`ReadOnly` qualifier.*",
)
"""The warnings litellm ignores from its import on (``litellm/__init__.py``; newer versions in
``litellm._process_defaults``). A new process that uses litellm has these filters; in this one,
pytest dropped them at the end of the test that first imported litellm. Without them, newer
litellm's TypedDicts (``ReadOnly`` items) made pydantic print warnings above a command's output
that no real process prints (seen with litellm 1.110.2 and pydantic 2.14)."""


Env = Mapping[str, "str | None"]
"""Changes to this process's environment for one command: a value, or None to unset the variable."""


def _environment(env: Env | None) -> dict[str, str]:
    full = dict(os.environ)
    for key, value in (env or {}).items():
        if value is None:
            full.pop(key, None)
        else:
            full[key] = value
    return full


def run_cli_process(
    *args: str, env: Env | None = None, cwd: Path | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``python -m debench.cli ARGS`` in a new process."""
    full_env = _environment(env)
    return subprocess.run(
        [sys.executable, "-m", "debench.cli", *args],
        check=False,
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd,
        timeout=timeout,
    )


SIGINT_DEFAULT_THEN_EXEC = (
    "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"
)
"""Restore SIGINT's default disposition, then become the command (same process id)."""


def with_default_sigint(cmd: Sequence[str]) -> list[str]:
    """``cmd`` (its first item an absolute path, e.g. ``sys.executable``), started with SIGINT's
    default disposition whatever this process's is, for the tests that interrupt it.

    A non-interactive shell starts a background job (``pytest ... &``) with SIGINT *ignored*; an
    ignored disposition survives fork and exec, and a Python started with SIGINT ignored installs
    no ``KeyboardInterrupt`` handler: the "interrupted" command would run to its end and exit 0.
    A terminal's Ctrl-C never meets that case, so the command gets the default back first, through
    a small interpreter that resets it and execs the command (``preexec_fn`` could do it too, but it
    is unsafe in a process with threads, such as the stub server's)."""
    return [sys.executable, "-I", "-S", "-c", SIGINT_DEFAULT_THEN_EXEC, *cmd]


def run_cli(
    *args: str, env: Env | None = None, cwd: Path | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """``debench ARGS`` in this process, as ``run_cli_process`` would run it; ``timeout`` applies only
    when the command needs a new process (see ``IMPORT_TIME_ENV``)."""
    full_env = _environment(env)
    if any(full_env.get(key) != value for key, value in STARTED_WITH.items()):
        return run_cli_process(*args, env=env, cwd=cwd, timeout=timeout)
    from click.testing import CliRunner

    from debench.cli import main

    _freeze_imports()
    with _as_a_new_process(args, full_env, cwd):
        result = CliRunner().invoke(main, list(args), prog_name=PROG_NAME, catch_exceptions=True)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit) and result.exc_info is not None:
        stderr += "".join(traceback.format_exception(*result.exc_info))  # what the interpreter prints
    return subprocess.CompletedProcess(
        ["debench", *args], result.exit_code, result.stdout, stderr
    )  # args: run in-process


_frozen = False


def _freeze_imports() -> None:
    """Once: import litellm (most commands that call a model do) and move every object alive now —
    the imported libraries, mostly — out of the garbage collector's sight (``gc.freeze``), so the
    collection after each command scans only what was made since (~30 ms, not ~0.5 s)."""
    global _frozen  # noqa: PLW0603 - a once-per-process flag
    if not _frozen:
        import litellm  # noqa: F401 - imported for the freeze

        gc.collect()
        gc.freeze()
        _frozen = True


class _CurrentStderr:
    """A stream that writes to whatever ``sys.stderr`` is when written to."""

    name = "<current stderr>"

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def _show_warning(
    message: Warning | str,
    category: type[Warning],
    filename: str,
    lineno: int,
    file: TextIO | None = None,
    line: str | None = None,
) -> None:
    sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))


def _loggers() -> list[logging.Logger]:
    return [
        logging.getLogger(),
        *(lg for lg in list(logging.Logger.manager.loggerDict.values()) if isinstance(lg, logging.Logger)),
    ]


@contextmanager
def _as_a_new_process(args: tuple[str, ...], env: dict[str, str], cwd: Path | None) -> Iterator[None]:
    """This process made to look like a new one for the length of a command, then put back:
    environment, working folder, ``sys.argv``, the root logger (no handlers, so ``debench -v``'s
    ``basicConfig`` writes to the command's stderr) and every logger's level, warning filters,
    the secrets ``debench.core.redact`` remembers and litellm's cached HTTP clients. A log handler a library bound to
    stderr when it was imported (perhaps during an earlier command, whose stderr is gone) writes to the current stderr,
    as it would in a new process."""
    import debench.cli
    from debench.core import redact

    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_argv = sys.argv
    root = logging.getLogger()
    saved_handlers, saved_root_level = root.handlers[:], root.level
    saved_levels = {lg.name: lg.level for lg in _loggers()[1:]}
    saved_secrets = set(redact._REMEMBERED)
    os.environ.clear()
    os.environ.update(env)
    sys.argv = [str(Path(debench.cli.__file__).with_name("__main__.py")), *args]  # as `python -m` sets it
    root.handlers = []
    root.setLevel(logging.WARNING)
    for lg in _loggers()[1:]:
        for handler in lg.handlers:
            if type(handler) is logging.StreamHandler and getattr(handler.stream, "name", None) == "<stderr>":
                handler.setStream(_CurrentStderr())  # it has write() and flush()
    try:
        if cwd is not None:
            os.chdir(cwd)
        with warnings.catch_warnings():
            warnings.resetwarnings()
            for action, category, module in DEFAULT_WARNING_FILTERS:
                warnings.filterwarnings(action, category=category, module=module, append=True)
            if "litellm" in sys.modules:
                for message in LITELLM_IMPORT_FILTERS:
                    warnings.filterwarnings("ignore", message=message)
            warnings.showwarning = _show_warning
            yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        sys.argv = saved_argv
        for handler in root.handlers:
            if handler not in saved_handlers:
                handler.close()
        root.handlers = saved_handlers
        root.setLevel(saved_root_level)
        for lg in _loggers()[1:]:
            if lg.name in saved_levels:
                lg.setLevel(saved_levels[lg.name])
        redact._REMEMBERED.clear()
        redact._REMEMBERED.update(saved_secrets)
        # litellm caches HTTP clients by the id of the event loop they were made in (a later loop
        # can get the same id), and an openai client collected while a loop runs schedules its
        # close on that loop, where the old loop's sockets fail: a new process starts with no
        # client, so forget them and collect them now, with no loop running
        sys.modules["litellm"].in_memory_llm_clients_cache.flush_cache()
        gc.collect()


def invoke(*args: str, env: Env | None = None) -> CliResult:
    """``run_cli`` with a result that checks refusals (``one_line_error``)."""
    result = run_cli(*args, env=env)
    return CliResult(result.returncode, result.stdout, result.stderr)


class CliResult(NamedTuple):
    returncode: int
    stdout: str
    stderr: str

    def one_line_error(self) -> str:
        """The stderr of a refusal: exactly one line, exit code 2; returns it."""
        lines = self.stderr.strip().splitlines()
        assert self.returncode == 2 and len(lines) == 1, (self.returncode, self.stderr)
        assert lines[0].startswith("debench: error: "), self.stderr
        return lines[0]
