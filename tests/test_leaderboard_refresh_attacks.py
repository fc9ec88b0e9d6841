"""Issue 29's attacks on the refresh job, rebuilt on copies of the committed embedded-model
submission (real data, no model run): each must fail to get a forged number ranked, stop the job,
or spend beyond the maintainers' budget."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import real_data_dir
from lbhelp import REPO, SEEDS, edit_json, gate, refresh_board, variant

TASK = "ibm_speech_likert"
pytestmark = pytest.mark.slow  # each validates the 631-speech submission, a few times


def _tree(tmp_path: Path) -> Path:
    real_data_dir("ibm_debate_speeches")
    subs = tmp_path / "leaderboard" / "submissions"
    subs.mkdir(parents=True)
    src = SEEDS / "local__smollm2"
    dest = subs / "local__smollm2"
    dest.mkdir()
    for f in src.glob("*_ibm_speech_likert_*.json*"):
        if not f.name.startswith("spotcheck_"):
            shutil.copy(f, dest / f.name)
    return subs


def _variant(subs: Path, folder: str, change: Any) -> Path:
    """A copy of the embedded model's submission in ``folder`` with its identity changed by ``change``."""
    (results,) = (subs / "local__smollm2").glob("results_*.json")
    return variant(results, subs / folder, change)


def _refresh(subs: Path, *extra: str, maintainers: Path | None = None) -> tuple[int, str, str, dict[str, Any]]:
    return refresh_board(
        subs.parent, "--maintainers", str(maintainers or REPO / "leaderboard" / "maintainers.yaml"), *extra
    )


def _task(board: dict[str, Any]) -> dict[str, Any]:
    (t,) = [t for t in board["tasks"] if t["name"] == TASK]
    return dict(t)


def test_an_entry_that_cannot_be_read_is_listed_and_the_others_are_built(tmp_path: Path) -> None:
    subs = _tree(tmp_path)
    _variant(subs, "crash", lambda ident: ident.update(generation=[]))  # crashed every refresh with a TypeError
    code, out, err, board = _refresh(subs)
    assert code == 0, err
    assert any("crash/" in n and "model.identity.generation" in n for n in board["not_built"])
    assert [e["submission"] for e in _task(board)["self_reported"]] == ["local__smollm2"]
    assert str(tmp_path) not in out + err + json.dumps(board)


def test_seed_variants_at_temperature_0_nominate_one_canonical_judge_run_once(tmp_path: Path) -> None:
    subs = _tree(tmp_path)
    for k in range(1, 4):
        _variant(subs, f"a_seed{k}", lambda ident, k=k: ident.update(generation={"seed": k}))
    (subs.parent / "queue.json").write_text(
        json.dumps(
            {
                "schema_version": "1.0",
                "entries": [f"local__smollm2/{next((subs / 'local__smollm2').glob('results_*.json')).name}"],
            }
        )
    )
    code, _, err, board = _refresh(subs)
    assert code == 0, err
    rows = _task(board)["self_reported"]
    assert board["not_built"] == [] and len(rows) == 4  # every nomination accepted, none refused as a copy
    assert {e["nominates"] for e in rows} == {"local/smollm2/direct"}
    # one run of the judge waits, nominated first by the folder merged first, though "a_seed…" sorts first
    assert [(w["judge"], w["nominated_by"].split("/")[0]) for w in board["waiting"]] == [
        ("local/smollm2/direct", "local__smollm2")
    ]


def _gate(tmp_path: Path, change: Any) -> tuple[int, str, str]:
    """The gate of a pull request adding a folder ``change`` makes (given the pull request's submissions)."""
    base = tmp_path / "base" / "leaderboard" / "submissions"
    shutil.copytree(_tree(tmp_path / "b"), base)
    pr = tmp_path / "pr" / "leaderboard" / "submissions"
    shutil.copytree(base, pr)
    change(pr)
    return gate(tmp_path / "pr", tmp_path / "base", tmp_path / "board")


def test_a_later_nomination_of_a_merged_canonical_judge_is_accepted_at_the_gate(tmp_path: Path) -> None:
    code, out, err = _gate(tmp_path, lambda pr: shutil.copytree(pr / "local__smollm2", pr / "aaa_copy"))
    assert code == 0, (out, err)
    assert "aaa_copy/" in out and "nominates the canonical judge local/smollm2/direct" in out


def test_an_n_ctx_above_the_maintainers_is_refused_at_the_gate_and_a_smaller_one_is_self_reported(
    tmp_path: Path,
) -> None:
    code, out, err = _gate(tmp_path / "big", lambda pr: _variant(pr, "big_ctx", lambda i: i.update(n_ctx=700_000)))
    assert code == 2, (out, err)
    assert "big_ctx/" in err and "field 'model.identity.n_ctx': n_ctx 700000 is above the 4096" in err
    code, out, err = _gate(tmp_path / "small", lambda pr: _variant(pr, "small_ctx", lambda i: i.update(n_ctx=1024)))
    assert code == 0, (out, err)
    assert "n_ctx 1024 (canonical: not set)" in out


def test_an_entry_above_the_per_entry_budget_is_never_run(tmp_path: Path) -> None:
    subs = _tree(tmp_path)
    text = (REPO / "leaderboard" / "maintainers.yaml").read_text().replace("requests: 2000\n", "requests: 100\n")
    maint = tmp_path / "maintainers.yaml"
    maint.write_text(text)
    code, _, err, board = _refresh(subs, "--reproduce", maintainers=maint)  # no model is started: it would take hours
    assert code == 0, err
    (entry,) = _task(board)["self_reported"]
    assert "above one entry's budget" in entry["standing_reason"] and not (subs.parent / "reproduced").exists()
    assert _task(board)["verified"] == []


@pytest.mark.parametrize("name", ["gpt\n::error file=x::forged", "gpt\x1b[31m"])
def test_a_control_character_in_a_model_name_is_refused_and_never_printed(tmp_path: Path, name: str) -> None:
    subs = _tree(tmp_path)
    (results,) = (subs / "local__smollm2").glob("results_*.json")
    edit_json(results, lambda d: d["model"].update(name=name))
    code, out, err, board = _refresh(subs)
    assert code == 0, err
    assert "control character" in " ".join(board["not_built"])
    assert not any(line.startswith("::") for line in (out + err).splitlines()) and "\x1b" not in out + err


def test_the_overall_task_set_is_the_maintainers(tmp_path: Path) -> None:
    subs = _tree(tmp_path)
    code, _, err, board = _refresh(subs)
    assert code == 0, err
    from debench.leaderboard.maintainers import load_maintainers

    assert board["overall_tasks"] == load_maintainers(REPO / "leaderboard" / "maintainers.yaml").overall_tasks
