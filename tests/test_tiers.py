"""The test tiers hold together: the embedded model's tests are slow and live where the xdist
scheduler keeps them on one worker, and the README's test command (what ``.ci/run`` runs) runs
every test, in parallel."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from conftest import EMBEDDED_MODEL_MODULES, REPO

TESTS = Path(__file__).resolve().parent


def test_embedded_model_tests_are_slow_and_where_the_scheduler_groups_them() -> None:
    using = {p.name for p in TESTS.glob("test_*.py") if p.name != Path(__file__).name and "mark.local_model" in p.read_text(encoding="utf-8")}
    assert using == EMBEDDED_MODEL_MODULES
    for name in using:
        text = (TESTS / name).read_text(encoding="utf-8")
        assert re.search(r"^pytestmark = \[pytest\.mark\.local_model, pytest\.mark\.slow\]", text, re.MULTILINE), name


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
