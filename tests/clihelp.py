"""Run the real ``debench`` CLI in a subprocess (exit codes and stderr exactly as a user sees them)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple


def run_cli(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "debench.cli", *args],
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd,
        timeout=timeout,
    )


def invoke(*args: str, env: dict[str, str] | None = None) -> CliResult:
    """Run ``debench ARGS`` in this process (``click.testing.CliRunner``): fast, for error paths."""
    from click.testing import CliRunner

    from debench.cli import main

    result = CliRunner().invoke(main, list(args), env=env, catch_exceptions=False)
    return CliResult(result.exit_code, result.stdout, result.stderr)


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
