"""The embedded local model (SmolLM2-135M via xllamacpp) on real data: slow on CPU, so few docs.
Every test that starts llama.cpp lives in one of conftest's ``EMBEDDED_MODEL_MODULES`` (this one
holds those of ``local/smollm2``'s answer order and of ``gguf/<file>``), so that under xdist they
share one worker and never compete with a second llama.cpp for the cores (conftest checks it)."""

from __future__ import annotations

import asyncio
import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from clihelp import run_cli, run_cli_process
from conftest import DATA_DIR, REPO, real_data_dir
from test_gguf_model import sha256_of, smollm2_file

from debench.cli import main
from debench.data.loading import load_task_data
from debench.models.local import LocalModel
from debench.run.runner import RunSettings, run_samples
from debench.run.task_lookup import load_task
from debench.task.grammars import grammar_names, load_grammar

pytestmark = [pytest.mark.local_model, pytest.mark.slow]


@pytest.fixture(scope="module")
def server():
    """The process's server (closed at exit), which the commands run by ``run_cli`` in this process use too."""
    from debench.models.local_server import get_local_server

    return get_local_server()  # the default settings, as local/smollm2's


def _ask(server, grammar: str, content: str, max_tokens: int = 160) -> str:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    async def go() -> str:
        r = await litellm.acompletion(
            model="openai/smollm2",
            api_base=server.base_url,
            api_key="sk-local",
            temperature=0.0,
            max_tokens=max_tokens,
            messages=[{"role": "user", "content": content}],
            extra_body={"grammar": load_grammar(grammar)},
            max_retries=0,
        )
        return r.choices[0].message.content

    return asyncio.run(go())


GRAMMAR_SHAPES = {
    "likert_1_5": r"Score: [1-5]",
    "likert_1_5_cot": r"[^\n]{1,300}\nScore: [1-5]",
    "score_1_10": r"Score: (10|[1-9])",
    "winner_pro_tie_con": r"Winner: (pro|con|tie)",
    "winner_bp_team": r"Winner: (OG|OO|CG|CO)",
    "verdict_pro_tie_con": r"[^\n]{0,400}\nWinner: (pro|con|tie)",
    "verdict_bp_team": r"[^\n]{0,400}\nWinner: (OG|OO|CG|CO)",
    "scores_pro_con": r"[^\n]{0,400}\nPro score: (10|[1-9]), Con score: (10|[1-9])",
    "scores_only_pro_con": r"Pro score: (10|[1-9]), Con score: (10|[1-9])",
    "arena_verdict": r"side1: \[\[(10|[1-9])\]\], side2: \[\[(10|[1-9])\]\], winner: \[\[[12]\]\]",
    "arena_verdict_reason": r"side1: \[\[(10|[1-9])\]\], side2: \[\[(10|[1-9])\]\], winner: "
    r"\[\[[12]\]\]\nreason: \[\[[a-z]+\]\]",
}


def test_every_shipped_grammar_is_covered() -> None:
    assert set(grammar_names()) == set(GRAMMAR_SHAPES)


@pytest.mark.parametrize("name", sorted(GRAMMAR_SHAPES))
def test_grammar_constrains_the_answer(server, name: str) -> None:
    out = _ask(server, name, "Pro argued cats make better pets; con argued dogs do. Judge the debate and answer.")
    assert re.fullmatch(GRAMMAR_SHAPES[name], out), out


