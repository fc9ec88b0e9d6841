"""``eval --repeats K``: a seeded stochastic judge (the stub answers as a function of the prompt and
the request's seed) gives exactly the agreement, spread and majority vote computed by hand."""

from __future__ import annotations

import asyncio
import hashlib
import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir

from debench.core.errors import UserError
from debench.data.samples import SampleRecord
from debench.models.factory import make_model
from debench.run.pipeline import EvalOptions, evaluate_task
from debench.run.task_lookup import load_task
from debench.scoring.scores import score
from debench.testing.stub_server import StubServer, prompt_key


def stochastic(messages: Any, seed: int | None) -> int:
    """A judge that says 3 most of the time, and something else for some (prompt, seed) pairs."""
    h = int(hashlib.sha256(f"{prompt_key(messages)}|{seed}".encode()).hexdigest(), 16)
    return 3 if h % 10 < 6 else 1 + h % 5


def responder(request: dict[str, Any]) -> str:
    return f"Score: {stochastic(request['messages'], request.get('seed'))}"


@pytest.mark.real_data("24 IBM speeches (the sample has 8)")
def test_repeats_of_a_seeded_stochastic_judge(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    task, path = load_task("ibm_speech_likert")
    k, n = 4, 24
    opts = EvalOptions(
        output_dir=tmp_path,
        limit=n,
        data_source="local",
        data_dir=str(DATA_DIR),
        progress=False,
        n_bootstrap=200,
        repeats=k,
        concurrency=4,
    )
    with StubServer(responder=responder) as srv:
        model = make_model("openai/stub@temperature=0.8", api_bases=[srv.base_url])
        out = asyncio.run(evaluate_task(task, path, model, opts))
        bodies = srv.stats.requests
        assert len(bodies) == k * n
        seeds = Counter(b["seed"] for b in bodies)
        assert seeds == dict.fromkeys(range(k), n)  # repeat k asks with seed k
        srv.reset_stats()
        again = asyncio.run(
            evaluate_task(task, path, make_model("openai/stub@temperature=0.8", api_bases=[srv.base_url]), opts)
        )
        assert srv.stats.total_requests == 0  # every repeat's answers are logged (and cached) on their own
    rep = out.repeats
    assert rep is not None and again.repeats == rep
    # what each repeat must have answered, computed from the stub's rule
    by_doc: dict[str, list[int]] = {}
    for b in bodies:
        by_doc.setdefault(prompt_key(b["messages"]), []).append(b)
    answers = [[stochastic(b["messages"], s) for s in range(k)] for b in (bs[0] for bs in by_doc.values())]
    shares = [Counter(a).most_common(1)[0][1] / k for a in answers]
    assert rep.agreement.n_docs == n
    assert rep.agreement.mean == pytest.approx(statistics.fmean(shares))
    assert rep.agreement.n_unanimous == sum(s == 1 for s in shares)
    assert 0.4 < rep.agreement.mean < 1.0  # the stub really is stochastic
    # each repeat's own results file, its metric in the spread
    per_repeat = [json.loads(next(tmp_path.rglob(f)).read_text()) for f in rep.results_files]
    assert [r["config"]["repeat"] for r in per_repeat] == list(range(k))
    taus = [r["metrics"]["kendall_tau_c"]["value"] for r in per_repeat]
    assert rep.spread["kendall_tau_c"].values == taus
    assert rep.spread["kendall_tau_c"].sd == pytest.approx(statistics.stdev(taus))
    # the majority vote, scored like any run
    from debench.data.loading import load_task_data

    docs = load_task_data(task, "local", str(DATA_DIR)).docs[:n]
    runs = [
        {
            d["doc_id"]: SampleRecord.model_validate(d)
            for d in map(json.loads, next(tmp_path.rglob(r["samples_file"])).read_text().splitlines())
        }
        for r in per_repeat
    ]
    modal = {}
    for d in docs:
        votes = [run[d.doc_id].prediction for run in runs]
        counts = Counter(votes)
        best = max(counts.values())
        modal[d.doc_id] = SampleRecord(
            doc_id=d.doc_id, status="ok", prediction=next(v for v in votes if counts[v] == best), target=d.target
        )
    expected = score(task, docs, modal, n_bootstrap=200)
    assert rep.majority_vote["kendall_tau_c"].value == pytest.approx(expected.metrics["kendall_tau_c"].value)
    assert rep.majority_vote["kendall_tau_c"].ci95 == pytest.approx(expected.metrics["kendall_tau_c"].ci95)


def test_repeats_at_temperature_zero_need_force(tmp_path: Path) -> None:
    task, path = load_task("ibm_speech_likert")
    opts = EvalOptions(
        output_dir=tmp_path, limit=2, data_source="local", data_dir=str(DATA_DIR), progress=False, repeats=3
    )
    with StubServer(responder=responder) as srv:
        with pytest.raises(UserError, match="temperature 0"):
            asyncio.run(evaluate_task(task, path, make_model("openai/stub", api_bases=[srv.base_url]), opts))
        assert srv.stats.total_requests == 0
        opts.force = True
        out = asyncio.run(evaluate_task(task, path, make_model("openai/stub", api_bases=[srv.base_url]), opts))
    assert out.repeats is not None and out.repeats.repeats == 3
    with pytest.raises(UserError, match="calls no model"):
        asyncio.run(evaluate_task(task, path, make_model("baseline/random"), opts))


def test_repeats_cli_prints_the_consistency_table(tmp_path: Path) -> None:
    with StubServer(responder=responder) as srv:
        proc = run_cli(
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "openai/stub",
            "--api-base",
            srv.base_url,
            "--model-args",
            "temperature=1",
            "--repeats",
            "3",
            "--limit",
            "5",
            "--data-dir",
            str(DATA_DIR),
            "--output-dir",
            str(tmp_path),
            "--no-progress",
            "--bootstrap",
            "50",
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "c")},
        )
    assert proc.returncode == 0, proc.stderr
    assert "3 repeats (seeds 0..2, temperature 1)" in proc.stdout and "agreement with the modal answer" in proc.stdout
    report = next(tmp_path.rglob("repeats_*.json"))
    from debench.core.json_schema import validate_with_schema_file
    from debench.scoring.repeats import SCHEMA_PATH

    validate_with_schema_file(json.loads(report.read_text()), SCHEMA_PATH)
