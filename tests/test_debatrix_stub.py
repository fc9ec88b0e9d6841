"""Debatrix methods on every real DebateArt and BP debate through the stub server: the call
sequence, the memory at each step, the final verdicts, and resume in the middle of a chain."""

from __future__ import annotations

import asyncio
import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA_DIR, real_data_dir

from debench.data.samples import read_records
from debench.models.factory import make_model, parse_model_args
from debench.run.pipeline import EvalOptions, evaluate_task
from debench.run.task_lookup import load_task
from debench.testing.stub_server import FaultPlan, StubServer, prompt_key

COMMENT = "NOTE<{}>: the speaker makes a clear case but leaves the rebuttal thin."


def debatrix_responder(request: dict[str, Any]) -> str:
    """Plays a judge: a score, a verdict, or a comment tagged with a counter we can trace."""
    last = request["messages"][-1]["content"]
    if 'Answer only "Score: N"' in last:
        return "Score: 7"
    if "Winner: OG" in last:
        return "Winner: CG"
    if "Winner: pro" in last:
        return "Winner: con"
    if "Pro score: N" in last:
        return "Pro score: 6, Con score: 8"
    debatrix_responder.n += 1
    return COMMENT.format(debatrix_responder.n)


debatrix_responder.n = 0


def run(
    srv: StubServer,
    task_name: str,
    method: str,
    out: Path,
    limit: int | None = None,
    args: str = "max_retries=0",
    concurrency: int = 8,
    cache: bool = True,
):
    task, path = load_task(task_name)
    model = make_model("openai/stub", api_bases=[srv.base_url], model_args=parse_model_args(args))
    opts = EvalOptions(
        output_dir=out,
        limit=limit,
        concurrency=concurrency,
        data_source="local",
        data_dir=str(DATA_DIR),
        progress=False,
        n_bootstrap=20,
        method=method,
        use_cache=cache,
    )
    return asyncio.run(evaluate_task(task, path, model, opts))


def expected_steps(n_speeches: int, n_sides: int, n_dims: int) -> int:
    per_column = 2 * n_speeches + 1 + 2 * n_sides + 1
    return n_dims * per_column + (1 if n_dims > 1 else 0) + 1


@pytest.mark.slow  # every step of every debate of two tasks: thousands of requests
@pytest.mark.parametrize("method", ["debatrix-h", "debatrix-f"])
@pytest.mark.parametrize(
    ("task_name", "n_dims", "n_sides", "verdict"),
    [("debateart_winner", 3, 2, "con"), ("bp_top_team", 4, 4, "CG")],
)
def test_every_debate_through_the_chain(
    tmp_path: Path, method: str, task_name: str, n_dims: int, n_sides: int, verdict: str
) -> None:
    real_data_dir("debatrix_panelbench")
    task, _ = load_task(task_name)
    with StubServer(responder=debatrix_responder) as srv:
        out = run(srv, task_name, method, tmp_path)
        n_requests = srv.stats.total_requests
    recs = read_records(out.samples_path)
    assert out.results.n_samples == len(recs) and out.results.n_errors == 0
    assert out.results.task.method == method
    dims = [d.name for d in task.debatrix.dimensions]
    total_steps = 0
    for r in recs:
        assert r.status == "ok" and r.prediction == verdict, (r.doc_id, r.response)
        speeches = [s for s in r.steps if s["step"] == "speech_analysis" and s["column"] == dims[0]]
        n = len(speeches)
        assert len(r.steps) == expected_steps(n, n_sides, n_dims)
        total_steps += len(r.steps)
        # the sequence: per column, analysis/score per speech, debate analysis, side judgments, verdict
        col = [s["step"] for s in r.steps if s.get("column") == dims[0]]
        assert col[: 2 * n] == ["speech_analysis", "speech_score"] * n
        assert col[2 * n] == "debate_analysis" and col[-1] == "column_verdict"
        assert col[2 * n + 1 : -1] == ["debater_judgment", "debater_score"] * n_sides
        assert [s.get("column") for s in r.steps if s["step"] == "column_verdict"] == dims
        assert r.steps[-1]["step"] == "verdict"
        # memory: previous raw speeches (H) or previous analyses (F)
        kind = "speech" if method == "debatrix-h" else "analysis"
        for i, s in enumerate(speeches):
            assert s["memory"] == [f"{kind} {j + 1}" for j in range(i)]
        assert all(s["score"] == 7 for s in r.steps if s["step"] in ("speech_score", "debater_score"))
        assert r.prompt_tokens > 0 and r.completion_tokens > 0
    assert n_requests == total_steps  # nothing called twice, nothing skipped
    assert out.results.usage.n_requests == total_steps


