"""The Python API (``debench.evaluate``, ``aevaluate``, ``score``, ``load_results``) gives what the CLI gives."""

from __future__ import annotations

import asyncio
import inspect
import json
from collections.abc import Sequence
from pathlib import Path
from types import UnionType
from typing import Any, Union, get_args, get_origin, get_type_hints

import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir

import debench
from debench.api import EvalKeywords, ScoreKeywords
from debench.core.errors import UserError
from debench.core.options import FolderText, JudgeSpec, Options
from debench.data.samples import read_records
from debench.run.pipeline import EvalOptions, ScoreOptions
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


def test_evaluate_takes_the_tasks_the_judge_and_one_options_object() -> None:
    """At most 8 parameters, the same for ``evaluate`` and ``aevaluate``; the options travel as one
    object (``EvalOptions``), the judge as a ``JudgeSpec``."""
    for fn in (debench.aevaluate, debench.evaluate, debench.score):
        assert len(inspect.signature(fn).parameters) <= 8, fn
    assert inspect.signature(debench.evaluate) == inspect.signature(debench.aevaluate)
    assert list(inspect.signature(debench.evaluate).parameters) == ["tasks", "model", "options", "keywords"]


def _shape(tp: Any) -> Any:
    """A type as an options field holds it: a path given as text or as a ``Path`` is a path, and
    any sequence a list (what the keywords accept and the field turns it into)."""
    if tp in (Path, FolderText):
        return "path"
    if get_origin(tp) in (Union, UnionType):
        shapes = {_shape(a) for a in get_args(tp)}
        if "path" in shapes:
            shapes.discard(str)
        return shapes.pop() if len(shapes) == 1 else frozenset(shapes)
    if get_origin(tp) in (list, Sequence):
        return ("list", _shape(get_args(tp)[0]))
    return tp


def _field_types(*models: type[Options]) -> dict[str, Any]:
    hints = {}
    for model in models:
        types = get_type_hints(model, include_extras=True)
        hints.update({name: types[name] for name in model.model_fields})
    return hints


@pytest.mark.parametrize(
    ("keywords", "models", "not_keywords"),
    [(EvalKeywords, (JudgeSpec, EvalOptions), {"model"}), (ScoreKeywords, (ScoreOptions,), set())],
)
def test_the_typed_keywords_and_the_options_models_cannot_drift_apart(
    keywords: type, models: tuple[type[Options], ...], not_keywords: set[str]
) -> None:
    """Every field of the options (and of the judge, but its model) is a keyword of the same type,
    and every keyword a field: a field added to one and not the other fails here."""
    fields = _field_types(*models)
    typed = get_type_hints(keywords, include_extras=True)
    assert set(typed) == set(fields) - not_keywords
    assert {k: _shape(t) for k, t in typed.items()} == {k: _shape(fields[k]) for k in typed}
    if len(models) == 2:  # a keyword goes to the judge or to the options by its name: never both
        assert not set(models[0].model_fields) & set(models[1].model_fields)


def _answers(samples: Path) -> list[dict[str, Any]]:
    """A samples log without the measured latencies."""
    return [r.model_dump(exclude={"latency_s"}) for r in read_records(samples)]


def test_options_given_whole_or_as_keywords_run_the_same(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    judge = JudgeSpec(model="baseline/last")
    options = EvalOptions(data_dir=DATA_DIR, output_dir=tmp_path / "whole", n_bootstrap=50, progress=False)
    (whole,) = debench.evaluate("debateart_winner", judge, options)
    (keywords,) = debench.evaluate(
        "debateart_winner", "baseline/last", data_dir=DATA_DIR, output_dir=tmp_path / "keywords", n_bootstrap=50
    )
    (on_top,) = debench.evaluate("debateart_winner", judge, options, output_dir=tmp_path / "on_top", limit=5)
    assert whole.results.metrics == keywords.results.metrics
    assert _answers(whole.samples_path) == _answers(keywords.samples_path)
    assert whole.results.config == keywords.results.config
    assert on_top.results.n_samples == 5 and on_top.results_path.is_relative_to(tmp_path / "on_top")
    assert options.limit is None  # the options given are not changed
    with pytest.raises(UserError, match=r"^options: expected EvalOptions, got dict$"):
        debench.evaluate("debateart_winner", judge, {"limit": 3})  # type: ignore[arg-type]  # the wrong call under test
    with pytest.raises(UserError, match=r"^field '--ensemble': 'meen' is not one of"):
        debench.evaluate("debateart_winner", judge, options, ensemble="meen")  # type: ignore[typeddict-item]
