"""The scoring's answers on the real data stay what they were before it was made fast.

``tests/frozen/scoring_answers.json`` was written by ``tests/scoring_cases.py`` with the earlier
(per-draw) implementation: IBM speeches, DebateArt, BP and the DebateBench sample, scored for
baselines, a constant and a noisy judge with parse failures / errors / not-completed samples,
both parse-failure modes, non-default metric args, plus paired bootstrap and permutation tests.
Every value, CI bound and n must agree to 1e-12 (same seed -> same resamples).
"""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from conftest import real_data_dir
from scoring_cases import FROZEN, answers

# Fields added after the answers were frozen; they carry no number to compare.
# The alt-test's metrics and report (issue 33) came later still: tests/test_alt_test.py checks them
# against an independent implementation on the same real data.
NEW_FIELDS = {"note", "alt_test_winning_rate", "advantage_probability", "alt_test"}


def diff(frozen: Any, now: Any, where: str = "") -> list[str]:
    if isinstance(frozen, dict):
        if not isinstance(now, dict):
            return [f"{where}: {now!r} is not an object"]
        out = [f"{where}.{k}: missing" for k in frozen if k not in now]
        out += [f"{where}.{k}: new key" for k in now if k not in frozen and k not in NEW_FIELDS]
        for k in frozen:
            if k in now:
                out += diff(frozen[k], now[k], f"{where}.{k}")
        return out
    if isinstance(frozen, list):
        if not isinstance(now, list) or len(now) != len(frozen):
            return [f"{where}: {now!r} != {frozen!r}"]
        return [e for i, (a, b) in enumerate(zip(frozen, now, strict=True)) for e in diff(a, b, f"{where}[{i}]")]
    if isinstance(frozen, float) and not isinstance(now, bool) and isinstance(now, (int, float)):
        return [] if math.isclose(frozen, now, rel_tol=0, abs_tol=1e-12) else [f"{where}: {now!r} != {frozen!r}"]
    if type(frozen) is not type(now) and not (isinstance(frozen, int) and isinstance(now, float) and now == frozen):
        return [f"{where}: {now!r} ({type(now).__name__}) != {frozen!r} ({type(frozen).__name__})"]
    return [] if frozen == now else [f"{where}: {now!r} != {frozen!r}"]


@pytest.fixture(scope="module")
def now() -> dict[str, Any]:
    real_data_dir("ibm_debate_speeches")
    real_data_dir("debatrix_panelbench")
    from conftest import DATA_DIR

    return answers(DATA_DIR)


@pytest.fixture(scope="module")
def frozen() -> dict[str, Any]:
    return json.loads(FROZEN.read_text(encoding="utf-8"))


@pytest.mark.slow  # scores every frozen case on the real data
@pytest.mark.real_data("the frozen answers were computed on the real data")
def test_every_frozen_case_is_still_scored(now, frozen):
    assert sorted(now["scores"]) == sorted(frozen["scores"])
    assert sorted(now["paired"]) == sorted(frozen["paired"])


@pytest.mark.slow  # scores every frozen case on the real data
@pytest.mark.parametrize("part", ["scores", "paired"])
@pytest.mark.real_data("the frozen answers were computed on the real data")
def test_answers_equal_the_frozen_ones(now, frozen, part):
    problems = diff(frozen[part], now[part], part)
    assert not problems, "\n".join(problems[:30])


def test_the_comparison_can_fail(frozen):
    """A change in the 13th decimal place passes, in the 11th fails; a lost CI fails."""
    case = json.loads(json.dumps(frozen["scores"]["ibm/random0"]))
    tau = case["metrics"]["kendall_tau_c"]
    case["metrics"]["kendall_tau_c"] = {**tau, "value": tau["value"] + 1e-13}
    assert diff(frozen["scores"]["ibm/random0"], case) == []
    case["metrics"]["kendall_tau_c"] = {**tau, "value": tau["value"] + 1e-11}
    assert diff(frozen["scores"]["ibm/random0"], case)
    case["metrics"]["kendall_tau_c"] = {**tau, "ci95": None}
    assert diff(frozen["scores"]["ibm/random0"], case)
    case["metrics"]["kendall_tau_c"] = {**tau, "n": tau["n"] - 1}
    assert diff(frozen["scores"]["ibm/random0"], case)