def test_memory_contents_reach_the_prompt(tmp_path: Path) -> None:
    """F feeds the earlier analyses (not the speeches), H the earlier speeches (not the analyses)."""
    real_data_dir("debatrix_panelbench")
    for method in ("debatrix-f", "debatrix-h"):
        debatrix_responder.n = 0
        with StubServer(responder=debatrix_responder) as srv:
            out = run(srv, "debateart_argument", method, tmp_path / method, limit=1, concurrency=1)
            bodies = srv.stats.requests
        assert read_records(out.samples_path)[0].status == "ok"
        prompts = [b["messages"][-1]["content"] for b in bodies]
        third = next(p for p in prompts if "Analyse the newest speech, [Speech 3" in p)
        notes = re.findall(r"NOTE<(\d+)>", third)
        if method == "debatrix-f":
            assert notes == ["1", "2"]  # the analyses of speeches 1 and 2
        else:
            assert notes == []  # H shows raw speeches, not analyses
            assert "[Speech 1" in third and "[Speech 2" in third


def test_crash_mid_chain_resumes_without_redoing_steps(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    # The first 9 calls succeed, the 10th fails for good (no retries): the debate ends as an error.
    plan = FaultPlan(script=["ok"] * 9 + ["500"] * 50)
    with StubServer(responder=debatrix_responder, faults=plan) as srv:
        first = run(srv, "debateart_argument", "debatrix-f", tmp_path, limit=1, concurrency=1)
        assert first.results.n_errors == 1
        srv.set_faults(FaultPlan())
        srv.reset_stats()
        second = run(srv, "debateart_argument", "debatrix-f", tmp_path, limit=1, concurrency=1)
        resumed_requests = srv.stats.total_requests
    rec = read_records(second.samples_path)[0]
    assert rec.status == "ok"
    assert sum(1 for s in rec.steps if s["cached"]) == 9  # the finished steps came from the cache
    assert resumed_requests == len(rec.steps) - 9


def test_debatrix_needs_a_multi_speech_task(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    from debench.core.errors import UserError

    with StubServer() as srv, pytest.raises(UserError, match="no 'debatrix' section"):
        run(srv, "ibm_speech_likert", "debatrix-f", tmp_path, limit=2)


def per_prompt_responder(request: dict[str, Any]) -> str:
    """Answers that depend on the prompt only (not on the order requests arrive in)."""
    last = request["messages"][-1]["content"]
    if 'Answer only "Score: N"' in last:
        return f"Score: {3 + int(prompt_key(request['messages']), 16) % 5}"
    if "Winner: pro" in last:
        return "Winner: con"
    return f"NOTE<{prompt_key(request['messages'])}>: a clear case, a thin rebuttal."


def column_sequences(bodies: list[dict[str, Any]], dims: list[str]) -> dict[str | None, list[str]]:
    """The stub's requests, in arrival order, as (column -> the kinds of its calls)."""
    out: dict[str | None, list[str]] = {}
    for b in bodies:
        text = " ".join(m["content"] for m in b["messages"])
        column = next((d for d in dims if f"Judge one criterion only: {d} —" in text), None)
        last = b["messages"][-1]["content"]
        kind = "score" if 'Answer only "Score: N"' in last else "ask"
        out.setdefault(column, []).append(kind + ":" + prompt_key(b["messages"]))
    return out


@pytest.mark.slow  # every column of every step, twice (one at a time and at once): about 12 s
@pytest.mark.parametrize("method", ["debatrix-h", "debatrix-f"])
def test_columns_run_at_once_with_the_same_calls_and_answers(tmp_path: Path, method: str) -> None:
    """One 3-column debate: at --concurrency 1 the calls go one at a time (as before the columns ran
    concurrently), at 8 the columns overlap; the calls of each column, their order, the answers and
    the verdict are the same, and no more than --concurrency requests are ever in flight."""
    real_data_dir("debatrix_panelbench")
    task, _ = load_task("debateart_winner")
    dims = [d.name for d in task.debatrix.dimensions]
    runs = {}
    for concurrency in (1, 2, 8):
        # at 2 and 8, each answer takes 0.2 s: the calls a step sends at once all arrive within it,
        # even on a loaded machine (the peak counts requests in flight together)
        with StubServer(responder=per_prompt_responder, latency=0.02 if concurrency == 1 else 0.2) as srv:
            out = run(
                srv,
                "debateart_winner",
                method,
                tmp_path / str(concurrency),
                limit=1,
                concurrency=concurrency,
                cache=False,
            )
            stats = srv.stats
        rec = read_records(out.samples_path)[0]
        assert rec.status == "ok", rec.error
        runs[concurrency] = (rec, stats, column_sequences(stats.requests, dims))
    (one, one_stats, one_seq), (two, two_stats, _), (eight, eight_stats, eight_seq) = runs[1], runs[2], runs[8]
    assert one_stats.peak_in_flight == 1 and two_stats.peak_in_flight == 2 and eight_stats.peak_in_flight == len(dims)
    assert eight_seq == one_seq  # per column: the same calls in the same order (and the summary and verdict after)
    assert set(eight_seq) == {*dims, None} and len(eight_seq[None]) == 2
    assert eight_stats.total_requests == one_stats.total_requests == len(one.steps)
    strip = [{k: v for k, v in s.items() if k != "cached"} for s in one.steps]
    assert [{k: v for k, v in s.items() if k != "cached"} for s in eight.steps] == strip  # answers, scores, order
    assert (eight.prediction, eight.response) == (one.prediction, one.response) == ("con", "Winner: con")
    assert [s.get("column") for s in two.steps] == [s.get("column") for s in one.steps]


@pytest.mark.real_data("the real debates are long enough for the shared prefix to dominate (the sample's are short)")
def test_every_prompt_of_a_debate_starts_with_what_the_others_share(tmp_path: Path) -> None:
    """The system message is the same in every call of a debate, and with debatrix-h the prompt of
    each speech starts with the previous speech's prompt minus its request."""
    real_data_dir("debatrix_panelbench")
    with StubServer(responder=per_prompt_responder) as srv:
        run(srv, "debateart_winner", "debatrix-h", tmp_path, limit=1, concurrency=8, cache=False)
        bodies = srv.stats.requests
    assert len({b["messages"][0]["content"] for b in bodies}) == 1
    firsts = [
        b["messages"][1]["content"]
        for b in bodies
        if len(b["messages"]) == 2 and "Analyse the newest speech" in b["messages"][1]["content"]
    ]
    by_column: dict[str, list[str]] = {}
    for text in firsts:
        by_column.setdefault(re.search(r"criterion only: (\w+)", text).group(1), []).append(text)
    for prompts in by_column.values():
        for before, after in itertools.pairwise(prompts):
            shared = before.rsplit("\n\nJudge one criterion only", 1)[0]
            assert after.startswith(shared) and len(shared) > 0.5 * len(before)


SCORING_ANSWERS = [
    ("Score the pro side", "Score: 8"),
    ("Score the con side", "Score: 6"),
    ('Answer only "Score: N"', "Score: 5"),
    ("Pro score: N", "Pro score: 2, Con score: 9"),
    ("Winner: pro", "Winner: con"),
]


def scoring_responder(request: dict[str, Any]) -> str:
    """A judge whose debater scores favour pro by 2 points (8 against 6) in every column, and
    whose summary names con: the two Debatrix verdicts disagree by construction."""
    last = request["messages"][-1]["content"]
    return next((answer for cue, answer in SCORING_ANSWERS if cue in last), "A short note on the debate.")


@pytest.mark.parametrize(
    ("task_name", "method", "prediction", "scores_verdict"),
    [
        # sources: the task's tie band is 3, so 8 against 6 is a tie by scores
        ("debateart_source_scores", "debatrix-f-scores", "tie", "tie"),
        # the sources and language tasks run with a score method: Debatrix's band of 3 (score_tie_band)
        ("debateart_source", "debatrix-f-scores", "tie", "tie"),
        ("debateart_language", "debatrix-h-scores", "tie", "tie"),
        # the general verdict has no tie band (0): 8 against 6 is pro; the summary is the prediction
        ("debateart_winner", "debatrix-h", "con", "pro"),
    ],
)
def test_the_score_verdict_beside_the_summary_verdict(
    tmp_path: Path, task_name: str, method: str, prediction: str, scores_verdict: str
) -> None:
    real_data_dir("debatrix_panelbench")
    with StubServer(responder=scoring_responder) as srv:
        out = run(srv, task_name, method, tmp_path, limit=2)
    recs = read_records(out.samples_path)
    assert [r.prediction for r in recs] == [prediction] * 2 and all(r.status == "ok" for r in recs)
    assert all(r.verdicts == {"summary": "con", "scores": scores_verdict} for r in recs)
    report = out.results.reports["debatrix_verdicts"]
    assert report["summary"]["n"] == report["scores"]["n"] == 2 and report["scores"]["n_unread"] == 0
    assert report["agreement_scores_summary"]["value"] == 0.0 and report["agreement_scores_summary"]["n"] == 2
    # each verdict is scored with the task's metrics: the prediction's figures are one of them
    chosen = "scores" if method.endswith("-scores") else "summary"
    assert report[chosen]["metrics"]["accuracy"]["value"] == out.results.metrics["accuracy"].value
    assert out.results.task.method == method


def test_the_task_file_can_choose_the_score_verdict(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    task, path = load_task("debateart_source_scores")
    assert task.debatrix is not None and task.debatrix.verdict == "summary"
    by_scores = task.model_copy(update={"debatrix": task.debatrix.model_copy(update={"verdict": "scores"})})
    model_args = parse_model_args("max_retries=0")
    with StubServer(responder=scoring_responder) as srv:
        model = make_model("openai/stub", api_bases=[srv.base_url], model_args=model_args)
        opts = EvalOptions(
            output_dir=tmp_path,
            limit=2,
            concurrency=4,
            data_source="local",
            data_dir=str(DATA_DIR),
            progress=False,
            n_bootstrap=20,
            method="debatrix-f",
            use_cache=False,
        )
        out = asyncio.run(evaluate_task(by_scores, path, model, opts))
    assert [r.prediction for r in read_records(out.samples_path)] == ["tie", "tie"]


def test_a_shared_top_score_without_a_tie_answer_is_a_counted_parse_failure(tmp_path: Path) -> None:
    """BP has four teams and no tie: equal debater scores give no score verdict."""
    real_data_dir("debatrix_panelbench")
    with StubServer(responder=debatrix_responder) as srv:
        out = run(srv, "bp_top_team", "debatrix-f-scores", tmp_path, limit=1)
    (rec,) = read_records(out.samples_path)
    assert (
        rec.status == "parse_failure" and rec.prediction is None and rec.verdicts == {"summary": "CG", "scores": None}
    )
    assert rec.parse_error == "score verdict: the top score is shared and the task has no tie"
    assert out.results.n_parse_failures == 1 and out.results.reports["debatrix_verdicts"]["scores"]["n_unread"] == 1
