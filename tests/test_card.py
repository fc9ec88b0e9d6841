"""``debench card``: a judge card on the real data, its numbers those of ``eval`` and ``probe`` (one
pipeline), and the memorization probe against stand-in judges on 127.0.0.1 — one that knows every
DebateArt and BP result from the motion alone (a judge that memorized the sites), one that guesses
when it is not shown the speeches."""

from __future__ import annotations

import asyncio
import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir, split_sentences

from debench.card.build import build_card
from debench.card.evidence import TaskRuns
from debench.card.model import JudgeCard, load_card, validate_card
from debench.data.base import Doc
from debench.data.bp_competition import load_bp
from debench.data.debateart import load_debateart
from debench.models.factory import make_model, parse_model_args
from debench.probes.memorization import run_memorization
from debench.run.pipeline import EvalOptions, evaluate_task
from debench.run.task_lookup import load_task
from debench.testing.stub_server import StubServer

DATA = ["--data-source", "local", "--data-dir", str(DATA_DIR), "--no-progress"]


def run_card(out: Path, *args: str) -> dict[str, Any]:
    proc = run_cli("card", *args, "--output-dir", str(out), "--card-dir", str(out / "card"), *DATA)
    assert proc.returncode == 0, proc.stderr[-3000:]
    data = json.loads((out / "card" / "card.json").read_text())
    validate_card(data)
    assert (out / "card" / "card.md").read_text().startswith("# Judge card: ")
    assert "<!doctype html>" in (out / "card" / "card.html").read_text()
    return data


def run_json(out: Path, command: str, pattern: str, *args: str) -> dict[str, Any]:
    """Run ``command`` into its own folder ``out``; the one file it wrote that matches ``pattern``."""
    proc = run_cli(command, *args, "--output-dir", str(out), *DATA)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (path,) = out.rglob(pattern)
    return json.loads(path.read_text())


def rows(card: dict[str, Any], criterion: str, task: str) -> list[dict[str, Any]]:
    return [r for r in card["criteria"][criterion]["rows"] if r["task"] == task]


def number(metric: dict[str, Any]) -> dict[str, Any]:
    """A results file's metric as the card holds it."""
    return {"value": metric["value"], "ci95": metric.get("ci95"), "n": metric["n"], "note": metric.get("note")}


# ---------------------------------------------------------------- one pipeline: the card's numbers, eval's and probe's


def check_agreement(card: dict[str, Any], task: str, tmp: Path, model: str, args: list[str]) -> None:
    (row,) = rows(card, "agreement", task)
    mine = run_json(tmp / "eval", "eval", f"results_{task}_*.json", "--task", task, "--model", model, *args)
    primary = next(k for k in mine["metrics"] if k not in ("parse_failure_rate", "completion_rate"))
    assert row["primary"]["name"] == primary and row["primary"]["number"] == number(mine["metrics"][primary])
    if "kappa_loo" in mine["metrics"]:
        assert row["chance_corrected"]["number"] == number(mine["metrics"]["kappa_loo"])
        assert row["human_level"]["number"] == number(mine["metrics"]["kappa_human"])
    for name, named in row["baselines"].items():
        theirs = run_json(
            tmp / name.replace("/", "_"), "eval", f"results_{task}_*.json", "--task", task, "--model", name, *args
        )
        assert named[0]["number"] == number(theirs["metrics"][primary]), name


def check_bias(card: dict[str, Any], task: str, tmp: Path, model: str, limit: str) -> None:
    report = run_json(tmp / "probe", "probe", f"probes_{task}_*.json", "--task", task, "--model", model,
                      "--probe", "swap,length", "--limit", limit)  # fmt: skip
    probed = {r["probe"]: r for r in rows(card, "bias", task)}
    assert set(probed) == set(report["probes"])
    for key, summary in report["probes"].items():
        flip = summary["flip_rate"]
        assert probed[key]["value"] == {"value": flip["value"], "ci95": flip["ci95"], "n": flip["n"], "note": None}


