"""Paired comparison of two runs: the statistics and the CLI."""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir

from debench.metrics.base import get_metric
from debench.metrics.paired import paired_bootstrap, paired_permutation
from debench.models.factory import make_model
from debench.run.pipeline import EvalOptions, evaluate_task
from debench.run.task_lookup import load_task


def _arr(xs):
    a = np.empty(len(xs), dtype=object)
    a[:] = xs
    return a


def _state(golds):
    return _arr(golds), {}


def test_identical_runs_do_not_differ() -> None:
    m = get_metric("accuracy")
    rng = np.random.default_rng(1)
    golds = list(rng.choice(["pro", "con"], 200))
    preds = list(rng.choice(["pro", "con"], 200))
    for fn in (paired_bootstrap, paired_permutation):
        r = fn(m, _state(golds), _arr(preds), _arr(preds), 2000, 0)
        assert r["diff"] == 0 and r["p_value"] == pytest.approx(1.0)


def test_a_clearly_better_run_is_detected_and_seeded() -> None:
    m = get_metric("accuracy")
    rng = np.random.default_rng(2)
    golds = list(rng.choice(["pro", "con"], 200))
    good = [g if rng.random() < 0.8 else ("pro" if g == "con" else "con") for g in golds]
    coin = list(rng.choice(["pro", "con"], 200))
    # independent check of the point difference
    diff = np.mean([p == g for p, g in zip(good, golds, strict=True)]) - np.mean(
        [p == g for p, g in zip(coin, golds, strict=True)]
    )
    for fn in (paired_bootstrap, paired_permutation):
        r = fn(m, _state(golds), _arr(good), _arr(coin), 2000, 7)
        assert r["diff"] == pytest.approx(diff) and r["p_value"] < 0.01
        assert fn(m, _state(golds), _arr(good), _arr(coin), 2000, 7) == r  # same seed, same answer
    ci = paired_bootstrap(m, _state(golds), _arr(good), _arr(coin), 2000, 7)["ci95"]
    assert ci[0] > 0


@pytest.mark.real_data("compares runs over the 100 DebateArt debates (the sample has 4)")
def test_compare_cli_on_real_runs(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    paths = {}
    for b in ("longest", "first"):
        task, path = load_task("debateart_winner")
        out = asyncio.run(
            evaluate_task(
                task,
                path,
                make_model(f"baseline/{b}"),
                EvalOptions(
                    output_dir=tmp_path, data_source="local", data_dir=str(DATA_DIR), progress=False, n_bootstrap=50
                ),
            )
        )
        paths[b] = out.results_path
    proc = run_cli(
        "compare",
        str(paths["longest"]),
        str(paths["first"]),
        "--n",
        "500",
        "--output",
        str(tmp_path / "c.json"),
        env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "100 common documents" in proc.stdout and "accuracy" in proc.stdout
    ibm_task, ibm_path = load_task("ibm_speech_likert")
    ibm = asyncio.run(
        evaluate_task(
            ibm_task,
            ibm_path,
            make_model("baseline/random"),
            EvalOptions(output_dir=tmp_path, data_source="sample", progress=False, n_bootstrap=10),
        )
    )
    bad = run_cli("compare", str(paths["longest"]), str(ibm.results_path), env={"DEBENCH_DATA_DIR": str(DATA_DIR)})
    assert bad.returncode == 2 and "different tasks" in bad.stderr and bad.stderr.count("\n") == 1


def test_winner_names_the_better_direction() -> None:
    from debench.run.compare_runs import winner

    assert winner(0.1, 0.01, True)["winner"] == "A" and winner(0.1, 0.01, False)["winner"] == "B"
    assert winner(-0.1, 0.01, False) == {
        "better": "lower",
        "winner": "A",
        "significant": True,
        "verdict": "A is better (p = 0.0100 < 0.05)",
    }
    assert winner(-0.1, 0.05, True) == {
        "better": "higher",
        "winner": None,
        "significant": False,
        "verdict": "no significant difference at 0.05",
    }
    assert winner(0.0, 0.0001, True)["winner"] is None
    assert winner(None, None, True)["significant"] is None and "undetermined" in winner(None, None, True)["verdict"]


@pytest.mark.real_data("compares runs over the 100 DebateArt debates (the sample has 4)")
def test_compare_says_which_run_wins_each_metric(tmp_path: Path) -> None:
    """Real DebateArt gold (pro 38, tie 6, con 56): always 'tie' (A) has the lower RMSE (lower is
    better: A wins) but always 'con' (B) the higher accuracy (B wins); a run against itself wins nothing."""
    import json

    real_data_dir("debatrix_panelbench")
    paths = {}
    task, path = load_task("debateart_winner")
    for b in ("constant:con", "constant:tie"):
        out = asyncio.run(
            evaluate_task(
                task,
                path,
                make_model(f"baseline/{b}"),
                EvalOptions(
                    output_dir=tmp_path, data_source="local", data_dir=str(DATA_DIR), progress=False, n_bootstrap=20
                ),
            )
        )
        paths[b] = out.results_path
    env = {"DEBENCH_DATA_DIR": str(DATA_DIR)}
    proc = run_cli(
        "compare",
        str(paths["constant:tie"]),
        str(paths["constant:con"]),
        "--n",
        "500",
        "--output",
        str(tmp_path / "c.json"),
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads((tmp_path / "c.json").read_text())["metrics"]
    assert res["rmse"]["better"] == "lower" and res["rmse"]["diff"] < 0 and res["rmse"]["winner"] == "A"
    assert (
        res["accuracy"]["better"] == "higher"
        and res["accuracy"]["diff"] == pytest.approx(0.06 - 0.56)
        and res["accuracy"]["winner"] == "B"
    )
    rmse_line = next(line for line in proc.stdout.splitlines() if line.strip().startswith("rmse"))
    assert " lower " in rmse_line and "A is better (p = " in rmse_line
    acc_line = next(line for line in proc.stdout.splitlines() if line.strip().startswith("accuracy"))
    assert " higher " in acc_line and "B is better (p = " in acc_line
    same = run_cli("compare", str(paths["constant:con"]), str(paths["constant:con"]), "--n", "200", env=env)
    assert same.returncode == 0, same.stderr
    acc_line = next(line for line in same.stdout.splitlines() if line.strip().startswith("accuracy"))
    assert "no significant difference at 0.05" in acc_line
