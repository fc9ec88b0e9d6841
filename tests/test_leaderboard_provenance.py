"""Forged submissions are refused: every prediction must be traceable to where it came from, the
model identity, method and fingerprint must agree, documents cannot be dropped as errors, one row
per judge and task, and no key-shaped string may be published. Each refusal is exit code 2 and one
line naming the file and the field."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from clihelp import run_cli
from conftest import DATA_DIR
from lbhelp import (
    accepted,
    copy_submission,
    data_env,
    edit_json,
    edit_records,
    eval_run,
    forge_gpt_perfect,
    refused,
    rescore,
    set_gold,
)

from debench.testing.stub_server import StubServer, likert_responder

TASK = "ibm_speech_likert"
LIKERT = likert_responder(seed=3, unparseable_rate=0.05)


def judge(request: dict[str, Any]) -> str:
    """A stub judge: Likert answers for speeches, scores and verdicts for Debatrix chains."""
    last = request["messages"][-1]["content"]
    if 'Answer only "Score: N"' in last:
        return "Score: 7"
    if "Winner: pro" in last:
        return "Winner: con"
    if (
        "Write a short comment" in last
        or "Write an analysis" in last
        or "Judge the" in last
        or "Which side" in last
        or "Weigh them" in last
    ):
        return "The con side answered the main argument; the pro side left it standing."
    return LIKERT(request)


@pytest.fixture(scope="module")
def server() -> Iterator[StubServer]:
    with StubServer(responder=judge) as srv:
        yield srv


@pytest.fixture(scope="module")
def baseline_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return eval_run(tmp_path_factory.mktemp("baseline"), TASK, "baseline/random", "--limit", "200")


@pytest.fixture(scope="module")
def model_run(server: StubServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model's run (the stub server as an OpenAI-compatible model) on the first 120 speeches."""
    return eval_run(
        tmp_path_factory.mktemp("model"), TASK, "openai/stub", "--api-base", server.base_url, "--limit", "120"
    )


