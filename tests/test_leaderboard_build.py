"""``debench leaderboard build``: validated submissions -> leaderboard.json (schema) + index.html."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir
from debench.registry import load_task

REPO = Path(__file__).resolve().parent.parent
TASK = "ibm_speech_likert"


def _env() -> dict[str, str]:
    return {"DEBENCH_DATA_DIR": str(real_data_dir("ibm_debate_speeches").parent)}


@pytest.fixture(scope="module")
def submissions(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two submissions on the real data: a full random baseline, a 120-document majority run."""
    root = tmp_path_factory.mktemp("subs")
    data = str(real_data_dir("ibm_debate_speeches").parent)
    for model, extra in (("baseline/random", []), ("baseline/majority", ["--limit", "120"])):
        proc = run_cli(
            "eval", "--task", TASK, "--model", model, "--output-dir", str(root),
            "--data-source", "local", "--data-dir", data, "--no-progress", "--no-cache", *extra,
        )
        assert proc.returncode == 0, proc.stderr
    return root


@pytest.fixture(scope="module")
def built(submissions: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("board")
    proc = run_cli("leaderboard", "build", "--results", str(submissions), "--out", str(out), env=_env(), cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert "2 entries on 1 task(s) from 2 submission(s)" in proc.stdout
    n_reported = len(json.loads((REPO / "leaderboard" / "reported.json").read_text())["rows"])
    assert f"{n_reported} reported row(s)" in proc.stdout  # the committed file is the default
    return out


def test_json_follows_its_schema(built: Path) -> None:
    from debench.leaderboard.board import LEADERBOARD_SCHEMA_VERSION, validate_leaderboard_dict

    data = json.loads((built / "leaderboard.json").read_text())
    validate_leaderboard_dict(data)
    assert data["schema_version"] == LEADERBOARD_SCHEMA_VERSION


def test_schema_file_is_current() -> None:
    from debench.leaderboard.board import SCHEMA_PATH, leaderboard_json_schema

    expected = json.dumps(leaderboard_json_schema(), indent=2, sort_keys=True) + "\n"
    assert SCHEMA_PATH.read_text() == expected, "run python scripts/write_schemas.py"


@pytest.mark.real_data("a board of runs on all 631 IBM speeches")
def test_task_board_contents(built: Path, submissions: Path) -> None:
    data = json.loads((built / "leaderboard.json").read_text())
    (t,) = data["tasks"]
    assert t["name"] == TASK and t["version"] == load_task(TASK)[0].version and t["n_docs_total"] == 631
    assert t["primary_metric"] == "kendall_tau_c"
    cols = {c["name"]: c for c in t["metrics"]}
    # the human-human figures are a reference row, not columns
    assert "kappa_human" not in cols and "kappa_loo" in cols and cols["kendall_tau_c"]["primary"]
    assert cols["parse_failure_rate"]["kind"] == "status" and not cols["parse_failure_rate"]["higher_is_better"]
    ref = {r["metric"]: r for r in t["human_reference"]}
    assert ref["kappa_loo"]["source_metric"] == "kappa_human"
    random_results = json.loads(next((submissions / "baseline__random").glob("results_*.json")).read_text())
    assert ref["kappa_loo"]["value"] == random_results["metrics"]["kappa_human"]  # the full run's figure
    random, majority = t["entries"]
    assert random["model"] == "baseline/random" and random["rank"] == 1 and random["tier"] == 1 and not random["partial"]
    assert random["metrics"] == random_results["metrics"] and random["is_baseline"]
    assert random["identity"] == {"name": "baseline/random", "seed": 0} and random["provenance"]["basis"] == "recomputed"
    assert random["provenance"]["spot_check"] is None and random["incomplete_share"] == 0.0
    # a subset run (and a constant judge, which has no tau-c): shown, not ranked, listed last
    assert majority["model"] == "baseline/majority" and majority["rank"] is None and majority["tier"] is None
    assert majority["partial"] and majority["n_docs"] == 120 and majority["unranked_reason"] == "covers only the first 120 documents"
    assert random["samples_file"].startswith("baseline__random/samples_")
    assert data["overall_tasks"] == [TASK]
    ov = {r["model"]: r for r in data["overview"]}
    assert ov["baseline/random"]["cells"][TASK]["value"] == random["metrics"]["kendall_tau_c"]["value"]
    assert ov["baseline/random"]["mean_rank"] == 1.0 and ov["baseline/random"]["overall_rank"] == 1
    assert ov["baseline/majority"]["mean_rank"] is None and ov["baseline/majority"]["missing_tasks"] == [TASK]
    assert data["reported"]["rows"] and all(r["label"] == "reported in paper, not verified" for r in data["reported"]["rows"])


@pytest.mark.real_data("a board of runs on all 631 IBM speeches")
def test_page_is_self_contained_and_embeds_the_json(built: Path) -> None:
    html = (built / "index.html").read_text()
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert not any(s in html for s in ('src="http', "href=\"http", "@import", "url(http"))
    embedded = html.split('<script type="application/json" id="leaderboard-data">', 1)[1].split("</script>", 1)[0]
    assert json.loads(embedded) == json.loads((built / "leaderboard.json").read_text())
    reported_tasks = {r["task"] for r in json.loads(embedded)["reported"]["rows"]}
    assert html.count('<section class="card task"') == len(reported_tasks | {TASK}) and html.count("<svg") >= 3


def test_build_is_deterministic(built: Path, submissions: Path, tmp_path: Path) -> None:
    proc = run_cli("leaderboard", "build", "--results", str(submissions), "--out", str(tmp_path), env=_env(), cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    for name in ("leaderboard.json", "index.html"):
        assert (tmp_path / name).read_bytes() == (built / name).read_bytes()


def test_build_rejects_a_tampered_submission(submissions: Path, tmp_path: Path) -> None:
    subs = tmp_path / "subs"
    shutil.copytree(submissions, subs)
    res = next((subs / "baseline__majority").glob("results_*.json"))
    data = json.loads(res.read_text())
    data["metrics"]["kappa_loo"]["value"] = 0.9
    res.write_text(json.dumps(data))
    out = tmp_path / "out"
    proc = run_cli("leaderboard", "build", "--results", str(subs), "--out", str(out), env=_env())
    assert proc.returncode == 2 and "metrics.kappa_loo.value" in proc.stderr and str(res) in proc.stderr
    assert not (out / "leaderboard.json").exists()
    # --skip-invalid leaves it out and says so
    proc = run_cli("leaderboard", "build", "--results", str(subs), "--out", str(out), "--skip-invalid", env=_env())
    assert proc.returncode == 0 and "refused:" in proc.stderr
    board = json.loads((out / "leaderboard.json").read_text())
    assert [e["model"] for e in board["tasks"][0]["entries"]] == ["baseline/random"]


def test_empty_submissions_folder(tmp_path: Path) -> None:
    (tmp_path / "subs").mkdir()
    proc = run_cli("leaderboard", "build", "--results", str(tmp_path / "subs"), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "out" / "leaderboard.json").read_text())["tasks"] == []
    assert "No validated submission yet" in (tmp_path / "out" / "index.html").read_text()


def test_missing_submissions_folder(tmp_path: Path) -> None:
    proc = run_cli("leaderboard", "build", "--results", str(tmp_path / "nope"), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2 and "submissions directory not found" in proc.stderr


@pytest.mark.slow  # the refresh script re-validates every committed submission on the real data
@pytest.mark.real_data("the committed submissions validate only against the real data's content hashes")
def test_committed_leaderboard_is_current(tmp_path: Path) -> None:
    """The committed leaderboard is what the refresh job builds from the committed submissions
    (so every seeded submission still validates against the installed tasks and the real data)."""
    proc = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "refresh_leaderboard.py"), "--out", str(tmp_path), "--data-dir", str(DATA_DIR)],
        capture_output=True, text=True, timeout=900,
    )
    hint = "the committed leaderboard is stale: rerun `python scripts/seed_leaderboard.py` (baselines) or `python scripts/refresh_leaderboard.py`"
    assert proc.returncode == 0, f"{hint}\n{proc.stdout}\n{proc.stderr}"
    for name in ("leaderboard.json", "index.html"):
        assert (tmp_path / name).read_text() == (REPO / "leaderboard" / name).read_text(), f"{name}: {hint}"
