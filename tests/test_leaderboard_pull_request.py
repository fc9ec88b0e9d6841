"""A submission pull request cannot rewrite what judges it: it may change only one
leaderboard/submissions/<model>/ folder, and the refresh script judges with the debench of its own
checkout (the base branch), never with code that came with the pull request."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import DATA_DIR
from debench.errors import UserError
from debench.leaderboard.pull_request import submission_folder
from lbhelp import copy_submission, forge_gpt_perfect

REPO = Path(__file__).resolve().parent.parent
SUB = "leaderboard/submissions/acme__judge-7b"


def test_one_submission_folder_is_accepted() -> None:
    changed = [f"{SUB}/results_ibm_speech_likert_0123456789ab.json", f"{SUB}/samples_ibm_speech_likert_0123456789ab.jsonl", ""]
    assert submission_folder(changed) == "acme__judge-7b"


@pytest.mark.parametrize(
    ("changed", "text"),
    [
        (["debench/leaderboard/validate.py"], "only files in one leaderboard/submissions/<model>/ folder"),
        (["tasks/ibm_speech_likert.yaml"], "only files in one leaderboard/submissions/<model>/ folder"),
        ([".github/workflows/leaderboard.yml"], "only files in one leaderboard/submissions/<model>/ folder"),
        (["leaderboard/leaderboard.json"], "only files in one leaderboard/submissions/<model>/ folder"),
        (["leaderboard/reported.json"], "only files in one leaderboard/submissions/<model>/ folder"),
        ([f"{SUB}/nested/results_x.json"], "only files in one leaderboard/submissions/<model>/ folder"),
        (["leaderboard/submissions/../../debench/cli.py"], "only files in one leaderboard/submissions/<model>/ folder"),
        (["leaderboard/submissions/.hidden/results_x.json"], "only files in one leaderboard/submissions/<model>/ folder"),
        ([f"{SUB}/conftest.py"], "only results_*.json files and their samples_*.jsonl logs"),
        ([f"{SUB}/results_x_scores.png"], "only results_*.json files and their samples_*.jsonl logs"),
        ([f"{SUB}/results_x.json", "leaderboard/submissions/baseline__random/results_ibm_speech_likert_82aec5cd15bc.json"], "changes 2 submission folders"),
        ([], "changes no file"),
    ],
)
def test_anything_else_is_refused(changed: list[str], text: str) -> None:
    with pytest.raises(UserError) as exc:
        submission_folder(changed)
    assert text in str(exc.value)


# The pull request's own copy of debench: the provenance checks turned off.
PERMISSIVE = '''
    def check(self, rec, line):  # the pull request's "fix": accept every record
        return
'''


@pytest.fixture(scope="module")
def pull_request(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """(pr checkout, forged results, forged samples): a modified copy of the project beside this
    one, its submissions folder holding a genuine seed and the forgery."""
    if not DATA_DIR.exists():
        pytest.skip(f"real data not found at {DATA_DIR}")
    pr = tmp_path_factory.mktemp("pr")
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in ("debench", "tasks", "scripts"):
        shutil.copytree(REPO / part, pr / part, ignore=ignore)
    (pr / "leaderboard").mkdir()
    shutil.copy(REPO / "leaderboard" / "reported.json", pr / "leaderboard" / "reported.json")
    provenance = pr / "debench" / "leaderboard" / "provenance.py"
    text = provenance.read_text()
    marker = "    def check(self, rec: SampleRecord, line: int) -> None:\n"
    assert marker in text
    provenance.write_text(text.replace(marker, PERMISSIVE + "\n    def _unused_check(self, rec: SampleRecord, line: int) -> None:\n"))
    subs = pr / "leaderboard" / "submissions"
    genuine = next(p for p in (REPO / "leaderboard" / "submissions" / "baseline__random").glob("results_ibm_speech_likert_*.json") if "_cot_" not in p.name)
    copy_submission(genuine, subs / "baseline__random")
    res, samples = forge_gpt_perfect(genuine, subs / "openai__gpt-perfect")
    return pr, res, samples


def _refresh(script: Path, pr: Path, out: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    import os

    full = {**os.environ, "DEBENCH_DATA_DIR": str(DATA_DIR), **(env or {})}
    return subprocess.run(
        [sys.executable, str(script), "--submissions", str(pr / "leaderboard" / "submissions"), "--out", str(out), *extra],
        capture_output=True, text=True, cwd=pr, env=full, timeout=600,
    )


@pytest.mark.real_data("a copy of the committed submissions, which validate only against the real data's content hashes")
def test_the_pull_requests_own_code_would_accept_the_forgery(pull_request: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """The control: judged by the modified copy, the forgery passes — so the next test shows
    which code judged."""
    pr, _, _ = pull_request
    proc = _refresh(pr / "scripts" / "refresh_leaderboard.py", pr, tmp_path / "out")
    assert proc.returncode == 0, proc.stderr
    assert f"judged by debench 0.1.0 at {pr / 'debench'}" in proc.stdout
    assert "openai/gpt-perfect" in proc.stdout


@pytest.mark.parametrize("hostile_env", [{}, {"PYTHONPATH": "PR"}])
@pytest.mark.real_data("a copy of the committed submissions, which validate only against the real data's content hashes")
def test_the_base_code_judges_the_pull_request(pull_request: tuple[Path, Path, Path], tmp_path: Path, hostile_env: dict[str, str]) -> None:
    """The base checkout's refresh script, run from inside the pull request's copy (and with the
    copy first on PYTHONPATH), judges with the base debench and refuses the forgery."""
    pr, res, samples = pull_request
    changed = tmp_path / "changed.txt"
    changed.write_text(f"leaderboard/submissions/openai__gpt-perfect/{res.name}\nleaderboard/submissions/openai__gpt-perfect/{samples.name}\n")
    env = {k: str(pr) if v == "PR" else v for k, v in hostile_env.items()}
    proc = _refresh(REPO / "scripts" / "refresh_leaderboard.py", pr, tmp_path / "out", "--changed-files", str(changed), env=env)
    assert proc.returncode == 2, proc.stdout
    assert f"judged by debench 0.1.0 at {REPO / 'debench'}" in proc.stdout
    assert "pull request: changes only leaderboard/submissions/openai__gpt-perfect/" in proc.stdout
    refusals = [line for line in proc.stderr.splitlines() if line.startswith("refused: ")]
    assert len(refusals) == 1 and f"{samples}: field 'response'" in refusals[0] and "has no raw response" in refusals[0]
    assert not (tmp_path / "out").exists()


@pytest.mark.real_data("a copy of the committed submissions, which validate only against the real data's content hashes")
def test_a_pull_request_touching_code_is_refused_before_judging(pull_request: tuple[Path, Path, Path], tmp_path: Path) -> None:
    pr, res, _ = pull_request
    changed = tmp_path / "changed.txt"
    changed.write_text(f"leaderboard/submissions/openai__gpt-perfect/{res.name}\ndebench/leaderboard/provenance.py\n")
    proc = _refresh(REPO / "scripts" / "refresh_leaderboard.py", pr, tmp_path / "out", "--changed-files", str(changed))
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "refresh: error: debench/leaderboard/provenance.py: a submission pull request may change only files in one leaderboard/submissions/<model>/ folder"
    )
    assert "ok: " not in proc.stdout
