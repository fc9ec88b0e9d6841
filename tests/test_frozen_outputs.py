"""The outputs of debench's branchiest functions stay what they were before those functions were
split into named steps: every case of ``tests/frozen_outputs.py`` (real transcripts, charts,
reports, arena runs and rankings, schedules, parser and template checks, Debatrix chains) gives
exactly what ``tests/frozen/outputs.json`` holds."""

from __future__ import annotations

import json
from typing import Any

import pytest
from frozen_outputs import CASES, FROZEN, NEEDS_NO_DATA, answer

FROZEN_ANSWERS: dict[str, Any] = json.loads(FROZEN.read_text(encoding="utf-8"))
ON_REAL_DATA = pytest.mark.real_data("frozen on the real data sets")


@pytest.mark.parametrize("case", [pytest.param(c, marks=[] if c in NEEDS_NO_DATA else [ON_REAL_DATA]) for c in CASES])
def test_the_output_is_the_frozen_one(case: str) -> None:
    assert answer(case) == FROZEN_ANSWERS[case]


def test_every_case_is_frozen() -> None:
    assert set(FROZEN_ANSWERS) == set(CASES)
