"""``debench validate``: a genuine submission passes; every kind of tampering with the files is
refused with one line naming the file and the field, and exit code 2. (Forged predictions,
identities and provenance: ``test_leaderboard_provenance.py``.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clihelp import run_cli
from conftest import real_data_dir
from lbhelp import accepted, copy_submission, data_env, edit_json, edit_lines, eval_run, refused, samples_of

from debench.run.task_lookup import load_task

TASK = "ibm_speech_likert"


@pytest.fixture(scope="module")
def genuine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real baseline run on the real data: results file + samples log."""
    return eval_run(tmp_path_factory.mktemp("genuine"), TASK, "baseline/random")


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return eval_run(tmp_path_factory.mktemp("limited"), TASK, "baseline/length", "--limit", "120")


_env = data_env
_copy = copy_submission
_edit_json = edit_json
_edit_lines = edit_lines
_rejected = refused


# ------------------------------------------------------------------------------------ genuine runs


@pytest.mark.real_data("runs on all 631 IBM speeches and on a 120-document prefix (the sample has 8)")
def test_genuine_submission_passes(genuine: Path) -> None:
    proc = run_cli("validate", str(genuine), env=_env())
    assert proc.returncode == 0, proc.stderr
    assert f"ok: {genuine}" in proc.stdout and "all 631 documents" in proc.stdout and "8 metrics" in proc.stdout


@pytest.mark.real_data("runs on all 631 IBM speeches and on a 120-document prefix (the sample has 8)")
def test_folder_of_submissions_passes(genuine: Path, limited: Path) -> None:
    proc = run_cli("validate", str(genuine.parent), str(limited), env=_env())
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("ok: ") == 2
    assert "first 120 of 631 documents" in proc.stdout and "baseline re-run" in proc.stdout


@pytest.mark.real_data("runs on all 631 IBM speeches and on a 120-document prefix (the sample has 8)")
def test_validate_submission_api(genuine: Path) -> None:
    from debench.leaderboard.validate import validate_submission

    sub = validate_submission(genuine, data_dir=real_data_dir("ibm_debate_speeches").parent)
    assert sub.n_docs == sub.n_docs_total == 631 and not sub.partial
    assert sub.submission == "baseline__random"
    assert sub.recomputed.metrics == sub.results.metrics
    assert sub.identity == {"name": "baseline/random", "seed": 0}
    assert sub.provenance.basis == "recomputed"
    assert any("re-derived by running baseline/random" in c for c in sub.provenance.checks)


# ------------------------------------------------------------------------------- results tampering


def test_edited_metric_value(limited: Path, tmp_path: Path) -> None:
    res, _ = _copy(limited, tmp_path / "s")
    _edit_json(
        res, lambda d: d["metrics"]["kendall_tau_c"].__setitem__("value", d["metrics"]["kendall_tau_c"]["value"] + 0.05)
    )
    _rejected(res, str(res), "metrics.kendall_tau_c.value", "does not match", "recomputed from the samples")


def test_edited_metric_ci(limited: Path, tmp_path: Path) -> None:
    res, _ = _copy(limited, tmp_path / "s")
    _edit_json(res, lambda d: d["metrics"]["kappa_loo"].__setitem__("ci95", [-0.01, 0.2]))
    _rejected(res, "metrics.kappa_loo.ci95")


def test_edited_metric_n(limited: Path, tmp_path: Path) -> None:
    res, _ = _copy(limited, tmp_path / "s")
    _edit_json(res, lambda d: d["metrics"]["source_pearson"].__setitem__("n", 700))
    _rejected(res, "metrics.source_pearson.n", "700")


def test_removed_metric(limited: Path, tmp_path: Path) -> None:
    res, _ = _copy(limited, tmp_path / "s")
    _edit_json(res, lambda d: d["metrics"].pop("kappa_human"))
    _rejected(res, "metrics.kappa_human", "missing")


@pytest.mark.parametrize("field", ["n_samples", "n_parse_failures", "n_errors", "n_not_completed"])
def test_edited_counts(limited: Path, tmp_path: Path, field: str) -> None:
    res, _ = _copy(limited, tmp_path / "s")
    _edit_json(res, lambda d: d.__setitem__(field, d[field] + 1))
    _rejected(res, f"field '{field}'", "counted in the samples")