def test_eval_real_speeches_end_to_end(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    proc = run_cli(
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "local/smollm2",
        "--limit",
        "4",
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        "--bootstrap",
        "50",
        env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "kendall_tau_c" in proc.stdout and "results:" in proc.stdout
    res = json.loads(next(tmp_path.glob("local__smollm2/results_ibm_speech_likert_*.json")).read_text())
    assert res["dataset"]["source"] == "local" and res["dataset"]["is_sample"] is False
    assert res["n_samples"] == 4 and res["n_errors"] == 0 and res["n_parse_failures"] == 0  # the grammar holds
    assert res["usage"]["prompt_tokens"] > 1000 and res["usage"]["cost_usd"] is None
    samples = [
        json.loads(row) for row in next(tmp_path.glob("local__smollm2/samples_*.jsonl")).read_text().splitlines()
    ]
    assert all(
        re.fullmatch(r"Score: [1-5]", s["response"]) and s["prediction"] == int(s["response"][-1]) for s in samples
    )


def test_eval_cot_variant(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    proc = run_cli(
        "eval",
        "--task",
        "ibm_speech_likert_cot",
        "--model",
        "local/smollm2",
        "--limit",
        "2",
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        "--bootstrap",
        "20",
        env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )
    assert proc.returncode == 0, proc.stderr
    samples = [
        json.loads(row) for row in next(tmp_path.glob("local__smollm2/samples_*.jsonl")).read_text().splitlines()
    ]
    for s in samples:
        assert s["status"] == "ok"
        assert "\nScore: " in s["response"] and len(s["response"]) > 20  # a justification first


def test_offline_default_runs_on_the_sample(tmp_path: Path) -> None:
    """No DEBENCH_DATA_DIR and no Hub: the bundled sample, clearly marked."""
    proc = run_cli(
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "local/smollm2",
        "--limit",
        "3",
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        "--bootstrap",
        "20",
        env={"DEBENCH_DATA_DIR": None, "HF_HUB_OFFLINE": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    assert "SAMPLE DATA" in proc.stdout
    res = json.loads(next(tmp_path.glob("local__smollm2/results_*.json")).read_text())
    assert res["dataset"]["is_sample"] is True and res["dataset"]["source"] == "sample"


def _variant(tmp_path: Path, base: str, dims: int, name: str) -> Path:
    """A user task file that includes a shipped task and keeps its first ``dims`` Debatrix columns."""
    task, path = load_task(base)
    cols = [d.model_dump() for d in task.debatrix.dimensions[:dims]]
    f = tmp_path / f"{name}.yaml"
    f.write_text(
        json.dumps({"include": str(path), "name": name, "debatrix": {"dimensions": cols, "comment_max_tokens": 48}})
    )
    return f


@pytest.mark.real_data("a real BP debate too long for a direct prompt (the sample's are short)")
def test_debatrix_f_completes_bp_debates_that_direct_cannot_fit(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    task = _variant(tmp_path, "bp_top_team", 1, "bp_one_column")
    env = {"DEBENCH_DATA_DIR": str(DATA_DIR)}
    direct = run_cli(
        "eval",
        "--task",
        str(task),
        "--model",
        "local/smollm2",
        "--limit",
        "1",
        "--output-dir",
        str(tmp_path / "d"),
        "--no-progress",
        "--bootstrap",
        "10",
        env=env,
    )
    assert direct.returncode == 0, direct.stderr
    res = json.loads(next((tmp_path / "d").glob("*/results_*.json")).read_text())
    assert res["n_not_completed"] == 1 and res["metrics"]["completion_rate"]["value"] == 0.0
    # a chain's steps share long prefixes: llama.cpp's prompt cache (off by default) saves recomputing them
    chained = run_cli(
        "eval",
        "--task",
        str(task),
        "--model",
        "local/smollm2",
        "--model-args",
        "cache_prompt=true",
        "--limit",
        "1",
        "--method",
        "debatrix-f",
        "--output-dir",
        str(tmp_path / "f"),
        "--no-progress",
        "--bootstrap",
        "10",
        env=env,
    )
    assert chained.returncode == 0, chained.stderr
    res = json.loads(next((tmp_path / "f").glob("*/results_*.json")).read_text())
    assert res["task"]["method"] == "debatrix-f" and res["n_not_completed"] == 0 and res["n_parse_failures"] == 0
    assert res["metrics"]["completion_rate"]["value"] == 1.0
    rec = json.loads(next((tmp_path / "f").glob("*/samples_*.jsonl")).read_text().splitlines()[0])
    assert rec["prediction"] in ("OG", "OO", "CG", "CO")
    assert len(rec["steps"]) == 2 * 8 + 1 + 2 * 4 + 1 + 1
    assert res["usage"]["prompt_tokens"] == sum(s["prompt_tokens"] for s in rec["steps"])


def test_debatrix_h_on_a_real_debateart_debate(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    task = _variant(tmp_path, "debateart_argument", 1, "da_one_column")
    proc = run_cli(
        "eval",
        "--task",
        str(task),
        "--model",
        "local/smollm2",
        "--model-args",
        "cache_prompt=true",
        "--limit",
        "1",
        "--method",
        "debatrix-h",
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        "--bootstrap",
        "10",
        env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )
    assert proc.returncode == 0, proc.stderr
    rec = json.loads(next(tmp_path.glob("*/samples_*.jsonl")).read_text().splitlines()[0])
    if rec["status"] == "not_completed":  # H keeps raw speeches: a long debate may overflow, which is reported
        assert "context window" in rec["error"]
    else:
        assert rec["status"] == "ok" and rec["prediction"] in ("pro", "tie", "con")
        assert [s["step"] for s in rec["steps"]][-1] == "verdict"


def test_tiny_tournament_through_the_local_model(tmp_path: Path) -> None:
    topics = tmp_path / "topics.txt"
    topics.write_text("Should cities make buses free?\n")
    proc = run_cli(
        "arena",
        "--models",
        "local/smollm2,local/smollm2@temperature=0.9",
        "--judge",
        "local/smollm2",
        "--topics",
        str(topics),
        "--rounds",
        "2",
        "--max-tokens",
        "48",
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        "--reason",
    )
    assert proc.returncode == 0, proc.stderr
    ranking = json.loads(next(tmp_path.glob("arena_*/ranking.json")).read_text())
    assert sorted(ranking["ranking"]) == ["local/smollm2", "local/smollm2@temperature=0.9"]
    debates = [json.loads(row) for row in next(tmp_path.glob("arena_*/debates.jsonl")).read_text().splitlines()]
    assert len(debates) == 2 and all(d["status"] == "ok" and len(d["turns"]) == 2 for d in debates)  # the grammar holds
    assert all(v["status"] == "ok" and v["reason"] for d in debates for v in d["verdicts"])
    assert "win matrix" in proc.stdout


@pytest.mark.real_data("the README shows the embedded model's answers on the first 8 real speeches")
def test_the_readme_examples_of_the_embedded_model(tmp_path: Path) -> None:
    """The README's examples that run the embedded model (test_readme_examples.py checks the others),
    each command in a new process: a new llama.cpp server, whose prompt cache then holds what it
    held when the README's output was taken, so the answers are the same."""
    from readme_examples import check_example, examples, working_folder

    found = [e for e in examples(REPO / "README.md") if e.uses_embedded_model]
    assert found
    for example in found:
        check_example(example, working_folder(tmp_path, REPO), run_cli_process)


@pytest.mark.real_data(
    "four IBM speeches judged by the embedded model in both orders (about 4 minutes on 2 loaded cores)"
)
def test_the_embedded_model_gives_the_same_answers_in_either_order(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    task, _ = load_task("ibm_speech_likert")
    docs = load_task_data(task, "local", str(DATA_DIR)).docs[50:54]
    got = {}
    for name, order in (("forward", docs), ("reverse", docs[::-1])):
        records, _ = asyncio.run(
            run_samples(
                task,
                order,
                LocalModel("smollm2"),
                tmp_path / f"{name}.jsonl",
                RunSettings(concurrency=1, use_cache=False, progress=False),
            )
        )
        got[name] = {r.doc_id: (r.status, r.prediction, r.response) for r in records}
    assert got["forward"] == got["reverse"] and len(got["forward"]) == 4


def test_any_gguf_file_judges_end_to_end_by_relative_and_absolute_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_data_dir("ibm_debate_speeches")
    wheel_file = smollm2_file()
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "judge.Q4_1.gguf").symlink_to(wheel_file)
    monkeypatch.chdir(tmp_path)
    expected = sha256_of(wheel_file)  # an independent reading of the file
    runner = CliRunner()
    for model in ("gguf/models/judge.Q4_1.gguf", f"gguf/{wheel_file}"):  # gguf/ + /abs/path: gguf//abs/path
        out = tmp_path / model.replace("/", "_")
        result = runner.invoke(
            main,
            [
                "eval",
                "--task",
                "ibm_speech_likert",
                "--model",
                model,
                "--limit",
                "2",
                "--data-dir",
                str(DATA_DIR),
                "--output-dir",
                str(out),
                "--no-progress",
                "--bootstrap",
                "0",
            ],
        )
        assert result.exit_code == 0, result.output
        (path,) = out.rglob("results_*.json")
        results = json.loads(path.read_text())
        assert results["model"]["kind"] == "gguf" and results["n_samples"] == 2 and results["n_errors"] == 0
        assert results["n_parse_failures"] == 0  # the task's grammar reached llama.cpp
        weights_id = results["model"]["identity"]["weights"]
        assert weights_id == {"source": "path", "file": Path(model).name, "sha256": expected}
        assert results["model"]["identity"]["send_grammar"] is True
        assert str(wheel_file.parent) not in json.dumps(results["model"]) + str(
            path.relative_to(out)
        )  # no absolute path in names
