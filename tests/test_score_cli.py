"""``debench score``: predictions -> metrics, no model; bad files -> one line, exit 2."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import numpy as np
import pytest
from clihelp import invoke, run_cli
from conftest import real_data_dir
from scipy.stats import kendalltau, pearsonr

import debench
from debench.core.errors import UserError
from debench.data.ibm_speeches import load_ibm_speeches
from debench.scoring.results import validate_results_dict


@pytest.fixture(scope="module")
def ibm_docs():
    return load_ibm_speeches(real_data_dir("ibm_debate_speeches"))


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _score(tmp_path: Path, preds: Path, *extra: str):
    out = tmp_path / "scored.json"
    proc = run_cli(
        "score",
        "--task",
        "ibm_speech_likert",
        "--predictions",
        str(preds),
        "--output",
        str(out),
        "--bootstrap",
        "200",
        *extra,
        env={"DEBENCH_DATA_DIR": str(real_data_dir("ibm_debate_speeches").parent)},
    )
    return proc, out


@pytest.mark.real_data("40 of the 631 IBM speeches (the sample has 8)")
def test_score_mixed_raw_and_parsed_predictions(tmp_path: Path, ibm_docs) -> None:
    rng = random.Random(3)
    rows, judge = [], {}
    for i, d in enumerate(ibm_docs):
        # a noisy judge that tracks the human mean
        score = int(min(5, max(1, round(d.target + rng.uniform(-1.2, 1.2)))))
        if i % 50 == 0:
            rows.append({"doc_id": d.doc_id, "response": "I find this speech hard to judge."})  # unparseable
        elif i % 2:
            rows.append({"doc_id": d.doc_id, "response": f"The speech is decent.\nScore: {score}"})
            judge[d.doc_id] = score
        else:
            rows.append({"doc_id": d.doc_id, "prediction": score})
            judge[d.doc_id] = score
    proc, out = _score(tmp_path, _write(tmp_path / "p.jsonl", rows))
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    validate_results_dict(res)
    n_fail = sum(1 for i in range(len(ibm_docs)) if i % 50 == 0)
    assert res["n_samples"] == 631 and res["n_parse_failures"] == n_fail and res["n_errors"] == 0
    # independent computation of tau-c and the source correlation on the parsed docs
    used = [d for d in ibm_docs if d.doc_id in judge]
    tau = kendalltau([judge[d.doc_id] for d in used], [d.target for d in used], variant="c").statistic
    m = res["metrics"]
    assert m["kendall_tau_c"]["value"] == pytest.approx(tau, abs=1e-9)
    assert m["kendall_tau_c"]["n"] == len(used)
    lo, hi = m["kendall_tau_c"]["ci95"]
    assert lo < tau < hi
    assert m["parse_failure_rate"]["value"] == pytest.approx(n_fail / 631)
    sources = sorted({d.meta["source"] for d in used})
    jm = [np.mean([judge[d.doc_id] for d in used if d.meta["source"] == s]) for s in sources]
    hm = [np.mean([d.target for d in used if d.meta["source"] == s]) for s in sources]
    assert m["source_pearson"]["value"] == pytest.approx(pearsonr(jm, hm).statistic, abs=1e-9)
    assert sum(res["reports"]["prediction_distribution"].values()) == len(used)


@pytest.mark.real_data("40 of the 631 IBM speeches (the sample has 8)")
def test_null_prediction_is_a_parse_failure(tmp_path: Path, ibm_docs) -> None:
    rows = [{"doc_id": d.doc_id, "prediction": None if i < 10 else 3} for i, d in enumerate(ibm_docs)]
    proc, out = _score(tmp_path, _write(tmp_path / "p.jsonl", rows))
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    assert res["n_parse_failures"] == 10
    assert res["metrics"]["kendall_tau_c"]["value"] is None  # a constant judge has no rank correlation


@pytest.mark.parametrize(
    ("rows", "needle"),
    [
        (lambda docs: [{"doc_id": "nope", "prediction": 3}], "unknown doc_id 'nope'"),
        (lambda docs: [{"doc_id": docs[0].doc_id, "prediction": 3}] * 2, "duplicate doc_id"),
        (lambda docs: [{"doc_id": d.doc_id, "prediction": 3} for d in docs[:-1]], "have no prediction"),
        (lambda docs: [{"doc_id": docs[0].doc_id, "prediction": 6}], "invalid prediction"),
        (lambda docs: [{"doc_id": docs[0].doc_id, "prediction": "4"}], "invalid prediction"),
        (lambda docs: [{"doc_id": docs[0].doc_id}], "needs a 'prediction' or a 'response'"),
        (lambda docs: [{"prediction": 3}], "missing or non-string doc_id"),
        (
            lambda docs: [{"doc_id": docs[0].doc_id, "prediction": 3, "response": "Score: 5"}],
            "holds both 'prediction' and 'response'",
        ),
    ],
    ids=["unknown", "duplicate", "missing", "out-of-range", "wrong-type", "no-value", "no-doc-id", "both-values"],
)
def test_bad_predictions_one_line_exit_2(tmp_path: Path, ibm_docs, rows, needle: str) -> None:
    """In process (CLI and API): the cheapest way a user writes each bad file."""
    path = _write(tmp_path / "bad.jsonl", rows(ibm_docs))
    out = tmp_path / "scored.json"
    data_dir = str(real_data_dir("ibm_debate_speeches").parent)
    line = invoke(
        "score", "--task", "ibm_speech_likert", "--predictions", str(path), "--output", str(out), "--data-dir", data_dir
    ).one_line_error()
    assert needle in line and str(path) in line
    with pytest.raises(UserError, match=re.escape(needle)):
        debench.score("ibm_speech_likert", path, output=out, data_dir=data_dir)
    assert not out.exists()


def test_malformed_json_line_names_line(tmp_path: Path, ibm_docs) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps({"doc_id": ibm_docs[0].doc_id, "prediction": 3}) + "\n{not json\n")
    proc, _ = _score(tmp_path, path)
    assert proc.returncode == 2
    assert "line 2: not valid JSON" in proc.stderr


@pytest.mark.real_data("40 of the 631 IBM speeches (the sample has 8)")
def test_limit_scores_a_prefix(tmp_path: Path, ibm_docs) -> None:
    rows = [{"doc_id": d.doc_id, "prediction": d.label} for d in ibm_docs[:40]]
    proc, out = _score(tmp_path, _write(tmp_path / "p.jsonl", rows), "--limit", "40")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(out.read_text())["n_samples"] == 40