@pytest.mark.parametrize(
    ("model", "tasks", "limit"),
    [
        pytest.param("baseline/length", "ibm_speech_likert", "100", marks=pytest.mark.slow),  # the alt-test: ~1 s each
        pytest.param("baseline/majority", "ibm_speech_likert,bp_top_team", "100", marks=pytest.mark.slow),
        ("baseline/random", "bp_top_team", "22"),
        pytest.param("baseline/random", "debateart_winner", "30", marks=pytest.mark.slow),
    ],
)
def test_a_baselines_card_holds_the_numbers_of_eval_and_probe(
    tmp_path: Path, model: str, tasks: str, limit: str
) -> None:
    args = ["--limit", limit, "--bootstrap", "50"]
    card = run_card(tmp_path / "card", "--model", model, "--tasks", tasks, *args)
    assert card["model"]["name"] == model and card["tasks"] == tasks.split(",") and card["limit"] == int(limit)
    for task in tasks.split(","):
        check_agreement(card, task, tmp_path, model, args)
        if task != "ibm_speech_likert":
            check_bias(card, task, tmp_path, model, limit)
    # a baseline calls no model: its consistency cannot be measured, and the card says why
    assert card["criteria"]["consistency"]["status"] == "not_measured"
    assert "calls no model" in card["criteria"]["consistency"]["reason"]
    if "ibm_speech_likert" in tasks:
        (alt,) = rows(card, "replaceability", "ibm_speech_likert")
        mine = run_json(tmp_path / "eval", "eval", "results_ibm_speech_likert_*.json", "--task", "ibm_speech_likert",
                        "--model", model, *args)  # fmt: skip
        assert alt["at_task_epsilon"]["winning_rate"] == mine["metrics"]["alt_test_winning_rate"]["value"]
        assert alt["at_task_epsilon"]["advantage_probability"] == number(mine["metrics"]["advantage_probability"])
        assert alt["at_task_epsilon"]["passed"] == mine["reports"]["alt_test"]["passed"]


@pytest.mark.slow
@pytest.mark.real_data("the epsilon the card chooses rests on kappa_human over all 631 speeches")
def test_the_card_halves_epsilon_for_the_ibm_crowd_and_warns_that_a_constant_judge_passes(tmp_path: Path) -> None:
    """On the 631 speeches the annotators' kappa_human is 0.27: the card tests at epsilon 0.05 (the
    task file's 0.1, halved), and its numbers there are those of eval with a task file at 0.05."""
    card = run_card(tmp_path / "card", "--model", "baseline/majority", "--tasks", "ibm_speech_likert")
    (alt,) = rows(card, "replaceability", "ibm_speech_likert")
    assert alt["epsilon"]["value"] == 0.05 and alt["epsilon"]["task_value"] == 0.1
    assert alt["epsilon"]["agreement"]["number"]["value"] == pytest.approx(0.2708, abs=1e-4)
    assert alt["at_task_epsilon"]["winning_rate"] == pytest.approx(0.8281, abs=1e-4)  # docs/tasks.md's figure
    task_file = tmp_path / "ibm_eps005.yaml"
    text = (Path(__file__).resolve().parent.parent / "tasks" / "ibm_speech_likert.yaml").read_text()
    task_file.write_text(text.replace("{epsilon: 0.1}", "{epsilon: 0.05}"), encoding="utf-8")
    mine = run_json(tmp_path / "eps", "eval", "results_ibm_speech_likert_*.json", "--task", str(task_file),
                    "--model", "baseline/majority")  # fmt: skip
    assert alt["at_card_epsilon"]["winning_rate"] == mine["metrics"]["alt_test_winning_rate"]["value"]
    assert alt["at_card_epsilon"]["passed"] is True and alt["constant_at_card_epsilon"]["passed"] is True
    assert alt["status"] == "warn" and "so does baseline/majority" in alt["reason"]


# ---------------------------------------------------------------- memorization: stand-in judges on 127.0.0.1


