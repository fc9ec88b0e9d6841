"""The leaderboard's own spot check through the embedded model it serves itself (``local/smollm2``):
made-up answers fail it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lbhelp import (
    COMMIT,
    board_build,
    board_json,
    edit_records,
    rescore,
    smollm2_record,
    smollm2_results,
)

pytestmark = [pytest.mark.local_model, pytest.mark.slow]


def test_answers_the_embedded_model_does_not_give_fail_the_jobs_spot_check(smollm2: Path, tmp_path: Path) -> None:
    """The refresh job re-judges through the model it serves itself: answers the submission made up
    (every speech 'Score: 3', a rating this model never gives here) agree on none of the 8 drawn
    speeches; the entry is removed and the failed record kept, so the next build removes it again
    without re-running anything."""
    smollm2_record(smollm2).unlink()
    res = smollm2_results(smollm2)
    samples = res.parent / json.loads(res.read_text())["samples_file"]
    edit_records(samples, lambda i, rec: rec.update(response="Score: 3", prediction=3))
    rescore(res)
    got = board_build(smollm2, tmp_path / "out", "--spot-check-commit", COMMIT)
    assert got.exit_code == 0, got.stderr
    board = board_json(tmp_path / "out")
    (removed,) = board["removed"]
    assert "failed the leaderboard's spot check" in removed["reason"] and "0% of 8 documents agreed" in removed["reason"]
    record = json.loads(smollm2_record(smollm2).read_text())
    assert record["passed"] is False and record["seed_commit"] == COMMIT and record["endpoints"][0]["id"] == "smollm2"
    assert all(d["submitted"] == "3" and d["rejudged"] in ("1", "2", "4", "5") for d in record["documents"])
    got = board_build(smollm2, tmp_path / "again")
    assert got.exit_code == 0 and board_json(tmp_path / "again")["removed"][0]["reason"] == removed["reason"]
