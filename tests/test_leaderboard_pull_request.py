"""The pull-request gate compares trees: ``scripts/refresh_leaderboard.py --submissions PR_DIR --pr-base
BASE_DIR`` accepts a pull request only when it adds exactly one new submission folder of regular
files, each referenced by a results file, and changes nothing else — and the base checkout's code
judges it, never code that came with the pull request. Each attack below is a real tree (copies of
the committed submissions), refused with exit code 2 and one line."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA_DIR, real_data_dir
from lbhelp import (
    REPO,
    SEEDS,
    copy_submission,
    eval_run,
    forge_gpt_perfect,
    gate,
    refresh_main,
    submissions_tree,
)

TASK = "ibm_speech_likert"
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def new_baseline(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A genuine new submission: baseline/random with seed 1 (a judge the tree does not hold yet)."""
    return eval_run(tmp_path_factory.mktemp("new"), TASK, "baseline/random", "--seed", "1")


@pytest.fixture
def trees(tmp_path: Path) -> tuple[Path, Path]:
    """(pr checkout, base checkout): the same tree — two seeded baselines, the verified embedded
    model with the spot-check record of the previous version, a task file — the pull request's still
    to be changed."""
    real_data_dir("ibm_debate_speeches")
    base = tmp_path / "base"
    subs = submissions_tree(base, TASK, ("baseline/random", "baseline/length"))
    shutil.copytree(SEEDS / "local__smollm2", subs / "local__smollm2")
    (base / "tasks").mkdir()
    shutil.copy(REPO / "tasks" / f"{TASK}.yaml", base / "tasks")
    pr = tmp_path / "pr"
    shutil.copytree(base, pr, symlinks=True)
    return pr, base


def refused_by_gate(pr: Path, base: Path, tmp_path: Path, *expected: str) -> str:
    code, out, err = gate(pr, base, tmp_path / "board")
    assert code == 2, (out, err)
    (line,) = err.strip().splitlines()
    assert line.startswith("refresh: error: "), line
    for text in expected:
        assert text in line, line
    assert not (tmp_path / "board").exists()
    return line


def test_a_genuine_new_submission_is_accepted(trees: tuple[Path, Path], new_baseline: Path, tmp_path: Path) -> None:
    pr, base = trees
    copy_submission(new_baseline, pr / "leaderboard" / "submissions" / "baseline__random-seed1")
    code, out, err = gate(pr, base, tmp_path / "board")
    assert code == 0, err
    assert (
        "pull request: adds only leaderboard/submissions/baseline__random-seed1/ (nothing else differs from the base)"
        in out
    )
    assert f"judged by debench 0.1.0 at {REPO / 'debench'}" in out
    board = json.loads((tmp_path / "board" / "leaderboard.json").read_text())
    (t,) = board["tasks"]
    assert {e["submission"] for e in t["baselines"]} == {
        "baseline__random",
        "baseline__length",
        "baseline__random-seed1",
    }
    # the canonical judge's row is the job's own run; the submission nominating it is compared with it
    assert [e["model"] for e in t["verified"]] == ["local/smollm2"] and t["verified"][0]["submission"] is None
    assert [e["nominates"] for e in t["self_reported"]] == ["local/smollm2/direct"]


def test_rewriting_an_existing_submission_is_refused(
    trees: tuple[Path, Path], new_baseline: Path, tmp_path: Path
) -> None:
    pr, base = trees
    copy_submission(new_baseline, pr / "leaderboard" / "submissions" / "baseline__random-seed1")
    res = next((pr / "leaderboard" / "submissions" / "baseline__length").glob("results_*.json"))
    res.write_text(res.read_text().replace('"n_samples": 631', '"n_samples": 631 '))  # one byte, still valid JSON
    refused_by_gate(
        pr,
        base,
        tmp_path,
        f"leaderboard/submissions/baseline__length/{res.name}",
        "changes this file",
        "go through the maintainers",
    )


def test_deleting_a_submission_is_refused(trees: tuple[Path, Path], new_baseline: Path, tmp_path: Path) -> None:
    pr, base = trees
    copy_submission(new_baseline, pr / "leaderboard" / "submissions" / "baseline__random-seed1")
    shutil.rmtree(pr / "leaderboard" / "submissions" / "baseline__length")
    refused_by_gate(pr, base, tmp_path, "leaderboard/submissions/baseline__length", "deletes this folder")


