"""A ``--limit N`` run never replaces what a run over more documents wrote: every file of a run
over the first N documents is named apart (``_limit<N>``), and the same command resumes its own."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from clihelp import invoke
from conftest import DATA_DIR, real_data_dir

import debench
from debench.data.samples import read_records


def _digests(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_a_limit_run_leaves_the_full_run_intact_and_resumes_itself(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    (full,) = debench.evaluate("bp_top_team", "baseline/last", data_dir=DATA_DIR, output_dir=tmp_path, n_bootstrap=0)
    assert full.results.n_samples == 22
    before = _digests(full.results_path.parent)
    args = ["eval", "--task", "bp_top_team", "--model", "baseline/last", "--limit", "10", "--data-dir", str(DATA_DIR),
            "--output-dir", str(tmp_path), "--bootstrap", "0", "--no-progress"]  # fmt: skip
    first = invoke(*args)
    assert first.returncode == 0, first.stderr
    after = _digests(full.results_path.parent)
    assert {k: after[k] for k in before} == before  # the full run's files, byte for byte
    limited = next(p for p in full.results_path.parent.glob("results_*_limit10.json"))
    assert limited.name == full.results_path.name.replace(".json", "_limit10.json")
    res = json.loads(limited.read_text())
    assert res["n_samples"] == 10 and res["config"]["limit"] == 10
    assert res["samples_file"] == full.samples_path.name.replace(
        ".jsonl", "_limit10.jsonl"
    )  # its own log: only its documents
    assert len(read_records(limited.parent / res["samples_file"])) == 10
    assert len(read_records(full.samples_path)) == 22
    again = invoke(*args)  # the same command: the same files, resumed (nothing new appended)
    assert again.returncode == 0, again.stderr
    assert len(read_records(limited.parent / res["samples_file"])) == 10
    assert sorted(p.name for p in limited.parent.glob("results_*.json")) == sorted(
        [full.results_path.name, limited.name]
    )
    assert json.loads(full.results_path.read_text())["n_samples"] == 22


def test_a_limited_probe_keeps_the_full_report(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    common = [
        "probe",
        "--task",
        "bp_top_team",
        "--model",
        "baseline/last",
        "--probe",
        "swap",
        "--data-dir",
        str(DATA_DIR),
        "--output-dir",
        str(tmp_path),
        "--no-progress",
    ]
    assert invoke(*common).returncode == 0
    assert invoke(*common, "--limit", "5").returncode == 0
    reports = {p.name: json.loads(p.read_text()) for p in (tmp_path / "baseline__last").glob("probes_*.json")}
    assert sorted(r["probes"]["relabel_teams"]["n_docs"] for r in reports.values()) == [5, 22]