def test_edited_report(limited: Path, tmp_path: Path) -> None:
    res, _ = _copy(limited, tmp_path / "s")
    _edit_json(res, lambda d: d["reports"]["prediction_distribution"].__setitem__("5", 1))
    _rejected(res, "reports.prediction_distribution")


def test_changed_task_version(genuine: Path, tmp_path: Path) -> None:
    res, _ = _copy(genuine, tmp_path / "s")
    installed = load_task("ibm_speech_likert")[0].version
    _edit_json(res, lambda d: d["task"].__setitem__("version", installed + 1))
    _rejected(
        res, "task.version", f"version {installed + 1} differs from the installed ibm_speech_likert version {installed}"
    )


def test_changed_task_definition(genuine: Path, tmp_path: Path) -> None:
    res, _ = _copy(genuine, tmp_path / "s")
    _edit_json(res, lambda d: d["task"].__setitem__("identity_sha256", "0" * 64))
    _rejected(res, "task.identity_sha256", "differ from the installed")
    # a results 1.0 file (no identity) is bound by its fingerprint: a task that differs there is refused
    res, _ = _copy(genuine, tmp_path / "t")
    _edit_json(
        res,
        lambda d: (
            d.__setitem__("schema_version", "1.0"),
            d["task"].pop("identity_sha256"),
            d["task"].pop("scored_with"),
            d["task"].__setitem__("config_sha256", "0" * 64),
            d["config"].__setitem__("fingerprint", "0" * 12),
        ),
    )
    _rejected(res, "task.config_sha256", "differs from the installed")


def test_a_changed_scoring_side_is_rescored_not_refused(genuine: Path, tmp_path: Path) -> None:
    from debench.leaderboard.validate import validate_submission

    """A file scored when the task's metrics were other (its ``config_sha256`` and ``scored_with``
    differ from the installed task's, its identity the same) is re-scored from its samples."""
    res, _ = _copy(genuine, tmp_path / "s")

    added: list[str] = []

    def older(d: dict) -> None:  # as if the task's last metric was added after the run
        added.append(d["task"]["scored_with"]["metrics"].pop()["name"])
        d["task"]["config_sha256"] = "0" * 64
        d["metrics"].pop(added[0])

    _edit_json(res, older)
    sub = validate_submission(res, data_dir=real_data_dir("ibm_debate_speeches").parent)
    assert sub.rescored and set(sub.metrics) == set(sub.recomputed.metrics) == {*sub.results.metrics, added[0]}
    assert all(
        sub.metrics[n] == v for n, v in sub.results.metrics.items()
    )  # the file's figures, matched by the recomputation
    assert sub.metrics[added[0]] == sub.recomputed.metrics[added[0]]
    assert "re-scored from the samples" in sub.provenance.checks[-1]


def test_unknown_task(genuine: Path, tmp_path: Path) -> None:
    res, _ = _copy(genuine, tmp_path / "s")
    _edit_json(res, lambda d: d["task"].__setitem__("name", "no_such_task"))
    _rejected(res, "task.name", "unknown task 'no_such_task'")


def test_task_name_cannot_point_at_a_file(genuine: Path, tmp_path: Path) -> None:
    res, _ = _copy(genuine, tmp_path / "s")
    _edit_json(res, lambda d: d["task"].__setitem__("name", f"tasks/{TASK}.yaml"))
    _rejected(res, "task.name", "unknown task")
    _edit_json(
        res, lambda d: d["task"].__setitem__("name", str(Path(__file__).parent.parent / "tasks" / f"{TASK}.yaml"))
    )
    _rejected(res, "task.name", "is an absolute path")  # any string field: not a path of the machine


def test_changed_dataset_hash(genuine: Path, tmp_path: Path) -> None:
    res, _ = _copy(genuine, tmp_path / "s")
    _edit_json(res, lambda d: d["dataset"].__setitem__("content_hash", "sha256:" + "ab" * 32))
    _rejected(res, "dataset.content_hash", "differs from the real data's")


def test_sample_data_rejected(genuine: Path, tmp_path: Path) -> None:
    res, _ = _copy(genuine, tmp_path / "s")
    _edit_json(res, lambda d: d["dataset"].__setitem__("is_sample", True))
    _rejected(res, "dataset.is_sample", "sample data")


