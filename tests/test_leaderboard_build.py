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

from debench.core.errors import UserError
from debench.run.task_lookup import load_task

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
            "eval",
            "--task",
            TASK,
            "--model",
            model,
            "--output-dir",
            str(root),
            "--data-source",
            "local",
            "--data-dir",
            data,
            "--no-progress",
            "--no-cache",
            *extra,
        )
        assert proc.returncode == 0, proc.stderr
    return root


@pytest.fixture(scope="module")
def built(submissions: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("board")
    proc = run_cli("leaderboard", "build", "--results", str(submissions), "--out", str(out), env=_env(), cwd=REPO)
    assert proc.returncode == 0, proc.stderr
    assert "2 entries (0 verified) on 1 task(s) from 2 submission(s)" in proc.stdout
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
    assert t["verified"] == [] and t["self_reported"] == []
    random, majority = t["baselines"]  # listed by value, a constant judge's undefined tau last
    assert (
        random["model"] == "baseline/random"
        and random["rank"] is None
        and random["tier"] is None
        and not random["partial"]
    )
    assert (
        random["standing"] == "baseline"
        and random["baseline_level"] == "chance"
        and "reference line" in random["unranked_reason"]
    )
    assert random["metrics"] == random_results["metrics"] and random["is_baseline"]
    assert (
        random["identity"] == {"name": "baseline/random", "seed": 0} and random["provenance"]["basis"] == "recomputed"
    )
    assert "spot_check" not in random["provenance"] and "removed" not in data  # schema 5.0 dropped them
    assert random["incomplete_share"] == 0.0 and random["left_out_share"] == 0.0
    assert (
        majority["model"] == "baseline/majority"
        and majority["rank"] is None
        and majority["partial"]
        and majority["n_docs"] == 120
    )
    assert random["samples_file"].startswith("submissions/baseline__random/samples_")  # relative to the board
    # baselines are reference lines: nothing is ranked, and the overview says what it waits for
    from debench.leaderboard.maintainers import load_maintainers

    # the overall task set is the maintainers' (leaderboard/maintainers.yaml), never the submissions'
    assert data["overall_tasks"] == load_maintainers(REPO / "leaderboard" / "maintainers.yaml").overall_tasks
    assert data["overview"] == [] and data["overview_self_reported"] == []
    assert "at least 2 verified judges" in data["overall_waiting"] and "none yet" in data["overall_waiting"]
    assert data["reported"]["rows"] and all(
        r["label"] == "reported in paper, not verified" for r in data["reported"]["rows"]
    )


@pytest.mark.real_data("a board of runs on all 631 IBM speeches")
def test_page_is_self_contained_and_embeds_the_json(built: Path) -> None:
    html = (built / "index.html").read_text()
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert not any(s in html for s in ('src="http', 'href="http', "@import", "url(http"))
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
    assert [e["model"] for e in board["tasks"][0]["baselines"]] == ["baseline/random"]


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
        [
            sys.executable,
            str(REPO / "scripts" / "refresh_leaderboard.py"),
            "--out",
            str(tmp_path),
            "--data-dir",
            str(DATA_DIR),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    hint = (
        "the committed leaderboard is stale: rerun `python scripts/seed_leaderboard.py` (baselines) or `python "
        "scripts/refresh_leaderboard.py`"
    )
    assert proc.returncode == 0, f"{hint}\n{proc.stdout}\n{proc.stderr}"
    for name in ("leaderboard.json", "index.html"):
        assert (tmp_path / name).read_text() == (REPO / "leaderboard" / name).read_text(), f"{name}: {hint}"


@pytest.mark.slow
def test_the_hub_receives_only_validated_files_and_no_link_is_followed(submissions: Path, tmp_path: Path) -> None:
    """A submission folder holding a link to the job's environment and a file no results file names:
    the build leaves them out (--skip-invalid), and the staged upload holds the page, the JSON, its
    schema and the validated results and samples files — nothing else, no byte of the environment."""
    from debench.leaderboard.publish import build, stage_for_hub

    subs = tmp_path / "subs"
    shutil.copytree(submissions, subs)
    folder = subs / "baseline__random"
    (folder / "samples_zz.jsonl").symlink_to("/proc/self/environ")
    (folder / "notes.txt").write_text("unreferenced\n")
    (subs / "loose.json").write_text("{}")
    with pytest.raises(UserError, match="holds one folder per submission"):
        build(subs, tmp_path / "refused", data_dir=DATA_DIR, reported_path=None, trusted_path=None)
    built = build(subs, tmp_path / "board", data_dir=DATA_DIR, skip_invalid=True, reported_path=None, trusted_path=None)
    assert {e.path.rsplit("/", 1)[-1] for e in built.errors} == {"samples_zz.jsonl", "notes.txt", "loose.json"}
    stage = tmp_path / "stage"
    staged = stage_for_hub(tmp_path / "board", built, subs, stage)
    names = sorted(p.relative_to(stage).as_posix() for p in stage.rglob("*") if not p.is_dir())
    assert names == sorted(p.relative_to(stage).as_posix() for p in staged)
    kept = sorted(n.split("/", 1)[1] for n in names if n.startswith("submissions/"))
    assert all(
        n.split("/")[1].startswith(("results_", "samples_")) and n.endswith((".json", ".jsonl")) for n in kept
    ), kept
    assert len(kept) == 4 and {"leaderboard.json", "index.html", "leaderboard.schema.json"} <= set(names)
    assert not any(p.is_symlink() for p in stage.rglob("*"))
    environ = Path("/proc/self/environ").read_bytes().split(b"\0")[0]
    assert environ and not any(environ in p.read_bytes() for p in stage.rglob("*") if p.is_file())


def test_the_committed_page_links_each_canonical_judges_card() -> None:
    """Each ranked row of the committed board links its judge's card, built from the job's own run:
    the card's overall status is the row's, and its first file is the row's run."""
    lb = REPO / "leaderboard"
    board = json.loads((lb / "leaderboard.json").read_text())
    rows = [e for t in board["tasks"] for e in t["verified"]]
    assert rows
    page = (lb / "index.html").read_text()
    for e in rows:
        link = e["canonical"]["card"]
        card = json.loads((lb / link["path"]).with_name("card.json").read_text())
        assert card["overall"]["status"] == link["status"] and f'href="{link["path"]}"' in page
        (files,) = [card["runs"][t] for t in card["tasks"] if e["results_file"].startswith("reproduced/")]
        assert (lb / link["path"]).parent.joinpath(files[0]).resolve() == (lb / e["results_file"]).resolve()
