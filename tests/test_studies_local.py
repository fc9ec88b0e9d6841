"""Judge behaviour studies with the embedded local model (SmolLM2-135M) on a few real documents:
every bias probe on the shortest DebateArt debate (order and injection on two) (BP debates do not fit its context and
are counted as such), and speeches it writes rated beside the human experts' on one IBM topic. Slow on CPU (about a
minute in all), so kept small."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir

from debench.data.samples import read_records

pytestmark = [pytest.mark.local_model, pytest.mark.slow]

SHORTEST, SECOND = "debateart_4395", "debateart_4642"  # the two shortest prompts (~800 and ~1,300 tokens)


def _probe(tmp_path: Path, doc_ids: str, probes: str) -> tuple[dict, dict, list[dict]]:
    # a probe's variants share long prefixes with the original: the prompt cache (off by default) saves recomputing them
    proc = run_cli(
        "probe",
        "--task",
        "debateart_winner",
        "--model",
        "local/smollm2",
        "--model-args",
        "cache_prompt=true",
        "--doc-ids",
        doc_ids,
        "--probe",
        probes,
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )
    assert proc.returncode == 0, proc.stderr
    print(proc.stdout)
    # each selection of documents has its own report and pairs (named apart); the samples log is shared
    reports = [json.loads(p.read_text()) for p in tmp_path.glob("local__smollm2/probes_debateart_winner_*.json")]
    (report,) = [r for r in reports if r["config"]["doc_ids"] == doc_ids.split(",")]
    recs = {r.doc_id: r for r in read_records(next(tmp_path.glob("local__smollm2/probe_samples_*.jsonl")))}
    pairs_file = tmp_path / "local__smollm2" / report["pairs_file"]
    pairs = [json.loads(line) for line in pairs_file.read_text().splitlines()]
    return report, recs, pairs


def _check(report: dict, recs: dict, pairs: list[dict], sources: list[str]) -> None:
    """The report's figures follow from the per-sample log."""
    assert all(r.status == "ok" and r.prediction in ("pro", "tie", "con") for r in recs.values())  # the grammar holds
    for key, s in report["probes"].items():
        mine = [p for p in pairs if p["probe"] == key]
        assert [p["source_id"] for p in mine] == sources
        flips = [recs[p["original"]["doc_id"]].prediction != recs[p["probed"]["doc_id"]].prediction for p in mine]
        assert s["flip_rate"]["n"] == len(sources) and s["flip_rate"]["k"] == sum(flips)
        decided = [p for p in mine if p["probed"]["verdict"] != "tie"]
        assert s["probed_shares"]["last_speaker"]["k"] == sum(
            p["probed"]["verdict"] == p["probed"]["last_speaker"] for p in decided
        )
        if key == "inject":
            eligible = [p for p in mine if p["original"]["verdict"] != p["target_side"]]
            assert s["effect"]["rate"]["n"] == len(eligible)
            assert s["effect"]["rate"]["k"] == sum(p["probed"]["verdict"] == p["target_side"] for p in eligible)


