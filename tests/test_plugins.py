"""Plug-ins: the four entry-point groups (docs/plugins.md), debench's own components listed through
them, a broken plug-in as one line, the example plug-in (examples/plugin) installed beside debench
and used end to end, and a task identity that survives a new metric."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from clihelp import run_cli
from conftest import DATA_DIR

from debench.arena.judgments import Judgment
from debench.arena.rank import analyse_judgments

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "plugin"


def _plugins_json(env: dict[str, str] | None = None) -> list[dict[str, str]]:
    proc = run_cli("plugins", "--json", env=env)
    assert proc.returncode == 0, proc.stderr
    rows: list[dict[str, str]] = json.loads(proc.stdout)
    return rows


def test_builtins_come_through_the_same_registries() -> None:
    rows = _plugins_json()
    ours = {(r["group"], r["name"]) for r in rows if r["distribution"] == "debench"}
    assert {("debench.models", k) for k in ("baseline", "local", "gguf", "vllm", "server")} <= ours
    assert {
        ("debench.methods", m) for m in ("direct", "debatrix-h", "debatrix-f", "debatrix-h-scores", "debatrix-f-scores")
    } <= ours
    assert {
        ("debench.metrics", m) for m in ("kendall_tau_c", "kappa_loo", "accuracy", "macro_f1", "rmse", "acc_within_2")
    } <= ours
    assert ("debench.arena_ratings", "win_rate") in ours
    # what the registries use is what is listed: the methods --method accepts, the metrics a task names
    from debench.arena.ratings import RATINGS
    from debench.judging.base import METHODS
    from debench.metrics.base import METRICS
    from debench.models.kinds import MODEL_KINDS

    listed = {g: {r["name"] for r in rows if r["group"] == g} for g in {r["group"] for r in rows}}
    assert set(METHODS.names()) == listed["debench.methods"]
    assert set(METRICS.names()) == listed["debench.metrics"]
    assert set(MODEL_KINDS.names()) == listed["debench.models"]
    assert set(RATINGS.names()) == listed["debench.arena_ratings"]
    assert run_cli("plugins", "--check").returncode == 0


def _fake_distribution(site: Path, name: str, entry_points: str) -> None:
    """An installed distribution (its metadata only) on a folder that goes on PYTHONPATH."""
    info = site / f"{name.replace('-', '_')}-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(entry_points)


def test_a_broken_plugin_is_one_line_and_breaks_no_other_command(tmp_path: Path) -> None:
    site = tmp_path / "site"
    _fake_distribution(
        site, "acme-broken",
        "[debench.models]\nacme = acme_missing.kinds:ACME\n\n[debench.metrics]\nacme_metric = json:dumps\n",
    )  # fmt: skip
    env = {"PYTHONPATH": str(site)}
    check = run_cli("plugins", "--check", env=env)
    assert check.returncode == 2
    broken = [line for line in check.stdout.splitlines() if "BROKEN" in line]
    assert len(broken) == 2 and all("acme-broken" in line for line in broken)
    assert "acme = acme_missing.kinds:ACME" in check.stdout and "ModuleNotFoundError" in check.stdout
    assert "not a metric" in check.stdout  # json:dumps imports, but is no Metric
    # the model kind's failure is one line, only for the command that uses it
    out = tmp_path / "out"
    bad = run_cli(
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "acme/x",
        "--data-source",
        "sample",
        "--output-dir",
        str(out),
        "--no-progress",
        env=env,
    )
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0
    assert "acme-broken" in bad.stderr and "entry point 'acme = acme_missing.kinds:ACME'" in bad.stderr
    good = run_cli(
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "baseline/random",
        "--data-source",
        "sample",
        "--output-dir",
        str(out),
        "--no-progress",
        env=env,
    )
    assert good.returncode == 0, good.stderr
    assert run_cli("tasks", env=env).returncode == 0


def _leg(topic: str, s1: str, s2: str, winner: int | None) -> Judgment:
    return Judgment(topic=topic, side1=s1, side2=s2, winner=winner)


def test_win_rate_by_hand() -> None:
    # A beats B on t1 (both legs), B beats A on one leg of t2 and the other leg is a tie;
    # C plays B once per topic and always loses; A vs A self-play is never rated
    legs = [
        _leg("t1", "A", "B", 1), _leg("t1", "B", "A", 2), _leg("t2", "A", "B", 2), _leg("t2", "B", "A", None),
        _leg("t1", "C", "B", 2), _leg("t2", "B", "C", 1), _leg("t2", "A", "A", 1),
    ]  # fmt: skip
    result = analyse_judgments(legs, n_boot=200, seed=3, n_perm=0, ratings=["win_rate"])
    rating = result.ratings["win_rate"]
    # A: 1 + 1 + 0 + 0.5 of 4 legs; B: 0 + 0 + 1 + 0.5 + 1 + 1 of 6; C: 0 of 2
    assert rating.scores["A"].score == pytest.approx(2.5 / 4)
    assert rating.scores["B"].score == pytest.approx(3.5 / 6)
    assert rating.scores["C"].score == 0.0
    assert rating.ranking == ["A", "B", "C"] and rating.higher_is_better
    for (
        s
    ) in rating.scores.values():  # the built-in conventions: a percentile interval around the point, over used draws
        assert s.ci95 is not None and s.ci95[0] <= s.score <= s.ci95[1] and 100 <= s.draws_used <= 200


def test_an_unknown_rating_is_refused_before_any_work(tmp_path: Path) -> None:
    jpath = tmp_path / "j.jsonl"
    jpath.write_text(json.dumps({"topic": "t", "side1": "a", "side2": "b", "winner": 1}) + "\n")
    proc = run_cli(
        "arena", "rank", "--judgments", str(jpath), "--output", str(tmp_path / "r.json"), "--rating", "win_rat"
    )
    assert proc.returncode == 2 and "did you mean 'win_rate'" in proc.stderr and not (tmp_path / "r.json").exists()


# ------------------------------------------------------------------------- the example plug-in


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """examples/plugin installed, as pip installs it, into a folder of its own beside debench."""
    site = tmp_path_factory.mktemp("site")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(site),
            str(EXAMPLE),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    return site


def _with_within_one(text: str) -> str:
    assert "  - name: parse_failure_rate\n" in text
    return text.replace("  - name: parse_failure_rate\n", "  - name: parse_failure_rate\n  - name: within_one\n")


@pytest.mark.slow  # pip builds and installs the example package
def test_the_example_plugin_works_in_every_group(plugin_site: Path, tmp_path: Path) -> None:
    env = {"PYTHONPATH": str(plugin_site), "DEBENCH_DATA_DIR": str(DATA_DIR)}
    theirs = {(r["group"], r["name"]) for r in _plugins_json(env) if r["distribution"] == "debench-example-plugin"}
    assert theirs == {
        ("debench.models", "cue"),
        ("debench.metrics", "within_one"),
        ("debench.methods", "ask-twice"),
        ("debench.arena_ratings", "net_wins"),
    }
    assert not any("debench_example_plugin" in p.read_text() for p in (REPO / "debench").rglob("*.py"))

    # an eval with the plug-in's metric added to a task file, its model kind and its judge method
    task = tmp_path / "likert_plus.yaml"
    task.write_text(
        _with_within_one((REPO / "tasks" / "ibm_speech_likert.yaml").read_text()).replace(
            "name: ibm_speech_likert\n", "name: likert_plus\n"
        )
    )
    out = tmp_path / "out"
    proc = run_cli(
        "eval",
        "--task",
        str(task),
        "--model",
        "cue/120",
        "--method",
        "ask-twice",
        "--data-source",
        "local",
        "--output-dir",
        str(out),
        "--no-progress",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    results = json.loads(next(out.rglob("results_*.json")).read_text())
    assert results["task"]["method"] == "ask-twice" and results["model"]["kind"] == "cue"
    records = [json.loads(line) for line in next(out.rglob("samples_*.jsonl")).read_text().splitlines()]
    ok = [r for r in records if r["status"] == "ok"]
    assert len(ok) == 631
    # cue/120 answers the k-th choice, k = prompt words // 120 (capped): recomputed from the stored prompts
    for r in ok[:50]:
        words = sum(len(m["content"].split()) for m in r["messages"])
        assert r["prediction"] == min(5, 1 + words // 120)
    expected = sum(abs(r["prediction"] - r["target"]) <= 1 for r in ok) / len(ok)
    assert results["metrics"]["within_one"]["value"] == pytest.approx(expected)
    assert results["metrics"]["within_one"]["n"] == 631

    # arena rank --rating net_wins, by hand on a small table
    legs = [("t1", "A", "B", 1), ("t1", "B", "A", 1), ("t2", "A", "B", 1), ("t2", "B", "A", None), ("t2", "A", "A", 2)]
    jpath = tmp_path / "judgments.jsonl"
    jpath.write_text(
        "".join(json.dumps({"topic": t, "side1": a, "side2": b, "winner": w}) + "\n" for t, a, b, w in legs)
    )
    ranking = tmp_path / "ranking.json"
    proc = run_cli(
        "arena",
        "rank",
        "--judgments",
        str(jpath),
        "--output",
        str(ranking),
        "--rating",
        "net_wins",
        "--rating",
        "win_rate",
        "--n-boot",
        "200",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    rated = json.loads(ranking.read_text())["ratings"]
    # A: won t1 leg 1, lost t1 leg 2, won t2 leg 1, tied t2 leg 2 -> (2 - 1) / 4; B the opposite
    assert rated["net_wins"]["scores"]["A"]["score"] == pytest.approx(0.25)
    assert rated["net_wins"]["scores"]["B"]["score"] == pytest.approx(-0.25)
    assert rated["net_wins"]["ranking"] == ["A", "B"] and rated["win_rate"]["scores"]["A"]["score"] == pytest.approx(
        2.5 / 4
    )
    assert np.isfinite(rated["net_wins"]["scores"]["A"]["draws_used"])


@pytest.mark.slow  # the refresh job over every committed submission, on the real data
def test_a_metric_appended_to_a_task_keeps_every_submission(plugin_site: Path, tmp_path: Path) -> None:
    """A copy of the repository with a metric appended to ibm_speech_likert builds the same
    leaderboard entries, each still valid, the new metric in each ibm_speech_likert entry."""
    copy = tmp_path / "repo"
    copy.mkdir()
    for part in ("debench", "tasks", "scripts", "leaderboard"):
        shutil.copytree(REPO / part, copy / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO / "pyproject.toml", copy)
    task = copy / "tasks" / "ibm_speech_likert.yaml"
    task.write_text(_with_within_one(task.read_text()))
    out = tmp_path / "board"
    proc = subprocess.run(
        [
            sys.executable,
            str(copy / "scripts" / "refresh_leaderboard.py"),
            "--out",
            str(out),
            "--data-dir",
            str(DATA_DIR),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        env={**__import__("os").environ, "PYTHONPATH": str(plugin_site)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr

    def entries(board: dict) -> dict[str, tuple[str, str, dict]]:
        return {
            e["id"]: (t["name"], e["standing"], e)
            for t in board["tasks"]
            for g in ("verified", "self_reported", "baselines")
            for e in t[g]
        }

    before = entries(json.loads((REPO / "leaderboard" / "leaderboard.json").read_text()))
    after = entries(json.loads((out / "leaderboard.json").read_text()))
    assert set(after) == set(before) and len(after) > 0
    rescored = 0
    for key, (name, standing, entry) in after.items():
        assert standing == before[key][1], key
        old = before[key][2]["metrics"]
        assert {k: v for k, v in entry["metrics"].items() if k != "within_one"} == old, (
            key
        )  # the other figures as the files state them
        if name == "ibm_speech_likert":
            rescored += 1
            # a ranked row's numbers are the job's own run (leaderboard/reproduced/), the others the submitted ones
            samples = out.parent / "repo" / "leaderboard" / entry["samples_file"]
            records = [json.loads(line) for line in samples.read_text().splitlines()]
            ok = [r for r in records if r["status"] == "ok"]
            assert entry["metrics"]["within_one"]["value"] == pytest.approx(
                sum(abs(r["prediction"] - r["target"]) <= 1 for r in ok) / len(ok)
            )
        else:
            assert "within_one" not in entry["metrics"]
    assert rescored >= 4