def test_fewer_bootstrap_resamples_rejected(genuine: Path, tmp_path: Path) -> None:
    res, _ = _copy(genuine, tmp_path / "s")
    _edit_json(res, lambda d: d["config"].__setitem__("n_bootstrap", 10))
    _rejected(res, "config.n_bootstrap", "below the task's 1000")


def test_truncated_json(genuine: Path, tmp_path: Path) -> None:
    res, _ = _copy(genuine, tmp_path / "s")
    res.write_text(res.read_text()[:500])
    _rejected(res, str(res), "not valid JSON")


def test_schema_violation(genuine: Path, tmp_path: Path) -> None:
    res, _ = _copy(genuine, tmp_path / "s")
    _edit_json(res, lambda d: d["metrics"]["kappa_loo"].__setitem__("value", "0.3"))
    _rejected(res, "metrics.kappa_loo.value", "results schema")


def test_missing_required_field(genuine: Path, tmp_path: Path) -> None:
    res, _ = _copy(genuine, tmp_path / "s")
    _edit_json(res, lambda d: d.pop("dataset"))
    _rejected(res, "results schema", "'dataset' is a required property")


def test_wrong_schema_version(genuine: Path, tmp_path: Path) -> None:
    res, _ = _copy(genuine, tmp_path / "s")
    _edit_json(res, lambda d: d.__setitem__("schema_version", "0.9"))
    _rejected(res, "schema_version", "unsupported")


def test_results_file_missing(tmp_path: Path) -> None:
    _rejected(tmp_path / "results_x.json", "results file not found")


# ------------------------------------------------------------------------------- samples tampering


def test_samples_file_missing(genuine: Path, tmp_path: Path) -> None:
    res, samples = _copy(genuine, tmp_path / "s")
    samples.unlink()
    _rejected(res, "samples_file", "not found")


def test_samples_file_outside_folder(genuine: Path, tmp_path: Path) -> None:
    res, _ = _copy(genuine, tmp_path / "s")
    _edit_json(res, lambda d: d.__setitem__("samples_file", "../elsewhere.jsonl"))
    _rejected(res, "samples_file", "must be a file name")


@pytest.mark.real_data("runs on all 631 IBM speeches and on a 120-document prefix (the sample has 8)")
def test_dropped_sample_line(genuine: Path, tmp_path: Path) -> None:
    res, samples = _copy(genuine, tmp_path / "s")
    dropped = json.loads(samples.read_text().splitlines()[10])["doc_id"]
    _edit_lines(samples, lambda ls: ls[:10] + ls[11:])
    _rejected(res, str(samples), "field 'doc_id'", "1 of all 631 documents are missing", dropped)


@pytest.mark.real_data("runs on all 631 IBM speeches and on a 120-document prefix (the sample has 8)")
def test_duplicated_sample_line(genuine: Path, tmp_path: Path) -> None:
    res, samples = _copy(genuine, tmp_path / "s")
    _edit_lines(samples, lambda ls: [*ls, ls[3]])
    _rejected(res, str(samples), "line 632", "duplicated document", "first on line 4")


def test_flipped_prediction(limited: Path, tmp_path: Path) -> None:
    res, samples = _copy(limited, tmp_path / "s")

    def flip(lines: list[str]) -> list[str]:
        rec = json.loads(lines[0])
        rec["prediction"] = 1 if rec["prediction"] != 1 else 5
        return [json.dumps(rec), *lines[1:]]

    _edit_lines(samples, flip)
    _rejected(res, str(samples), "line 1", "field 'prediction'", "is not what baseline/length (seed 0) answers")


def test_baseline_record_with_a_response(genuine: Path, tmp_path: Path) -> None:
    """A baseline answers without text: a response in its log did not come from it."""
    res, samples = _copy(genuine, tmp_path / "s")

    def fake(lines: list[str]) -> list[str]:
        rec = json.loads(lines[2])
        rec["response"] = f"Score: {rec['prediction']}"
        return [*lines[:2], json.dumps(rec), *lines[3:]]

    _edit_lines(samples, fake)
    _rejected(res, str(samples), "line 3", "field 'response'", "a baseline writes no response")


def test_unknown_document(genuine: Path, tmp_path: Path) -> None:
    res, samples = _copy(genuine, tmp_path / "s")

    def rename(lines: list[str]) -> list[str]:
        rec = json.loads(lines[5])
        rec["doc_id"] = "not-a-speech"
        return [*lines[:5], json.dumps(rec), *lines[6:]]

    _edit_lines(samples, rename)
    _rejected(res, "line 6", "unknown document 'not-a-speech'")