def test_a_symlink_in_the_new_folder_is_refused(trees: tuple[Path, Path], new_baseline: Path, tmp_path: Path) -> None:
    pr, base = trees
    res, _ = copy_submission(new_baseline, pr / "leaderboard" / "submissions" / "baseline__random-seed1")
    (res.parent / "samples_zz.jsonl").symlink_to("/proc/self/environ")
    refused_by_gate(pr, base, tmp_path, "samples_zz.jsonl", "is a symbolic link: a submission holds regular files only")


def test_a_samples_log_that_is_a_symlink_is_refused(
    trees: tuple[Path, Path], new_baseline: Path, tmp_path: Path
) -> None:
    pr, base = trees
    _, samples = copy_submission(new_baseline, pr / "leaderboard" / "submissions" / "baseline__random-seed1")
    real = tmp_path / "elsewhere.jsonl"
    shutil.move(samples, real)
    samples.symlink_to(real)
    refused_by_gate(pr, base, tmp_path, samples.name, "is a symbolic link")


def test_an_unreferenced_file_is_refused(trees: tuple[Path, Path], new_baseline: Path, tmp_path: Path) -> None:
    pr, base = trees
    res, _ = copy_submission(new_baseline, pr / "leaderboard" / "submissions" / "baseline__random-seed1")
    (res.parent / "samples_zz.jsonl").write_text('{"doc_id": "x"}\n')
    refused_by_gate(pr, base, tmp_path, "samples_zz.jsonl", "no results file of the submission refers to this file")


def test_plots_and_subfolders_are_refused(trees: tuple[Path, Path], new_baseline: Path, tmp_path: Path) -> None:
    pr, base = trees
    res, _ = copy_submission(new_baseline, pr / "leaderboard" / "submissions" / "baseline__random-seed1")
    plot = json.loads(res.read_text())["plots"][0]
    shutil.copy(new_baseline.parent / plot, res.parent / plot)
    refused_by_gate(pr, base, tmp_path, plot, "not a plot")
    (res.parent / plot).unlink()
    (res.parent / "more").mkdir()
    refused_by_gate(pr, base, tmp_path, "more", "is a folder")


def test_a_pull_request_cannot_add_or_change_a_spot_check_record(
    trees: tuple[Path, Path], new_baseline: Path, tmp_path: Path
) -> None:
    pr, base = trees
    res, _ = copy_submission(new_baseline, pr / "leaderboard" / "submissions" / "baseline__random-seed1")
    record = next((SEEDS / "local__smollm2").glob("spotcheck_*.json"))
    fake = res.parent / ("spotcheck_" + res.name.removeprefix("results_"))
    fake.write_text(record.read_text())
    refused_by_gate(
        pr,
        base,
        tmp_path,
        fake.name,
        "a submission holds its results_*.json files and the samples logs they name, not a spot-check record",
    )
    fake.unlink()
    mine = pr / "leaderboard" / "submissions" / "local__smollm2" / record.name
    text = mine.read_text()
    flipped = (
        text.replace('"agree": true', '"agree": false', 1)
        if '"agree": true' in text
        else text.replace('"agree": false', '"agree": true', 1)
    )
    assert flipped != text  # one verdict of the record flipped
    mine.write_text(flipped)
    refused_by_gate(pr, base, tmp_path, f"local__smollm2/{record.name}", "changes this file")


def test_a_change_outside_the_submissions_is_refused(
    trees: tuple[Path, Path], new_baseline: Path, tmp_path: Path
) -> None:
    pr, base = trees
    copy_submission(new_baseline, pr / "leaderboard" / "submissions" / "baseline__random-seed1")
    task = pr / "tasks" / f"{TASK}.yaml"
    task.write_text(task.read_text() + "\n# a harmless comment\n")
    refused_by_gate(pr, base, tmp_path, f"tasks/{TASK}.yaml", "outside leaderboard/submissions/")
    task.write_text((base / "tasks" / f"{TASK}.yaml").read_text())
    (pr / "leaderboard" / "trusted_endpoints.yaml").write_text("providers: []\n")
    refused_by_gate(pr, base, tmp_path, "leaderboard/trusted_endpoints.yaml", "adds this file")


def test_two_new_folders_or_none_are_refused(trees: tuple[Path, Path], new_baseline: Path, tmp_path: Path) -> None:
    pr, base = trees
    refused_by_gate(pr, base, tmp_path, "adds no submission folder")
    copy_submission(new_baseline, pr / "leaderboard" / "submissions" / "a")
    copy_submission(new_baseline, pr / "leaderboard" / "submissions" / "b")
    refused_by_gate(pr, base, tmp_path, "adds 2 submission folders (a, b)")


# ------------------------------------------------------------- the base checkout's code judges


# The pull request's own copy of debench: the provenance checks turned off.
PERMISSIVE = """
    def check(self, rec, line):  # the pull request's "fix": accept every record
        return
"""


