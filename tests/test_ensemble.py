"""Ensembles of judges (Debatable Intelligence, appendix E): members answer through the stub server
with realistic raw answers, their parsed scores are combined by mean / median / majority, and
everything is checked against an independent aggregation; baselines give a vote known by
construction; each member is cached on its own."""

from __future__ import annotations

import asyncio
import json
import math
import random
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir
from scipy import stats

from debench.core.options import JudgeSpec
from debench.data.samples import read_records
from debench.models.factory import make_judge, make_model
from debench.run.pipeline import EvalOptions, evaluate_task
from debench.run.task_lookup import load_task
from debench.testing.stub_server import LIKERT_TEMPLATES, LIKERT_UNPARSEABLE, StubServer, prompt_key

MEMBERS = ["a", "b", "c"]


class Panel:
    """Three judges behind one stub server, told apart by the request's model name. Each answer is
    a realistic raw text; ``truth`` records the score it carries (None: no score)."""

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.truth: dict[tuple[str, str], int | None] = {}

    def __call__(self, req: dict[str, Any]) -> str:
        model = str(req["model"]).split("/")[-1]
        key = prompt_key(req["messages"])
        rng = random.Random(f"{self.seed}:{model}:{key}")
        doc_rng = random.Random(f"{self.seed}:{key}")
        if doc_rng.random() < 0.08 or rng.random() < 0.15:  # some speeches baffle every member
            self.truth[(model, key)] = None
            return rng.choice(LIKERT_UNPARSEABLE)
        bias = {"a": 0, "b": 1, "c": -1}[model]
        score = min(5, max(1, doc_rng.randint(2, 4) + bias + rng.choice([-1, 0, 0, 1])))
        self.truth[(model, key)] = score
        return rng.choice(LIKERT_TEMPLATES).format(n=score)


def run(task: str, spec: str, rule: str | None, out: Path, base: str, limit: int = 60):
    real_data_dir("ibm_debate_speeches")
    t, path = load_task(task)
    model = make_judge(JudgeSpec(model=spec, ensemble=rule, api_base=base, model_args="max_retries=0"))
    opts = EvalOptions(
        output_dir=out, limit=limit, data_source="local", data_dir=str(DATA_DIR), progress=False, n_bootstrap=50
    )
    return asyncio.run(evaluate_task(t, path, model, opts))


def half_even(x: float) -> int:
    lo = math.floor(x)
    if x - lo == 0.5:
        return lo if lo % 2 == 0 else lo + 1
    return math.floor(x + 0.5)


def expected(rule: str, scores: list[int]) -> int:
    if rule == "majority":
        counts = Counter(scores)
        top = max(counts.values())
        return next(s for s in scores if counts[s] == top)  # first member among the tied
    if rule == "mean":
        return half_even(sum(scores) / len(scores))
    s = sorted(scores)
    mid = len(s) // 2
    return half_even(s[mid] if len(s) % 2 else (s[mid - 1] + s[mid]) / 2)


@pytest.mark.parametrize("rule", ["mean", "median", "majority"])
def test_ensemble_combines_parsed_member_answers(tmp_path: Path, rule: str) -> None:
    panel = Panel(seed=7)
    with StubServer(responder=panel) as srv:
        out = run("ibm_speech_likert", ",".join(f"openai/{m}" for m in MEMBERS), rule, tmp_path, srv.base_url)
    res = out.results
    assert res.model.name == f"ensemble-{rule}(openai/a,openai/b,openai/c)" and res.model.kind == "ensemble"
    assert [m["name"] for m in res.model.model_extra["members"]] == ["openai/a", "openai/b", "openai/c"]
    recs = read_records(out.samples_path)
    n_fail = 0
    for r in recs:
        key = prompt_key(r.messages)
        members = [s for s in r.steps if s["step"] == "member"]
        assert [s["member"] for s in members] == ["openai/a", "openai/b", "openai/c"]
        scores = [panel.truth[(m, key)] for m in MEMBERS]
        for s, sc in zip(members, scores, strict=True):  # each member's raw answer and its parse are kept
            assert s["response"] and (s["status"] == "ok") == (sc is not None) and s["prediction"] == sc
        parsed = [s for s in scores if s is not None]
        if not parsed:
            assert r.status == "parse_failure" and r.prediction is None
            n_fail += 1
            continue
        assert r.status == "ok" and r.prediction == expected(rule, parsed), (scores, r.prediction)
        agg = r.steps[-1]
        assert agg["step"] == "aggregate" and agg["n_members"] == len(parsed)
    assert 0 < n_fail < len(recs) and res.n_parse_failures == n_fail
    ok = [r for r in recs if r.status == "ok"]
    tau = stats.kendalltau([r.prediction for r in ok], [r.target for r in ok], variant="c").statistic
    assert res.metrics["kendall_tau_c"].value == pytest.approx(tau) and res.metrics["kendall_tau_c"].n == len(ok)
    assert res.metrics["parse_failure_rate"].value == pytest.approx(n_fail / len(recs))
    assert res.usage.prompt_tokens == sum(s.get("prompt_tokens", 0) for r in recs for s in r.steps)