def test_malformed_sample_line(genuine: Path, tmp_path: Path) -> None:
    res, samples = _copy(genuine, tmp_path / "s")
    _edit_lines(samples, lambda ls: [ls[0][:40], *ls[1:]])
    _rejected(res, str(samples), "line 1", "not valid JSON")


def test_sample_line_not_a_record(genuine: Path, tmp_path: Path) -> None:
    res, samples = _copy(genuine, tmp_path / "s")
    _edit_lines(
        samples, lambda ls: [json.dumps({k: v for k, v in json.loads(ls[0]).items() if k != "status"}), *ls[1:]]
    )
    _rejected(res, str(samples), "line 1", "not a samples-log record")


@pytest.mark.real_data("runs on all 631 IBM speeches and on a 120-document prefix (the sample has 8)")
def test_limited_run_respects_its_limit(limited: Path, genuine: Path, tmp_path: Path) -> None:
    res, samples = _copy(limited, tmp_path / "s")
    # a document past the first 120 slipped into a 120-document run
    line_200 = samples_of(genuine).read_text().splitlines()[199]
    _edit_lines(samples, lambda ls: [*ls, line_200])
    _rejected(res, "line 121", "outside the first 120 documents (config.limit)")


@pytest.mark.real_data("runs on all 631 IBM speeches and on a 120-document prefix (the sample has 8)")
def test_limit_changed_after_the_run(limited: Path, tmp_path: Path) -> None:
    res, _ = _copy(limited, tmp_path / "s")
    _edit_json(res, lambda d: d["config"].__setitem__("limit", 200))
    # the baseline, prepared on the first 200 documents, answers otherwise: refused at the first record that differs
    _rejected(res, "field 'prediction'", "is not what baseline/length (seed 0) answers")


def test_several_files_one_refused(genuine: Path, limited: Path, tmp_path: Path) -> None:
    res, _ = _copy(genuine, tmp_path / "bad")
    _edit_json(res, lambda d: d["task"].__setitem__("version", 7))
    proc = run_cli("validate", str(res), str(limited), env=_env())
    assert proc.returncode == 2
    assert f"ok: {limited}" in proc.stdout
    assert proc.stderr.count("debench: error:") == 1 and "task.version" in proc.stderr


def test_real_data_unavailable(genuine: Path, tmp_path: Path) -> None:
    """Without a local copy and with the Hub offline, the reason says where the data should come from."""
    proc = run_cli("validate", str(genuine), env={"DEBENCH_DATA_DIR": "", "HF_HUB_OFFLINE": "1"})
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert (
        "field 'dataset'" in proc.stderr
        and "cannot load the real data" in proc.stderr
        and "DEBENCH_DATA_DIR" in proc.stderr
    )


# ----------------------------------------------- what a submitter's machine and future leave behind


@pytest.mark.slow
def test_a_run_from_the_future_is_refused(limited: Path, tmp_path: Path) -> None:
    res, _ = _copy(limited, tmp_path / "s")
    _edit_json(res, lambda d: d.__setitem__("created_at", "2099-01-01T00:00:00Z"))
    _rejected(res, "field 'created_at'", "2099-01-01T00:00:00Z is after this build", "cannot come from the future")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda d: d["config"]["command"].extend(["--output-dir", "/home/alice/runs"]), "config.command."),
        (lambda d: d["config"]["command"].append("--data-dir=/Users/alice/data"), "config.command."),
        (
            lambda d: d["config"].__setitem__("task_file", "/home/alice/debench/tasks/ibm_speech_likert.yaml"),
            "config.task_file",
        ),
        (
            lambda d: d["dataset"].__setitem__("location", "/home/alice/datasets/ibm_debate_speeches"),
            "dataset.location",
        ),
    ],
)
def test_an_absolute_path_of_the_submitters_machine_is_refused(limited: Path, tmp_path: Path, edit, field: str) -> None:
    res, _ = _copy(limited, tmp_path / "s")
    _edit_json(res, edit)
    _rejected(res, f"field '{field}", "is an absolute path of the machine the run was made on")


