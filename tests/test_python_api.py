"""The Python API (``debench.evaluate``, ``aevaluate``, ``score``, ``load_results``) gives what the CLI gives."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir

import debench
from debench.core.errors import UserError
from debench.testing.stub_server import StubServer


def test_evaluate_equals_the_cli(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    runs = debench.evaluate(
        ["debateart_winner", "bp_top_team"],
        model="baseline/last",
        data_dir=DATA_DIR,
        output_dir=tmp_path / "api",
        n_bootstrap=200,
    )
    assert [r.results.task.name for r in runs] == ["debateart_winner", "bp_top_team"]
    proc = run_cli(
        "eval",
        "--task",
        "debateart_winner,bp_top_team",
        "--model",
        "baseline/last",
        "--data-dir",
        str(DATA_DIR),
        "--output-dir",
        str(tmp_path / "cli"),
        "--bootstrap",
        "200",
        "--no-progress",
    )
    assert proc.returncode == 0, proc.stderr
    for run in runs:
        cli = json.loads((tmp_path / "cli" / run.results_path.relative_to(tmp_path / "api")).read_text())
        assert {k: v["value"] for k, v in cli["metrics"].items()} == {
            k: v.value for k, v in run.results.metrics.items()
        }
        assert debench.load_results(run.results_path) == run.results
        assert run.samples_path.exists()


def test_aevaluate_inside_a_running_loop_and_score(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")

    async def notebook() -> list[debench.api.Evaluation]:
        return await debench.aevaluate(
            "ibm_speech_likert",
            "baseline/random",
            limit=30,
            data_dir=DATA_DIR,
            output_dir=tmp_path,
            seed=3,
            n_bootstrap=100,
        )

    (run,) = asyncio.run(notebook())
    rescored = debench.score(
        "ibm_speech_likert", run.samples_path, limit=30, data_dir=DATA_DIR, n_bootstrap=100, output=tmp_path / "s.json"
    )
    assert rescored.metrics["kendall_tau_c"] == run.results.metrics["kendall_tau_c"]
    assert debench.load_results(tmp_path / "s.json").metrics == rescored.metrics


def test_model_settings_and_errors_through_the_api(tmp_path: Path) -> None:
    with StubServer() as srv:
        (run,) = debench.evaluate(
            "ibm_speech_likert",
            "openai/stub",
            api_base=srv.base_url,
            model_args={"temperature": 0.5, "max_tokens": 8},
            limit=2,
            data_dir=DATA_DIR,
            output_dir=tmp_path,
            n_bootstrap=0,
        )
        assert {(b["temperature"], b["max_tokens"]) for b in srv.stats.requests} == {(0.5, 8)}
    assert run.results.config["generation"]["temperature"] == 0.5
    with pytest.raises(UserError, match="unknown task"):
        debench.evaluate("no_such_task", "baseline/random")
    with pytest.raises(UserError, match="did you mean 'timeout'"):
        debench.evaluate("ibm_speech_likert", "openai/stub", api_base="http://127.0.0.1:9/v1", model_args="tiemout=3")
    with pytest.raises(UserError, match="results file not found"):
        debench.load_results(tmp_path / "missing.json")
