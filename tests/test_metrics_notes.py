"""A metric shown as "—" says why: ``MetricValue.note``, set by the metric where the condition is
checked, shown in the results table; results files written before notes existed still load."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir
from scoring_cases import REPO_ROOT, baseline_records

from debench.data.loading import load_local
from debench.data.samples import SampleRecord
from debench.leaderboard.board import validate_leaderboard_dict
from debench.metrics.base import Draws
from debench.run.task_lookup import load_task
from debench.scoring.results import Results, validate_results_dict
from debench.scoring.scores import MetricValue, score


@pytest.fixture(scope="module")
def ibm():
    real_data_dir("ibm_debate_speeches")
    task, _ = load_task("ibm_speech_likert")
    return task, load_local(task, DATA_DIR).docs


def _notes(report) -> dict[str, str | None]:
    return {k: m.note for k, m in report.metrics.items()}


def test_too_few_shared_speeches_for_any_pair(ibm):
    task, docs = ibm
    small = docs[:60]
    report = score(task, small, baseline_records(task, small, "random", 0), n_bootstrap=200)
    for name in ("kappa_loo", "kappa_human"):
        assert report.metrics[name].value is None
        assert report.metrics[name].note == "no annotator pair shares 50 or more speeches"
    # the defined ones have a value and a CI, and no note
    tau = report.metrics["kendall_tau_c"]
    assert tau.value is not None and tau.ci95 is not None and tau.note is None


@pytest.mark.real_data("kappa_loo is defined only with annotator pairs sharing 50 speeches (the sample has 8)")
def test_a_constant_judge(ibm):
    task, docs = ibm
    report = score(task, docs, baseline_records(task, docs, "constant:3"), n_bootstrap=200)
    notes = _notes(report)
    assert notes["kendall_tau_c"] == "the judge gave the same score to every speech"
    assert notes["source_pearson"] == "the judge's mean score is the same for every source"
    # a constant judge agrees at chance level: kappa is defined (0), so no note
    assert report.metrics["kappa_loo"].value == pytest.approx(0.0, abs=1e-12) and notes["kappa_loo"] is None


def test_no_parsed_predictions(ibm):
    task, docs = ibm
    records = {d.doc_id: SampleRecord(doc_id=d.doc_id, status="parse_failure") for d in docs[:30]}
    report = score(task, docs[:30], records, n_bootstrap=50)
    for name, m in report.metrics.items():
        if name == "parse_failure_rate":
            assert m.value == 1.0 and m.note is None
        else:
            assert m.value is None and m.note == "no parsed predictions", name


def test_no_sample_answered_for_a_rate(ibm):
    task, docs = ibm
    records = {d.doc_id: SampleRecord(doc_id=d.doc_id, status="error", error="boom") for d in docs[:5]}
    rate = score(task, docs[:5], records, n_bootstrap=0).metrics["parse_failure_rate"]
    assert rate.value is None and rate.n == 0 and rate.note == "no sample was answered"


def test_bootstrap_off_and_too_few_documents(ibm):
    task, docs = ibm
    off = score(task, docs, baseline_records(task, docs, "random", 1), n_bootstrap=0).metrics["kendall_tau_c"]
    assert off.value is not None and off.ci95 is None and "bootstrap is turned off" in off.note
    one = score(task, docs[:1], baseline_records(task, docs[:1], "random", 0), n_bootstrap=100).metrics
    assert (
        one["krippendorff_alpha"].value is not None
        and one["krippendorff_alpha"].note == "a CI needs at least two documents"
    )
    assert one["kendall_tau_c"].note == "fewer than two scored speeches"


def test_a_ci_from_a_minority_of_resamples_is_not_given(ibm):
    """One speech from each of three sources: most resamples miss a source, so source_pearson
    exists on the sample but not on most resamples."""
    task, docs = ibm
    picked = []
    for src in ("Summit", "Human expert", "Arg-Search"):
        picked.append(next(d for d in docs if d.meta["source"] == src))
    records = {
        d.doc_id: SampleRecord(doc_id=d.doc_id, status="ok", prediction=v)
        for d, v in zip(picked, [1, 5, 3], strict=True)
    }
    m = score(task, picked, records, n_bootstrap=400).metrics["source_pearson"]
    assert m.value is not None and m.ci95 is None
    assert m.note is not None and m.note.startswith("a CI needs at least half the bootstrap resamples defined (only ")
    defined = int(m.note.split("(only ")[1].split(" of")[0])
    assert 0 < defined < 200  # P(all three present) = 6/27


def test_draws_keep_the_first_reason():
    d = Draws.of([1.0, 2.0, np.inf, 4.0])
    d.undefined(np.array([True, False, False, False]), "first").undefined(
        np.array([True, True, False, False]), "second"
    )
    d.finish()
    assert [d.note(i) for i in range(4)] == ["first", "second", "the value is not a finite number", None]
    assert [d.value(i) for i in range(4)] == [None, None, None, 4.0]
    both = Draws.concat([d, Draws.none(2, "second")])
    assert [both.note(i) for i in range(6)] == [
        "first",
        "second",
        "the value is not a finite number",
        None,
        "second",
        "second",
    ]


def test_results_table_shows_why(tmp_path: Path):
    real_data_dir("ibm_debate_speeches")
    proc = run_cli(
        "eval", "--task", "ibm_speech_likert", "--model", "baseline/constant:3", "--limit", "40",
        "--output-dir", str(tmp_path), "--bootstrap", "100",
        env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = {line.split()[0]: line for line in proc.stdout.splitlines() if line.startswith("  ") and line.split()}
    assert lines["kappa_loo"].rstrip().endswith("— no annotator pair shares 50 or more speeches")
    assert "the judge gave the same score to every speech" in lines["kendall_tau_c"]
    assert "—" not in lines["krippendorff_alpha"]  # a value, a CI, nothing to explain
    written = json.loads(next(tmp_path.glob("*/results_ibm_speech_likert_*.json")).read_text())
    assert written["metrics"]["kappa_loo"]["note"] == "no annotator pair shares 50 or more speeches"
    validate_results_dict(written)


def test_files_written_before_notes_still_load_and_validate():
    submissions = sorted((REPO_ROOT / "leaderboard" / "submissions").glob("*/results_*.json"))
    assert submissions
    for path in submissions:
        data = json.loads(path.read_text())
        for m in data["metrics"].values():  # as written before metrics carried notes
            m.pop("note", None)
        validate_results_dict(data)
        assert all(m.note is None for m in Results.model_validate(data).metrics.values())
    board = json.loads((REPO_ROOT / "leaderboard" / "leaderboard.json").read_text())
    validate_leaderboard_dict(board)
    assert MetricValue.model_validate({"value": None, "ci95": None, "n": 3}).note is None