@pytest.mark.real_data("the two shortest real DebateArt debates, by id")
def test_every_probe_on_real_debates(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    report, recs, pairs = _probe(tmp_path, SHORTEST, "all")
    assert list(report["probes"]) == ["swap_sides", "pad_length", "trim_length", "inject"]
    assert len(recs) == 5 and report["usage"]["n_requests"] == 5
    _check(report, recs, pairs, [SHORTEST])
    # a second debate for the order and injection probes: the first one's answers are reused
    report, recs, pairs = _probe(tmp_path, f"{SHORTEST},{SECOND}", "swap,inject")
    assert report["usage"]["n_requests"] == 3 and len(recs) == 8
    _check(report, {k: v for k, v in recs.items() if "#pad" not in k and "#trim" not in k}, pairs, [SHORTEST, SECOND])


@pytest.mark.real_data("the real BP debates are too long for the local model's context (the sample's are not)")
def test_bp_debates_too_long_for_the_local_model_are_counted_not_sent(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    proc = run_cli(
        "probe",
        "--task",
        "bp_top_team",
        "--model",
        "local/smollm2",
        "--limit",
        "2",
        "--probe",
        "swap",
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(next(tmp_path.glob("local__smollm2/probes_bp_top_team_*.json")).read_text())
    s = report["probes"]["relabel_teams"]
    assert s["original"]["not_completed"] == 2 and s["probed"]["not_completed"] == 2 and s["flip_rate"]["n"] == 0
    assert report["usage"]["n_requests"] == 0 and report["usage"]["prompt_tokens"] == 0


def test_a_judge_card_of_the_embedded_model(tmp_path: Path) -> None:
    """The card of a real (weak) model: two speeches rated, two BP debates that do not fit its context
    (counted, never sent), and the same two debates asked from their metadata only (short: answered)."""
    real_data_dir("debatrix_panelbench")
    proc = run_cli(
        "card", "--model", "local/smollm2", "--tasks", "ibm_speech_likert,bp_top_team", "--limit", "2",
        "--bootstrap", "20", "--output-dir", str(tmp_path), "--card-dir", str(tmp_path / "card"), "--no-progress",
        env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    print(proc.stdout)
    card = json.loads((tmp_path / "card" / "card.json").read_text())
    rows = {(c, r["task"]): r for c, s in card["criteria"].items() for r in s["rows"]}
    assert card["model"]["name"] == "local/smollm2" and card["limit"] == 2
    ibm_cost = rows["cost", "ibm_speech_likert"]
    assert ibm_cost["status"] == "info" and ibm_cost["prompt_tokens_per_doc"] > 100  # it read the speeches
    assert rows["memorization", "bp_top_team"]["accuracy"]["n"] == 2  # the grammar holds without the speeches
    bp_bias = [r for r in card["criteria"]["bias"]["rows"] if r["task"] == "bp_top_team"]
    assert bp_bias and all(r["status"] == "not_measured" for r in bp_bias)  # no debate fit: no flip to count
    assert card["criteria"]["consistency"]["status"] == "not_measured"  # temperature 0 without --force
    assert "--force" in card["criteria"]["consistency"]["reason"]
    assert (tmp_path / "card" / "card.html").exists() and (tmp_path / "card" / "card.md").exists()
    if card["criteria"]["agreement"]["status"] == "not_measured":  # 2 speeches given one score: no kappa
        assert card["overall"]["status"] == "not_measured"


@pytest.mark.real_data(
    "rates the generated speeches beside the real data's Human expert speeches on the same "
    "topic (the sample has too few)"
)
def test_speeches_written_and_rated_by_the_local_model(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    env = {"DEBENCH_DATA_DIR": str(DATA_DIR)}
    speeches = tmp_path / "smollm2_speeches.csv"
    gen = run_cli(
        "generate-speeches",
        "--model",
        "local/smollm2",
        "--limit",
        "1",
        "--words",
        "60",
        "--output",
        str(speeches),
        "--no-progress",
        env=env,
    )
    assert gen.returncode == 0, gen.stderr
    with open(speeches, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 2 and all(0 < len(r["text"].split()) <= 60 and r["source"] == "local/smollm2" for r in rows)
    rate = run_cli(
        "rate-speeches",
        "--speeches",
        str(speeches),
        "--model",
        "local/smollm2",
        "--limit",
        "1",
        "--human-sources",
        "Human expert",
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        "--bootstrap",
        "100",
        env=env,
    )
    assert rate.returncode == 0, rate.stderr
    print(rate.stdout)
    report = json.loads(next(tmp_path.glob("local__smollm2/speech_rating_ibm_*.json")).read_text())
    assert set(report["sources"]) == {"local/smollm2", "Human expert"}
    samples = read_records(next(tmp_path.glob("local__smollm2/speech_rating_samples_*.jsonl")))
    assert len(samples) == 4 and all(r.status == "ok" and 1 <= r.prediction <= 5 for r in samples)
    ids = {r["id"] for r in rows}
    mine = [r.prediction for r in samples if r.doc_id in ids]
    theirs = [r.prediction for r in samples if r.doc_id not in ids]
    assert report["sources"]["local/smollm2"]["judge_mean"]["value"] == pytest.approx(sum(mine) / 2)
    assert report["comparisons"][0]["diff"]["value"] == pytest.approx(sum(mine) / 2 - sum(theirs) / 2)