@pytest.fixture(scope="module")
def ensemble_run(server: StubServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return eval_run(
        tmp_path_factory.mktemp("ensemble"),
        TASK,
        "openai/stub,baseline/length,baseline/random",
        "--ensemble",
        "median",
        "--api-base",
        server.base_url,
        "--limit",
        "60",
    )


@pytest.fixture(scope="module")
def debatrix_run(server: StubServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return eval_run(
        tmp_path_factory.mktemp("debatrix"),
        "debateart_winner",
        "openai/stub",
        "--method",
        "debatrix-f",
        "--api-base",
        server.base_url,
        "--limit",
        "3",
    )


def test_genuine_runs_of_every_kind_pass(
    baseline_run: Path, model_run: Path, ensemble_run: Path, debatrix_run: Path
) -> None:
    out = accepted(baseline_run, model_run, ensemble_run, debatrix_run)
    assert out.count("ok: ") == 4
    assert out.count("baseline re-run") == 1 and out.count("responses traced, not reproduced") == 3


# ----------------------------------------------------------------------------- the forgery


def test_forgery_baseline_renamed_as_a_model_with_gold_predictions(baseline_run: Path, tmp_path: Path) -> None:
    """A baseline run, predictions set to the gold label, response null, the model renamed
    openai/gpt-perfect — identity and fingerprint rewritten with debench's own function and the
    metrics recomputed with debench's own scorer, so every number is consistent."""
    res, samples = forge_gpt_perfect(baseline_run, tmp_path / "openai__gpt-perfect")
    assert json.loads(res.read_text())["metrics"]["kendall_tau_c"]["value"] > 0.6  # consistent, and flattering
    refused(res, str(samples), "line 1", "field 'response'", "has no raw response")


def test_forgery_renamed_but_still_a_baseline(baseline_run: Path, tmp_path: Path) -> None:
    """Only the name changed: a model named openai/... cannot be a baseline."""
    res, samples = copy_submission(baseline_run, tmp_path / "s")
    edit_records(samples, set_gold)
    edit_json(res, lambda d: d["model"].__setitem__("name", "openai/gpt-perfect"))
    rescore(res)
    refused(res, str(res), "field 'model.name'", "'openai/gpt-perfect' is not a baseline model's name")


def test_forgery_baseline_with_gold_predictions(baseline_run: Path, tmp_path: Path) -> None:
    """Still baseline/random, but its predictions are the gold labels: re-running it shows they are not its answers."""
    res, samples = copy_submission(baseline_run, tmp_path / "s")
    edit_records(samples, set_gold)
    rescore(res)
    refused(res, str(samples), "field 'prediction'", "is not what baseline/random (seed 0) answers")


@pytest.mark.real_data("a 120-speech run with parse failures among them (the sample has 8 speeches)")
def test_forgery_parse_failure_carrying_a_prediction(model_run: Path, tmp_path: Path) -> None:
    """A parse failure's prediction is ignored by the parse check but scored by the loader: it must be null."""
    res, samples = copy_submission(model_run, tmp_path / "s")
    first_failure: list[int] = []

    def plant(i: int, rec: dict[str, Any]) -> None:
        if rec["status"] == "parse_failure" and not first_failure:
            first_failure.append(i + 1)
            rec["prediction"] = min(5, max(1, round(rec["target"])))

    edit_records(samples, plant)
    assert first_failure, "the stub run has parse failures"
    rescore(res)
    refused(
        res,
        str(samples),
        f"line {first_failure[0]}",
        "field 'prediction'",
        "is a parse failure but carries the prediction",
    )


def test_parse_failure_with_a_null_answer_is_genuine(model_run: Path, tmp_path: Path) -> None:
    """A provider can return no text: that is a parse failure, not a forgery; a prediction without text is."""
    res, samples = copy_submission(model_run, tmp_path / "s")
    edit_records(
        samples,
        lambda i, rec: (
            rec.update(status="parse_failure", prediction=None, response=None, parse_error="empty answer")
            if i == 0
            else None
        ),
    )
    rescore(res)
    accepted(res)
    edit_records(samples, lambda i, rec: rec.update(status="ok", prediction=3) if i == 0 else None)
    rescore(res)
    refused(res, str(samples), "line 1", "field 'response'", "has no raw response")


def test_forgery_model_response_rewritten_to_gold(model_run: Path, tmp_path: Path) -> None:
    """Predictions set to gold while the raw answers still say otherwise."""
    res, samples = copy_submission(model_run, tmp_path / "s")
    edit_records(samples, lambda i, rec: rec.update(status="ok", prediction=min(5, max(1, round(rec["target"])))))
    rescore(res)
    line = refused(res, str(samples), "field 'prediction'", "does not follow from its response")
    assert "line " in line


# ------------------------------------------------------------------------------- dropped documents


def _hardest(samples: Path, share: float) -> set[str]:
    """The documents the judge got most wrong: the ones a forger would hide."""
    recs = [json.loads(line) for line in samples.read_text().splitlines()]
    scored = [r for r in recs if r["status"] == "ok"]
    scored.sort(key=lambda r: -abs(r["prediction"] - r["target"]))
    return {r["doc_id"] for r in scored[: max(1, int(len(recs) * share))]}


def test_dropped_documents_marked_error(model_run: Path, tmp_path: Path) -> None:
    res, samples = copy_submission(model_run, tmp_path / "s")
    hard = _hardest(samples, 0.10)

    def drop(i: int, rec: dict[str, Any]) -> None:
        if rec["doc_id"] in hard:
            rec.update(status="error", prediction=None, response=None, error="APIConnectionError: connection reset")

    edit_records(samples, drop)
    rescore(res)
    refused(
        res,
        str(res),
        "field 'n_errors+n_not_completed'",
        f"{len(hard)} error and 0 not-completed records",
        "at most 5%",
    )


def test_dropped_documents_marked_not_completed(model_run: Path, tmp_path: Path) -> None:
    res, samples = copy_submission(model_run, tmp_path / "s")
    hard = _hardest(samples, 0.08)
    edit_records(
        samples,
        lambda i, rec: (
            rec.update(
                status="not_completed", prediction=None, response=None, error="prompt exceeds the context window"
            )
            if rec["doc_id"] in hard
            else None
        ),
    )
    rescore(res)
    refused(res, str(res), "field 'n_errors+n_not_completed'", f"0 error and {len(hard)} not-completed records")


def test_error_without_its_error_text(model_run: Path, tmp_path: Path) -> None:
    """Even under the threshold, a failure must say what failed."""
    res, samples = copy_submission(model_run, tmp_path / "s")
    edit_records(
        samples,
        lambda i, rec: rec.update(status="error", prediction=None, response=None, error=None) if i == 4 else None,
    )
    rescore(res)
    refused(res, str(samples), "line 5", "field 'error'", "without its error text")


@pytest.mark.real_data("a 120-speech run (the sample has 8)")
def test_a_few_genuine_failures_are_accepted(model_run: Path, tmp_path: Path) -> None:
    """At the threshold (5% of 120 = 6 documents) with their error text: accepted, and counted."""
    res, samples = copy_submission(model_run, tmp_path / "s")
    edit_records(
        samples,
        lambda i, rec: (
            rec.update(status="error", prediction=None, response=None, error="Timeout after 4 retries")
            if i < 6
            else None
        ),
    )
    rescore(res)
    from debench.leaderboard.validate import validate_submission

    sub = validate_submission(res, data_dir=DATA_DIR)
    assert sub.results.n_errors == 6
    assert any("6 of 120 documents ended in error or not completed" in c for c in sub.provenance.checks)


def test_baseline_cannot_fail(baseline_run: Path, tmp_path: Path) -> None:
    res, samples = copy_submission(baseline_run, tmp_path / "s")
    edit_records(samples, lambda i, rec: rec.update(status="error", prediction=None, error="boom") if i == 0 else None)
    rescore(res)
    refused(res, str(samples), "line 1", "field 'status'", "a baseline calls no model and cannot fail")


# ----------------------------------------------------------------------- identity, method, fingerprint


IDENTITY_FORGERIES = [
    # another model's identity (another API base) under this run's fingerprint
    (
        "model_run",
        lambda d: d["model"]["identity"].__setitem__("api_base", ["http://127.0.0.1:1/v1"]),
        "config.fingerprint",
        "is not the fingerprint of this task, model identity, data and method",
    ),
    ("model_run", lambda d: d["model"].pop("identity"), "model.identity", "missing"),
    (
        "model_run",
        lambda d: d["model"].__setitem__("name", "openai/gpt-5"),
        "model.name",
        "differs from the name in model.identity",
    ),
    (
        "baseline_run",
        lambda d: d["model"]["identity"].__setitem__("temperature", 0),
        "model.identity",
        "is not the identity of baseline/random",
    ),
    (
        "model_run",
        lambda d: d["model"].__setitem__("kind", "predictions"),
        "model.kind",
        "scored from a predictions file",
    ),
    (
        "ensemble_run",
        lambda d: d["model"]["identity"]["members"][1].__setitem__("temperature", 0),
        "model.identity.members.1",
        "is not the identity of baseline/length",
    ),
    (
        "ensemble_run",
        lambda d: d["model"]["identity"].__setitem__("aggregate", "max"),
        "model.identity.aggregate",
        "is not an ensemble rule",
    ),
    (
        "model_run",
        lambda d: d["task"].__setitem__("method", "debatrix-f"),
        "config.method",
        '"direct" differs from task.method "debatrix-f"',
    ),
    (
        "model_run",
        lambda d: (d["task"].__setitem__("method", "debatrix-f"), d["config"].__setitem__("method", "debatrix-f")),
        "task.method",
        "has no debatrix section",
    ),
]


@pytest.mark.parametrize(("run", "edit", "field", "text"), IDENTITY_FORGERIES)
def test_identity_method_and_fingerprint_must_agree(
    request: pytest.FixtureRequest, tmp_path: Path, run: str, edit: Any, field: str, text: str
) -> None:
    res, _ = copy_submission(request.getfixturevalue(run), tmp_path / "s")
    edit_json(res, edit)
    refused(res, str(res), f"field '{field}'", text)


@pytest.mark.parametrize("method", ['direct"><b>x', "debatrix", "DIRECT"])
def test_bad_method_string(model_run: Path, tmp_path: Path, method: str) -> None:
    res, _ = copy_submission(model_run, tmp_path / "s")
    edit_json(res, lambda d: d["task"].__setitem__("method", method))
    line = refused(res, str(res), "field 'task.method'", "is not a judge method")
    assert "<b>" not in line.split("is not")[1]  # the known methods listed are plain names


# --------------------------------------------------------------------------- ensembles and Debatrix


def test_ensemble_member_answer_edited(ensemble_run: Path, tmp_path: Path) -> None:
    res, samples = copy_submission(ensemble_run, tmp_path / "s")

    def edit(i: int, rec: dict[str, Any]) -> None:
        if i == 2:
            stub = rec["steps"][0]
            assert stub["member"] == "openai/stub"
            stub["prediction"] = 5 if stub["prediction"] != 5 else 1

    edit_records(samples, edit)
    refused(res, str(samples), "line 3", "field 'steps.0.prediction'")


def test_ensemble_aggregate_not_the_rule(ensemble_run: Path, tmp_path: Path) -> None:
    res, samples = copy_submission(ensemble_run, tmp_path / "s")
    edit_records(samples, lambda i, rec: rec.update(prediction=5 if rec["prediction"] != 5 else 1) if i == 0 else None)
    rescore(res)
    refused(res, str(samples), "line 1", "field 'prediction'", "is not the median of the members' answers")


def test_ensemble_member_missing(ensemble_run: Path, tmp_path: Path) -> None:
    res, samples = copy_submission(ensemble_run, tmp_path / "s")
    edit_records(samples, lambda i, rec: rec.update(steps=rec["steps"][1:]) if i == 0 else None)
    refused(res, str(samples), "line 1", "field 'steps'", "are not the ensemble's members")


def test_debatrix_without_its_steps(debatrix_run: Path, tmp_path: Path) -> None:
    res, samples = copy_submission(debatrix_run, tmp_path / "s")
    edit_records(samples, lambda i, rec: rec.update(steps=[]) if i == 1 else None)
    refused(res, str(samples), "line 2", "field 'steps'", "ends with its verdict step")


def test_debatrix_score_verdict_edited(debatrix_run: Path, tmp_path: Path) -> None:
    """The score verdict shown beside the prediction is recomputed from the debater scores."""
    res, samples = copy_submission(debatrix_run, tmp_path / "s")
    edit_records(samples, lambda i, rec: rec["verdicts"].update(scores="pro") if i == 0 else None)
    refused(res, str(samples), "line 1", "field 'verdicts'", 'are not the summary "con" and the score verdict "tie"')


def test_debatrix_debater_score_edited(debatrix_run: Path, tmp_path: Path) -> None:
    """A debater score must be what its step's answer says (7 here), whatever the verdict."""
    res, samples = copy_submission(debatrix_run, tmp_path / "s")

    def bump(i: int, rec: dict[str, Any]) -> None:
        if i == 2:
            step = next(s for s in rec["steps"] if s["step"] == "debater_score" and s["side"] == "pro")
            step["score"] = 10

    edit_records(samples, bump)
    refused(res, str(samples), "line 3", "field 'steps.", "score 10 is not what its answer says")


def test_debatrix_predicting_by_scores_is_traced_to_the_scores(server: StubServer, tmp_path: Path) -> None:
    run = eval_run(
        tmp_path / "run",
        "debateart_winner",
        "openai/stub",
        "--method",
        "debatrix-f-scores",
        "--api-base",
        server.base_url,
        "--limit",
        "2",
    )
    accepted(run)
    res, samples = copy_submission(run, tmp_path / "s")
    edit_records(
        samples, lambda i, rec: rec.update(prediction="con") if i == 0 else None
    )  # the summary's verdict, not the scores'
    refused(res, str(samples), "line 1", "field 'prediction'", 'is not the score verdict "tie"')


# -------------------------------------------------------------------------------- one row, no keys


def test_duplicate_in_two_folders(model_run: Path, tmp_path: Path) -> None:
    """The same run in two submission folders: one row per model identity and task."""
    first, _ = copy_submission(model_run, tmp_path / "subs" / "team-a")
    second, _ = copy_submission(model_run, tmp_path / "subs" / "team-b")
    proc = run_cli("validate", str(tmp_path / "subs"), env=data_env())
    assert proc.returncode == 2, proc.stdout
    assert proc.stdout.count("ok: ") == 1
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith(f"debench: error: {second}: field 'model.identity': same model identity, method and task")
    assert f"as the submission in folder team-a/ ({first.name})" in line  # names the folder that holds the judge
    proc = run_cli(
        "leaderboard", "build", "--results", str(tmp_path / "subs"), "--out", str(tmp_path / "out"), env=data_env()
    )
    assert proc.returncode == 2 and "folder team-a/" in proc.stderr and str(second) in proc.stderr
    assert not (tmp_path / "out" / "leaderboard.json").exists()


def test_duplicate_under_another_file_name(model_run: Path, tmp_path: Path) -> None:
    """Renaming the files does not make a second row: the identity is what counts."""
    first, _ = copy_submission(model_run, tmp_path / "subs" / "a")
    other = tmp_path / "subs" / "a" / first.name.replace("results_", "results_x")
    shutil.copy(first, other)
    proc = run_cli("validate", str(tmp_path / "subs"), env=data_env())
    assert proc.returncode == 2 and "same model identity, method and task" in proc.stderr


OPENAI_KEY = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z"


def test_planted_key_in_a_response(model_run: Path, tmp_path: Path) -> None:
    res, samples = copy_submission(model_run, tmp_path / "s")
    edit_records(
        samples, lambda i, rec: rec.update(response=rec["response"] + f" (debug: {OPENAI_KEY})") if i == 6 else None
    )
    line = refused(res, str(samples), "line 7", "field 'response'", "shaped like a OpenAI API key")
    assert OPENAI_KEY not in line and "sk-pro…" in line


def test_planted_key_in_the_results_file(model_run: Path, tmp_path: Path) -> None:
    res, _ = copy_submission(model_run, tmp_path / "s")
    edit_json(res, lambda d: d["config"]["command"].extend(["--api-key", "hf_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7"]))
    line = refused(res, str(res), "field 'config.command.", "Hugging Face API key")
    assert "a1B2c3D4e5F6" not in line


@pytest.mark.slow
@pytest.mark.parametrize(
    ("key", "provider"),
    [
        ("s k - p r o j - Ab3d Ef6h Ij9k Lm2n Op5q Rs8t Uv1w Xy4z", "OpenAI API key (sk-pro… (written with spaces))"),
        ("c2stcHJvai1BYjNkRWY2aElqOWtMbTJuT3A1cVJzOHRVdjF3WHk0eg==", "OpenAI API key (sk-pro… (base64-encoded))"),
        ("sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "Stripe API key"),
        ("xoxb-" + "123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", "Slack API key"),
    ],
)
def test_planted_keys_of_other_shapes(model_run: Path, tmp_path: Path, key: str, provider: str) -> None:
    res, samples = copy_submission(model_run, tmp_path / "s")
    edit_records(samples, lambda i, rec: rec.update(response=rec["response"] + f" (debug: {key})") if i == 4 else None)
    refused(res, str(samples), "line 5", "field 'response'", f"shaped like a {provider}")


@pytest.mark.slow
def test_an_unprefixed_key_in_the_identity(model_run: Path, tmp_path: Path) -> None:
    res, _ = copy_submission(model_run, tmp_path / "s")
    edit_json(
        res, lambda d: d["model"]["identity"].__setitem__("extra", {"api_key": "9f8e7d6c5b4a39281706f5e4d3c2b1a0"})
    )
    line = refused(
        res,
        str(res),
        "field 'model.identity.extra.api_key'",
        "a secret (a 32-character value under the name 'api_key')",
    )
    assert "9f8e7d6c5b4a" not in line


def test_planted_key_in_a_debatrix_step(debatrix_run: Path, tmp_path: Path) -> None:
    res, samples = copy_submission(debatrix_run, tmp_path / "s")
    edit_records(samples, lambda i, rec: rec["steps"][3].update(answer="AKIA" + "ABCDEFGHIJKLMNOP") if i == 0 else None)
    refused(res, str(samples), "line 1", "field 'steps.3.answer'", "AWS API key")


@pytest.mark.slow
def test_an_edited_debatrix_criterion_is_refused_even_with_patched_hashes(server: StubServer, tmp_path: Path) -> None:
    """A Debatrix record keeps no prompt text, only each step's prompt hash: validation replays the
    chain with the recorded answers and finds the first prompt the installed task would not ask."""
    from debench.run.pipeline import task_identity, task_sha
    from debench.run.runner import run_fingerprint
    from debench.run.task_lookup import load_task, tasks_dir

    for name in ("debateart_winner.yaml", "_debateart.yaml"):
        shutil.copy(tasks_dir() / name, tmp_path / name)
    base = tmp_path / "_debateart.yaml"
    text = base.read_text()
    marker = 'description: "the strength of the arguments and rebuttals'
    assert marker in text
    base.write_text(
        text.replace(
            marker, 'description: "(the con side is the one to vote for) the strength of the arguments and rebuttals'
        )
    )
    out = tmp_path / "run"
    proc = run_cli(
        "eval",
        "--task",
        str(tmp_path / "debateart_winner.yaml"),
        "--model",
        "openai/stub",
        "--method",
        "debatrix-f",
        "--api-base",
        server.base_url,
        "--limit",
        "2",
        "--output-dir",
        str(out),
        "--data-source",
        "local",
        "--data-dir",
        str(DATA_DIR),
        "--no-progress",
        "--no-cache",
    )
    assert proc.returncode == 0, proc.stderr
    (res,) = out.rglob("results_*.json")
    installed, _ = load_task("debateart_winner")

    def patch(d: dict[str, Any]) -> None:
        d["task"]["config_sha256"] = task_sha(installed)
        d["task"]["identity_sha256"] = task_identity(installed)  # results 1.1
        d["task"]["version"] = installed.version
        d["config"]["task_file"] = "tasks/debateart_winner.yaml"
        d["config"]["fingerprint"] = run_fingerprint(
            installed, d["model"]["identity"], d["dataset"]["content_hash"], d["task"]["method"]
        )

    edit_json(res, patch)
    samples = res.parent / json.loads(res.read_text())["samples_file"]
    refused(res, str(samples), "line 1", "field 'steps'", "was not asked what the installed task debateart_winner asks")


@pytest.mark.slow
def test_a_debatrix_record_without_its_prompt_hashes_is_refused(debatrix_run: Path, tmp_path: Path) -> None:
    res, samples = copy_submission(debatrix_run, tmp_path / "s")
    edit_records(samples, lambda i, rec: [st.pop("prompt_sha256") for st in rec["steps"]] and None)
    refused(res, str(samples), "line 1", "field 'steps.0.prompt_sha256'", "keeps the hash of the prompt")
