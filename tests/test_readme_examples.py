"""Every command the README shows with its output still runs and still prints the lines shown
(``tests/readme_examples.py`` says how they are read). The examples that run the embedded model are
checked in ``test_local_model.py``, with the model's other tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from clihelp import run_cli
from conftest import REPO
from readme_examples import check_example, examples, missing_lines, working_folder

README = REPO / "README.md"
FAST = [e for e in examples(README) if not e.uses_embedded_model]


def _param(example):
    marks = (
        [pytest.mark.real_data("the README shows numbers computed on the real data sets")] if example.needs_data else []
    )
    return pytest.param(example, id=example.name, marks=marks)


def test_the_readme_has_examples_with_output() -> None:
    """The collection below is not empty by accident: the examples are there, with output shown,
    and the embedded model's are there for ``test_local_model.py``."""
    found = examples(README)
    assert len(FAST) >= 4 and any(e.uses_embedded_model for e in found)
    assert all(any(c.shown for c in e.commands) for e in found)


@pytest.mark.parametrize("example", [_param(e) for e in FAST])
def test_readme_example(example, tmp_path: Path) -> None:
    check_example(example, working_folder(tmp_path, REPO), run_cli)


def test_the_output_check_can_fail() -> None:
    """A changed number, a line out of order or a line not printed is reported; trimming is not."""
    printed = "head\n  rmse    0.6595  [0.58, 0.72]   \n  accuracy 0.52\ntail\n"
    assert missing_lines(["head", "  accuracy 0.52"], printed) == []
    assert missing_lines(["  rmse    0.6595  …", "tail"], printed) == []
    assert missing_lines(["  rmse    0.6596  …"], printed) == ["  rmse    0.6596  …"]
    assert missing_lines(["  accuracy 0.52", "  rmse    0.6595  [0.58, 0.72]"], printed) == [
        "  rmse    0.6595  [0.58, 0.72]"
    ]
    assert missing_lines(["head", "not printed", "tail"], printed) == ["not printed", "tail"]
    assert missing_lines(["  accuracy 0.5"], printed) == ["  accuracy 0.5"]  # a whole line, not a prefix