@pytest.mark.slow
def test_eval_records_paths_portably(tmp_path: Path) -> None:
    """What ``debench eval`` writes is what validation accepts: no absolute path in the command
    line or the data location, whatever absolute paths it was given."""
    from conftest import DATA_DIR

    out = tmp_path / "abs-out"
    proc = run_cli(
        "eval",
        "--task",
        TASK,
        "--model",
        "baseline/random",
        "--limit",
        "5",
        "--output-dir",
        str(out),
        "--data-dir",
        str(DATA_DIR),
        "--no-progress",
        cwd=tmp_path,
    )
    assert proc.returncode == 0, proc.stderr
    (res,) = out.rglob("results_*.json")
    data = json.loads(res.read_text())
    assert "abs-out" in data["config"]["command"] and not any(a.startswith("/") for a in data["config"]["command"])
    assert not data["dataset"]["location"].startswith("/") and data["dataset"]["location"].endswith(
        "ibm_debate_speeches"
    )
    accepted(res)


@pytest.mark.slow
def test_a_samples_file_above_its_cap_is_refused_before_it_is_read(limited: Path, tmp_path: Path) -> None:
    from debench.leaderboard.files import MAX_SAMPLES_BYTES

    res, samples = _copy(limited, tmp_path / "s")
    with open(samples, "r+b") as fh:  # a sparse 200 MB file: nothing is read, nothing is allocated
        fh.truncate(200_000_000)
    _rejected(res, str(samples), "200,000,000 bytes", f"above the {MAX_SAMPLES_BYTES:,}-byte cap")


@pytest.mark.slow
def test_an_overlong_line_is_refused_at_its_line(limited: Path, tmp_path: Path) -> None:
    from debench.leaderboard.files import MAX_LINE_BYTES

    res, samples = _copy(limited, tmp_path / "s")
    _edit_lines(samples, lambda ls: [*ls[:3], " " * (MAX_LINE_BYTES + 10) + ls[3], *ls[4:]])
    _rejected(res, str(samples), f"line 4 is longer than {MAX_LINE_BYTES:,} bytes")


@pytest.mark.slow
def test_a_samples_file_that_is_a_link_is_refused(limited: Path, tmp_path: Path) -> None:
    res, samples = _copy(limited, tmp_path / "s")
    target = tmp_path / "real.jsonl"
    samples.rename(target)
    samples.symlink_to(target)
    _rejected(res, str(samples), "is a symbolic link: a submission holds regular files only")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("plant", "text"),
    [
        (
            lambda folder: (folder / "samples_zz.jsonl").symlink_to("/proc/self/environ"),
            "samples_zz.jsonl: is a symbolic link",
        ),
        (
            lambda folder: (folder / "notes.txt").write_text("see the run\n"),
            "notes.txt: no results file in the folder refers to this file",
        ),
        (lambda folder: (folder / "nested").mkdir(), "nested: is a folder"),
    ],
)
def test_a_folder_holds_regular_files_each_accounted_for(limited: Path, tmp_path: Path, plant, text: str) -> None:
    res, _ = _copy(limited, tmp_path / "s")
    plant(res.parent)
    proc = run_cli("validate", str(res.parent), env=_env())
    assert proc.returncode == 2 and text in proc.stderr, proc.stderr
    assert f"ok: {res}" in proc.stdout  # the results file itself is fine; the folder is not


@pytest.mark.slow
def test_every_file_of_a_folder_is_scanned_for_keys(tmp_path: Path) -> None:
    """A plot the results file names carries a key: validating the folder finds it."""
    from conftest import DATA_DIR

    out = tmp_path / "run"
    proc = run_cli(
        "eval",
        "--task",
        TASK,
        "--model",
        "baseline/length",
        "--limit",
        "40",
        "--output-dir",
        str(out),
        "--data-dir",
        str(DATA_DIR),
        "--no-progress",
    )
    assert proc.returncode == 0, proc.stderr
    (res,) = out.rglob("results_*.json")
    plot = res.parent / json.loads(res.read_text())["plots"][0]
    plot.write_text(
        plot.read_text().replace("</svg>", "<!-- xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx --></svg>")
    )
    proc = run_cli("validate", str(res.parent), env=_env())
    assert (
        proc.returncode == 2
        and f"{plot}: " in proc.stderr
        and "Slack API key" in proc.stderr
        and "AbCdEf" not in proc.stderr
    )
