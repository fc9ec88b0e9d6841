"""The test tiers hold together: the embedded model's tests are slow and live where the xdist
scheduler keeps them on one worker, and the README's test command (what ``.ci/run`` runs) runs
every test, in parallel."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EMBEDDED_MODEL_MODULES, REPO

TESTS = Path(__file__).resolve().parent


def test_embedded_model_tests_are_slow_and_where_the_scheduler_groups_them() -> None:
    using = {
        p.name
        for p in TESTS.glob("test_*.py")
        if p.name != Path(__file__).name and "mark.local_model" in p.read_text(encoding="utf-8")
    }
    assert using == EMBEDDED_MODEL_MODULES
    for name in using:
        text = (TESTS / name).read_text(encoding="utf-8")
        assert re.search(r"^pytestmark = \[pytest\.mark\.local_model, pytest\.mark\.slow\]", text, re.MULTILINE), name


PROBE = """
import pytest
from debench.models import local_server


class Started:  # stands for a server: only its key matters to the guard, and close() at exit
    def close(self) -> None:
        pass


def test_unmarked() -> None:
    local_server._SERVERS[("unmarked",)] = Started()


@pytest.mark.local_model
def test_marked() -> None:
    local_server._SERVERS[("marked",)] = Started()
"""


def test_a_test_outside_the_embedded_modules_that_starts_llama_cpp_fails(tmp_path: Path) -> None:
    """conftest's guard: a test not marked ``local_model`` that starts an embedded server in its
    process errors, naming the modules to move it to; a marked one passes."""
    (tmp_path / "test_probe.py").write_text(PROBE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(TESTS), "COLUMNS": "400"}  # the summary lines whole
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-rA",
            "-p",
            "no:cacheprovider",
            "-p",
            "conftest",
            "-W",
            "ignore::pytest.PytestUnknownMarkWarning",
            str(tmp_path / "test_probe.py"),
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert (
        "PASSED test_probe.py::test_marked" in proc.stdout and "PASSED test_probe.py::test_unmarked" in proc.stdout
    )  # the test body itself passed
    assert "ERROR test_probe.py::test_unmarked - Failed: started the embedded llama.cpp server" in proc.stdout, (
        proc.stdout
    )
    assert "ERROR test_probe.py::test_marked" not in proc.stdout


def test_the_readme_test_command_runs_everything_in_parallel() -> None:
    """The line .ci/run extracts (the one after ``<!-- test-command -->`` and its code fence)."""
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    command = lines[lines.index("<!-- test-command -->") + 2]
    pytest_part = shlex.split(command.rsplit("&&", 1)[1])
    assert pytest_part[:4] == ["DEBENCH_DATA_DIR=../shared/datasets", "python", "-m", "pytest"]
    options = pytest_part[4:]
    assert "-n" in options and not any(o in ("-m", "-k", "--deselect", "--ignore", "-x") for o in options), options
    assert "pytest-xdist" in (REPO / "pyproject.toml").read_text(encoding="utf-8")


@pytest.mark.parametrize("marker", ["slow", "local_model", "real_data"])
def test_markers_are_registered(pytestconfig: pytest.Config, marker: str) -> None:
    assert any(line.split(":", 1)[0].split("(", 1)[0] == marker for line in pytestconfig.getini("markers"))
