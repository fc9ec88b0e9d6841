"""The papers' reported numbers (leaderboard/reported.json): checked against their schema and
against debench (task, metric, method, paper, value vs the printed number); a bad row is a
one-line error naming the file and the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from debench.core.errors import UserError
from debench.leaderboard.reported import NOT_VERIFIED, REPORTED_SCHEMA_PATH, load_reported, reported_json_schema

REPO = Path(__file__).resolve().parent.parent
REPORTED = REPO / "leaderboard" / "reported.json"


def test_schema_file_is_current() -> None:
    assert REPORTED_SCHEMA_PATH.read_text() == json.dumps(reported_json_schema(), indent=2, sort_keys=True) + "\n", (
        "run python scripts/write_schemas.py"
    )


def test_committed_rows_load() -> None:
    r = load_reported(REPORTED)
    assert {p.id for p in r.papers} == {"debatrix", "debatable_intelligence", "debatebench", "moniri"}
    assert r.rows and all(row.label == NOT_VERIFIED and row.table.startswith("Table ") for row in r.rows)
    # every paper either gave rows or says why it gave none
    with_rows = {row.paper for row in r.rows}
    assert with_rows | {p.paper for p in r.papers_without_rows} == {p.id for p in r.papers}

    # spot checks of the transcription against the papers' tables (Debatrix Tables 5, 6, 7, 10)
    def find(table: str, task: str, model: str, method: str) -> Any:
        (row,) = [x for x in r.rows if (x.table, x.task, x.model, x.method) == (table, task, model, method)]
        return row

    assert (
        find("Table 5", "debateart_argument_scores", "gpt-3.5-turbo-0125", "debatrix-f").metrics["rmse"].printed
        == "47.50"
    )
    assert find("Table 6", "debateart_language", "gpt-3.5-turbo-0125", "debatrix-h").metrics[
        "rmse"
    ].value == pytest.approx(0.3341)
    bp = find("Table 7", "bp_top_team", "gpt-3.5-turbo-0125", "direct")
    assert bp.metrics["accuracy"].value == pytest.approx(0.1667) and bp.metrics[
        "completion_rate"
    ].value == pytest.approx(0.3636)
    assert find("Table 10", "debateart_winner", "gpt-4-0125-preview", "debatrix-f").n_docs == 30


def _write(tmp_path: Path, change: Any) -> Path:
    data = json.loads(REPORTED.read_text())
    change(data)
    path = tmp_path / "reported.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("change", "field", "text"),
    [
        (lambda d: d["rows"][0].__setitem__("task", "debateart_everything"), "rows.0.task", "unknown task"),
        (lambda d: d["rows"][0].__setitem__("method", 'direct"><b>x'), "rows.0.method", "is not a judge method"),
        (lambda d: d["rows"][0].__setitem__("paper", "nobody"), "rows.0.paper", "is not one of the papers listed"),
        (
            lambda d: d["rows"][0]["metrics"].__setitem__("kendall_tau_c", {"value": 0.5, "printed": "50"}),
            "rows.0.metrics.kendall_tau_c",
            "not a metric of task",
        ),
        (
            lambda d: d["rows"][0]["metrics"]["rmse"].__setitem__("value", 0.42),
            "rows.0.metrics.rmse.value",
            "does not round to the printed",
        ),
        (lambda d: d["rows"][0].pop("table"), "rows.0", "'table' is a required property"),
        (lambda d: d["rows"][0].__setitem__("label", "verified"), "rows.0.label", "does not follow its schema"),
    ],
)
def test_bad_rows_are_refused(tmp_path: Path, change: Any, field: str, text: str) -> None:
    path = _write(tmp_path, change)
    with pytest.raises(UserError) as exc:
        load_reported(path)
    msg = str(exc.value)
    assert msg.startswith(f"{path}: field '{field}'") and text in msg and "\n" not in msg


def test_build_with_a_bad_reported_file_exits_2(tmp_path: Path) -> None:
    from clihelp import run_cli

    path = _write(tmp_path, lambda d: d["rows"][3].__setitem__("task", "nope"))
    (tmp_path / "subs").mkdir()
    proc = run_cli(
        "leaderboard",
        "build",
        "--results",
        str(tmp_path / "subs"),
        "--out",
        str(tmp_path / "out"),
        "--reported",
        str(path),
    )
    assert proc.returncode == 2 and proc.stderr.strip().count("\n") == 0
    assert f"{path}: field 'rows.3.task'" in proc.stderr
    assert not (tmp_path / "out").exists()