@pytest.fixture(scope="module")
def pull_request(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path, Path]:
    """(pr checkout, base submissions, forged results, forged samples): a modified copy of the
    project, its submissions folder the base's plus a forgery."""
    real_data_dir("ibm_debate_speeches")
    pr = tmp_path_factory.mktemp("pr")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in ("debench", "tasks", "scripts"):
        shutil.copytree(REPO / part, pr / part, ignore=ignore)
    (pr / "leaderboard").mkdir()
    for name in ("reported.json", "trusted_endpoints.yaml"):
        shutil.copy(REPO / "leaderboard" / name, pr / "leaderboard" / name)
    provenance = pr / "debench" / "leaderboard" / "provenance.py"
    text = provenance.read_text()
    marker = "    def check(self, rec: SampleRecord, line: int) -> None:\n"
    assert marker in text
    provenance.write_text(
        text.replace(marker, PERMISSIVE + "\n    def _unused_check(self, rec: SampleRecord, line: int) -> None:\n")
    )
    base_subs = tmp_path_factory.mktemp("base") / "subs"  # not a checkout: only the submissions trees are compared
    (genuine,) = [p for p in (SEEDS / "baseline__random").glob(f"results_{TASK}_*.json") if "_cot_" not in p.name]
    copy_submission(genuine, base_subs / "baseline__random")
    subs = pr / "leaderboard" / "submissions"
    shutil.copytree(base_subs, subs)
    res, samples = forge_gpt_perfect(genuine, subs / "openai__gpt-perfect")
    return pr, base_subs, res, samples


def _refresh(
    script: Path, pr: Path, out: Path, *extra: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, "DEBENCH_DATA_DIR": str(DATA_DIR), **(env or {})}
    return subprocess.run(
        [
            sys.executable,
            str(script),
            "--submissions",
            str(pr / "leaderboard" / "submissions"),
            "--out",
            str(out),
            *extra,
        ],
        capture_output=True,
        text=True,
        cwd=pr,
        env=full,
        timeout=600,
        check=False,
    )


@pytest.mark.real_data(
    "a copy of the committed submissions, which validate only against the real data's content hashes"
)
def test_the_pull_requests_own_code_would_accept_the_forgery(
    pull_request: tuple[Path, Path, Path, Path], tmp_path: Path
) -> None:
    """The control: judged by the modified copy, the forgery passes — so the next test shows
    which code judged."""
    pr, _, _, _ = pull_request
    proc = _refresh(pr / "scripts" / "refresh_leaderboard.py", pr, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert f"judged by debench 0.1.0 at {pr / 'debench'}" in proc.stdout
    assert "openai/gpt-perfect" in proc.stdout


@pytest.mark.parametrize("hostile_env", [{}, {"PYTHONPATH": "PR"}])
@pytest.mark.real_data(
    "a copy of the committed submissions, which validate only against the real data's content hashes"
)
def test_the_base_code_judges_the_pull_request(
    pull_request: tuple[Path, Path, Path, Path], tmp_path: Path, hostile_env: dict[str, str]
) -> None:
    """The base checkout's refresh script, run from inside the pull request's copy (and with the
    copy first on PYTHONPATH), judges with the base debench and refuses the forgery."""
    pr, base_subs, _, samples = pull_request
    env = {k: str(pr) if v == "PR" else v for k, v in hostile_env.items()}
    proc = _refresh(
        REPO / "scripts" / "refresh_leaderboard.py", pr, tmp_path / "out", "--pr-base", str(base_subs), env=env
    )
    assert proc.returncode == 2, proc.stdout
    assert f"judged by debench 0.1.0 at {REPO / 'debench'}" in proc.stdout
    assert "pull request: adds only leaderboard/submissions/openai__gpt-perfect/" in proc.stdout
    refusals = [line for line in proc.stderr.splitlines() if line.startswith("refused: ")]
    # the runner's paths are printed relative to the submissions folder (no absolute path in the log)
    where = f"leaderboard/submissions/{samples.relative_to(pr / 'leaderboard' / 'submissions')}"
    assert len(refusals) == 1 and f"{where}: field 'messages'" in refusals[0] and "carries no messages" in refusals[0]
    assert not (tmp_path / "out").exists()
    assert not list((REPO / "debench").rglob("__pycache__/*refresh*"))


def test_the_changed_files_list_is_gone() -> None:
    """One way to gate a pull request: the tree comparison replaced the list of changed names."""
    code, _, err = refresh_main("--changed-files", "x.txt")
    assert code == 2 and "unrecognized arguments: --changed-files" in err