def _debates() -> list[tuple[str, list[str], str]]:
    """(motion, what tells debates on the same motion apart, gold winner) of every real DebateArt and
    BP debate: a debater's name or the round in a metadata-only prompt, the first speech in a full one."""
    real_data_dir("debatrix_panelbench")
    art = load_debateart(DATA_DIR / "debatrix_panelbench" / "DebateArt")
    bp = load_bp(DATA_DIR / "debatrix_panelbench" / "BP-Competition")

    def opening(d: Doc) -> str:  # the first sentence of the first speech: kept by every probe
        return split_sentences(d.speeches[0].text)[0][:80]

    return [(d.fields["motion"], [d.fields["pro_name"], opening(d)], d.target) for d in art] + [
        (d.fields["motion"], [d.meta["round"], opening(d)], d.target[0]) for d in bp
    ]


def memorizing_judge() -> Any:
    """Names the true winner whenever the prompt names a debate's motion, speeches or not."""
    debates = _debates()

    def respond(request: dict[str, Any]) -> str:
        prompt = "\n".join(m["content"] for m in request["messages"])
        known = [(clues, gold) for motion, clues, gold in debates if motion in prompt]
        gold = next((g for clues, g in known if any(c in prompt for c in clues)), "tie")
        return f"I remember this one.\nWinner: {gold}"

    return respond


def guessing_judge() -> Any:
    """Reads the debate when it is shown (and names its winner); guesses when it is not."""
    truth = memorizing_judge()

    def respond(request: dict[str, Any]) -> str:
        prompt = "\n".join(m["content"] for m in request["messages"])
        if "[Speech " in prompt:
            return truth(request)
        teams = ["OG", "OO", "CG", "CO"] if "British Parliamentary" in prompt else ["pro", "con", "tie"]
        return f"Winner: {random.Random(prompt).choice(teams)}"

    return respond


def built_card(tmp_path: Path, responder: Any, task_name: str, limit: int) -> JudgeCard:
    """The card ``build_card`` makes from an eval run and a memorization run against the stub: the
    leaderboard's way, from files of runs it made (no baselines, repeats or probes: not measured)."""
    task, path = load_task(task_name)
    opts = EvalOptions(output_dir=tmp_path, limit=limit, data_source="local", data_dir=str(DATA_DIR), progress=False)

    async def runs(url: str) -> TaskRuns:
        model = make_model("openai/stub", api_bases=[url], model_args=parse_model_args("max_retries=0"))
        try:
            judged = await evaluate_task(task, path, model, opts)
            memorized = await run_memorization(task, path, model, opts)
        finally:
            await model.aclose()
        return TaskRuns(task=task, results=judged.results_path, memorization=memorized.report_path)

    with StubServer(responder=responder) as srv:
        task_runs = asyncio.run(runs(srv.base_url))
    return build_card([task_runs], opts, where=tmp_path)


@pytest.mark.parametrize(("task", "limit"), [("debateart_winner", 40), ("bp_top_team", 22)])
def test_a_judge_that_memorized_the_sites_fails_memorization(tmp_path: Path, task: str, limit: int) -> None:
    card = built_card(tmp_path, memorizing_judge(), task, limit)
    section = card.criteria.memorization
    (row,) = section.rows
    assert section.status == "fail" and card.overall.status == "fail" and "memorization" in card.overall.reason
    assert row.accuracy.value == 1.0 and row.accuracy.n == limit
    assert row.majority_accuracy.value is not None and row.majority_accuracy.value < 0.8
    assert row.p_value is not None and row.p_value < 0.01
    assert row.full_transcript_accuracy is not None and row.full_transcript_accuracy.value == 1.0
    # the metadata-only prompts held the motion and where it was published, and no speech
    samples = next(tmp_path.rglob(f"memorization_samples_{task}_*.jsonl"))
    site = "debateart.com" if task == "debateart_winner" else "British Parliamentary round"
    for line in samples.read_text().splitlines():
        rec = json.loads(line)
        text = "\n".join(m["content"] for m in rec["messages"])
        assert "[Speech " not in text and site in text and "#metadata_only:" in rec["doc_id"]
    validate_card(card.model_dump(mode="json"))