@pytest.mark.real_data("counts over the 100 DebateArt debates and 40 IBM speeches (the samples have 4 and 8)")
def test_two_member_ties_follow_the_documented_rules(tmp_path: Path) -> None:
    panel = Panel(seed=11)
    with StubServer(responder=panel) as srv:
        outs = {
            rule: run("ibm_speech_likert", "openai/a,openai/b", rule, tmp_path / rule, srv.base_url, limit=80)
            for rule in ("majority", "mean")
        }
    ties = halves = 0
    for rule, out in outs.items():
        for r in read_records(out.samples_path):
            a, b = (panel.truth[(m, prompt_key(r.messages))] for m in ("a", "b"))
            if a is None or b is None:
                continue
            if rule == "majority" and a != b:
                ties += 1
                assert r.prediction == a  # the member listed first wins a tie
            if rule == "mean" and (a + b) % 2:
                halves += 1
                assert r.prediction == half_even((a + b) / 2) and r.steps[-1]["value"] == (a + b) / 2
    assert ties > 5 and halves > 5


@pytest.mark.real_data("counts over the 100 DebateArt debates and 40 IBM speeches (the samples have 4 and 8)")
def test_each_member_is_cached_on_its_own(tmp_path: Path) -> None:
    with StubServer(responder=Panel(seed=3)) as srv:
        run("ibm_speech_likert", "openai/a,openai/b", "mean", tmp_path / "ab", srv.base_url, limit=20)
        assert srv.stats.total_requests == 40
        srv.reset_stats()
        run("ibm_speech_likert", "openai/a,openai/b,openai/c", "median", tmp_path / "abc", srv.base_url, limit=20)
        assert srv.stats.total_requests == 20  # only c is new
        srv.reset_stats()
        single = run("ibm_speech_likert", "openai/c", None, tmp_path / "c", srv.base_url, limit=20)
        assert srv.stats.total_requests == 0 and single.results.usage.n_cached == 20


@pytest.mark.real_data("counts over the 100 DebateArt debates and 40 IBM speeches (the samples have 4 and 8)")
def test_baseline_majority_is_the_longest_side_on_debateart(tmp_path: Path) -> None:
    """In every DebateArt debate the first and last speakers are on opposite sides, so the vote of
    first, last and longest is always the longest side's."""
    real_data_dir("debatrix_panelbench")
    t, path = load_task("debateart_winner")
    opts = EvalOptions(output_dir=tmp_path, data_source="local", data_dir=str(DATA_DIR), progress=False, n_bootstrap=50)
    ens = make_judge(JudgeSpec(model="baseline/first,baseline/last,baseline/longest", ensemble="majority"))
    out = asyncio.run(evaluate_task(t, path, ens, opts))
    single = asyncio.run(evaluate_task(t, path, make_model("baseline/longest"), opts))
    a = {r.doc_id: r for r in read_records(out.samples_path)}
    b = {r.doc_id: r for r in read_records(single.samples_path)}
    assert len(a) == 100 and all(a[d].prediction == b[d].prediction for d in a)
    for r in a.values():
        votes = [s["prediction"] for s in r.steps if s["step"] == "member"]
        assert votes[0] != votes[1] and r.prediction == votes[2]
    assert out.results.metrics["accuracy"].value == single.results.metrics["accuracy"].value
    assert out.results.usage.n_requests == 0


def test_ensemble_command_line(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    with StubServer(responder=Panel(seed=1)) as srv:
        proc = run_cli(
            "eval",
            "--task",
            "ibm_speech_likert",
            "--model",
            "openai/a,openai/b,openai/c",
            "--ensemble",
            "median",
            "--api-base",
            srv.base_url,
            "--limit",
            "12",
            "--output-dir",
            str(tmp_path),
            "--no-progress",
            "--bootstrap",
            "20",
            env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
        )
    assert proc.returncode == 0, proc.stderr
    assert "ensemble-median(openai/a,openai/b,openai/c)" in proc.stdout
    res = json.loads(next(tmp_path.glob("*/results_ibm_speech_likert_*.json")).read_text())
    assert res["model"]["aggregate"] == "median" and len(res["model"]["members"]) == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--task", "debateart_winner", "--model", "baseline/first,baseline/last", "--ensemble", "mean"],
            "mean needs numeric predictions",
        ),
        (["--task", "debateart_winner", "--model", "baseline/first,baseline/last"], "combine them with --ensemble"),
        (["--task", "debateart_winner", "--model", "baseline/first", "--ensemble", "majority"], "at least two models"),
        (
            [
                "--task",
                "debateart_winner",
                "--model",
                "baseline/first,baseline/last",
                "--ensemble",
                "majority",
                "--method",
                "debatrix-f",
            ],
            "--method direct only",
        ),
    ],
)
def test_ensemble_user_errors(tmp_path: Path, args: list[str], message: str) -> None:
    real_data_dir("debatrix_panelbench")
    proc = run_cli(
        "eval", *args, "--output-dir", str(tmp_path), "--no-progress", env={"DEBENCH_DATA_DIR": str(DATA_DIR)}
    )
    assert proc.returncode == 2 and message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not list(tmp_path.rglob("*.jsonl"))  # nothing started