@pytest.mark.parametrize(("task", "limit"), [("debateart_winner", 40), ("bp_top_team", 22)])
def test_a_judge_that_guesses_without_the_speeches_passes_memorization(tmp_path: Path, task: str, limit: int) -> None:
    card = built_card(tmp_path, guessing_judge(), task, limit)
    (row,) = card.criteria.memorization.rows
    assert card.criteria.memorization.status == "pass" and row.p_value is not None and row.p_value >= 0.05
    assert row.accuracy.n == limit and row.full_transcript_accuracy is not None
    # what the files did not hold is not measured, and says why
    assert card.criteria.consistency.status == "not_measured" and card.criteria.bias.status == "not_measured"


@pytest.mark.slow
def test_the_card_command_against_a_judge_that_memorized_the_sites(tmp_path: Path) -> None:
    """The whole command against the stand-in: every run, then a card whose memorization fails."""
    args = ["--model", "openai/stub", "--tasks", "debateart_winner,bp_top_team", "--limit", "40"]
    with StubServer(responder=memorizing_judge()) as srv:
        card = run_card(tmp_path, *args, "--api-base", srv.base_url, "--model-args", "max_retries=0")
        asked = len(srv.stats.requests)
        again = run_card(tmp_path, *args, "--api-base", srv.base_url, "--model-args", "max_retries=0")
        assert len(srv.stats.requests) == asked  # the same command finds every run again: no request
    assert again["criteria"] == card["criteria"]
    assert card["criteria"]["memorization"]["status"] == "fail"
    for task in ("debateart_winner", "bp_top_team"):
        (row,) = rows(card, "memorization", task)
        assert row["accuracy"]["value"] == 1.0 and row["majority_accuracy"]["value"] < 0.8 and row["p_value"] < 0.01
    # it keeps its verdict whatever the order or the length of the speeches, but it names the label it
    # remembers: with the BP teams relabelled, that label is another team (a label-following verdict)
    bias = {(r["task"], r["probe"]): r["status"] for r in card["criteria"]["bias"]["rows"]}
    assert bias.pop(("bp_top_team", "relabel_teams")) == "fail"
    assert set(bias.values()) == {"pass"}, bias
    # at temperature 0 without --force, consistency is not measured, and the card says how to measure it
    assert card["criteria"]["consistency"]["status"] == "not_measured"
    assert "--force" in card["criteria"]["consistency"]["reason"]


def test_compare_sets_two_cards_side_by_side(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    for model in ("baseline/last", "baseline/majority"):
        run_card(tmp_path / model.replace("/", "_"), "--model", model, "--tasks", "bp_top_team", "--bootstrap", "20")
    last = load_card(tmp_path / "baseline_last" / "card")
    relabel = next(r for r in last.criteria.bias.rows if r.probe == "relabel_teams")
    assert last.model.name == "baseline/last" and relabel.status == "pass"  # position, not label: no flip
    proc = run_cli("card", "--compare", str(tmp_path / "baseline_last" / "card"),
                   str(tmp_path / "baseline_majority" / "card" / "card.json"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("# Judge cards: baseline/last | baseline/majority")
    assert re.search(r"\| memorization \| \(all\) \| PASS \| PASS \|", proc.stdout)
    assert re.search(r"\| bias \| \(all\) \| PASS \| FAIL \|", proc.stdout)  # majority follows the labels


def test_a_card_refuses_in_one_line(tmp_path: Path) -> None:
    proc = run_cli("card", "--tasks", "debateart_winner")
    assert proc.returncode == 2 and "give --model (or --compare A B)" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    proc = run_cli("card", "--model", "baseline/constant:CO")
    assert proc.returncode == 2 and "field '--tasks'" in proc.stderr and "no default task" in proc.stderr
    (tmp_path / "bad.json").write_text("{}", encoding="utf-8")
    proc = run_cli("card", "--compare", str(tmp_path / "bad.json"), str(tmp_path / "missing.json"))
    assert proc.returncode == 2 and "not a debench judge card" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
