"""Bounded validation and the rest of issue 41's item 9, rule by rule, on copies of the committed
bp_top_team baseline (22 documents, the real data): what a submission can make the gate or the job
compute or hold has a ceiling, refused in one line naming the file and field; an entry is
validated once, by content; names read as what they are; modes are compared; no runner path is
printed; the workflow queues refreshes and pushes without losing records."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from conftest import DATA_DIR, real_data_dir
from lbhelp import REPO, SEEDS, cli, edit_json, edit_lines

from debench.core.errors import UserError
from debench.leaderboard.entry_rules import entry_problems, name_problem
from debench.leaderboard.files import MAX_BLANK_LINES, MAX_JSON_DEPTH, parse_json
from debench.leaderboard.public_text import public_text
from debench.leaderboard.pull_request import compare_trees
from debench.run.task_lookup import installed_task

TASK = "bp_top_team"


def _copy(dest: Path, model: str = "baseline/random") -> tuple[Path, Path]:
    """A copy of the committed seed run of ``model`` on bp_top_team: (results file, samples log)."""
    real_data_dir("debatrix_panelbench")
    (src,) = [
        p
        for p in (SEEDS / model.replace("/", "__")).glob(f"results_{TASK}_*.json")
        if p.name.count("_") == TASK.count("_") + 2
    ]
    dest.mkdir(parents=True, exist_ok=True)
    samples = src.parent / json.loads(src.read_text())["samples_file"]
    shutil.copy(src, dest / src.name)
    shutil.copy(samples, dest / samples.name)
    return dest / src.name, dest / samples.name


def _refused(path: Path, *expected: str) -> str:
    got = cli("validate", str(path))
    assert got.exit_code == 2, got.output
    (line,) = got.stderr.strip().splitlines()  # one line, no traceback
    for text in expected:
        assert text in line, line
    return str(line)


def test_a_log_padded_with_blank_lines_is_refused_at_the_ceiling(tmp_path: Path) -> None:
    res, samples = _copy(tmp_path / "s")
    with samples.open("ab") as fh:
        fh.write(b"\n" * 45_000_000)  # 45 MB, under the 50 MB cap of a samples log
    line = _refused(res, str(samples), f"more than {MAX_BLANK_LINES} blank lines")
    assert f"line {22 + MAX_BLANK_LINES + 1}:" in line  # read no further than the ceiling


def test_a_huge_n_bootstrap_is_refused(tmp_path: Path) -> None:
    from debench.leaderboard.results_file import read_results
    from debench.leaderboard.task_binding import MAX_N_BOOTSTRAP, limit_and_bootstrap

    res, _ = _copy(tmp_path / "s")
    edit_json(res, lambda d: d["config"].update(n_bootstrap=10**7))
    _refused(res, "field 'config.n_bootstrap'", "10,000,000 bootstrap resamples is above the 10,000")
    task = installed_task(TASK)
    assert task is not None
    results = read_results(res)
    results.config["n_bootstrap"] = MAX_N_BOOTSTRAP
    assert limit_and_bootstrap(task, results, res) == (None, MAX_N_BOOTSTRAP)


def test_a_deeply_nested_file_is_one_line_without_a_traceback(tmp_path: Path) -> None:
    res, samples = _copy(tmp_path / "s")
    deep = b"[" * 5000 + b"]" * 5000
    with pytest.raises(UserError, match=f"nested more than {MAX_JSON_DEPTH} levels"):
        parse_json(deep, res)
    with pytest.raises(UserError, match=f"line 3: nested more than {MAX_JSON_DEPTH}"):
        parse_json(b'{"a":' * 40 + b"1" + b"}" * 40, samples, line=3)
    original = res.read_text()
    res.write_text(original[:-2] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}\n")
    _refused(res, str(res), "nested more than")
    assert entry_problems([res]) == {}  # the gate's own look at the file does not crash either
    res.write_text(original)
    edit_lines(samples, lambda ls: [ls[0][:-1] + ', "x": ' + "[" * 5000 + "]" * 5000 + "}", *ls[1:]])
    _refused(res, str(samples), "line 1: nested more than")


def test_a_samples_record_with_a_key_debench_does_not_write_is_refused(tmp_path: Path) -> None:
    res, samples = _copy(tmp_path / "s")
    edit_lines(samples, lambda ls: [ls[0][:-1] + ', "note": "<script>' + "x" * 100_000 + '</script>"}', *ls[1:]])
    _refused(res, str(samples), "field 'note'", "line 1: not a field of a samples-log record")
    # a key debench does write, given a second time: the one JSON reader refuses it (the last would win)
    edit_lines(samples, lambda ls: [ls[0][:-1] + ', "steps": null}', *ls[1:]])
    _refused(res, str(samples), "field 'steps'", "line 1: the key is given twice in one object")


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("gpt-4о-mini-2024-07-18", "letters of several scripts (cyrillic, latin)"),  # a Cyrillic о
        ("gpt-4o-mini\u200b-2024-07-18", "a format or bidirectional control character (U+200B)"),
        ("gpt-4o-mini\u202e81-70-4202", "a format or bidirectional control character (U+202E)"),
        ("ｇｐｔ-4o-mini", "characters outside their NFKC form (it reads 'gpt-4o-mini')"),
        ("gpt\n::error::x", "a control character"),
    ],
)
def test_a_name_that_reads_as_another_is_refused(tmp_path: Path, name: str, why: str) -> None:
    assert name_problem(name) == why
    res, _ = _copy(tmp_path / "s")
    edit_json(res, lambda d: (d["model"].update(name=name), d["model"]["identity"].update(name=name)))
    got = entry_problems([res])[res]
    assert str(got).endswith(
        f"field 'model.name': {why} in the model name: names are printed in the job's log and the page"
    )
    assert name_problem("gpt-4o-mini-2024-07-18") is None and name_problem("модель-1") is None
    assert name_problem("日本語のモデル") is None  # kanji and kana are written together


def _trees(tmp_path: Path) -> tuple[Path, Path]:
    base = tmp_path / "base"
    _copy(base / "leaderboard" / "submissions" / "baseline__random")
    (base / "scripts").mkdir()
    shutil.copy(REPO / "scripts" / "refresh_leaderboard.py", base / "scripts")
    pr = tmp_path / "pr"
    shutil.copytree(base, pr)
    _copy(pr / "leaderboard" / "submissions" / "newcomer", "baseline/majority")
    return pr / "leaderboard" / "submissions", base / "leaderboard" / "submissions"


def test_the_gate_compares_modes(tmp_path: Path) -> None:
    pr, base = _trees(tmp_path)
    assert compare_trees(pr, base) == "newcomer"
    script = pr.parent.parent / "scripts" / "refresh_leaderboard.py"
    os.chmod(script, 0o755)  # bytes unchanged
    with pytest.raises(UserError, match="changes this file into an executable file, outside leaderboard/submissions"):
        compare_trees(pr, base)
    os.chmod(script, 0o644)
    (new,) = (pr / "newcomer").glob("results_*.json")
    os.chmod(new, 0o755)
    with pytest.raises(UserError, match="is an executable file: a submission holds regular files only"):
        compare_trees(pr, base)


def test_no_runner_path_is_printed_site_packages_included() -> None:
    import debench

    site = str(Path(debench.__file__).resolve().parent)  # wherever this debench is installed
    text = public_text(f"xllamacpp is not installed ({site}/models/local_server.py: ImportError)")
    assert site not in text and "…/local_server.py" in text
    roots = [(Path("/home/runner/work/x/leaderboard/submissions"), "leaderboard/submissions")]
    assert (
        public_text("/home/runner/work/x/leaderboard/submissions/a/r.json: bad", roots)
        == "leaderboard/submissions/a/r.json: bad"
    )
    assert public_text("through https://api.openai.com/v1 and http://127.0.0.1:8000/v1") == (
        "through https://api.openai.com/v1 and http://127.0.0.1:8000/v1"
    )


def test_an_entry_is_validated_once_by_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import debench.leaderboard.validation_record as vr

    res, samples = _copy(tmp_path / "s")
    first = vr.Validations()
    full = first.validate(res, data_dir=DATA_DIR)
    first.save(tmp_path / "validated.json")

    def not_again(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("validated again")

    monkeypatch.setattr(vr, "validate_submission", not_again)
    again = vr.Validations.read(tmp_path / "validated.json")
    got = again.validate(res, data_dir=DATA_DIR)
    assert got.metrics == full.metrics and got.provenance == full.provenance and got.left_out == full.left_out
    assert [r.prediction for r in got.records] == [r.prediction for r in full.records]
    again.scan(samples, 10**8)  # recorded clean when it was scanned: not scanned again
    with samples.open("a") as fh:
        fh.write("\n")  # one byte changes the content: validated in full again
    with pytest.raises(AssertionError, match="validated again"):
        again.validate(res, data_dir=DATA_DIR)


def test_the_workflow_queues_refreshes_and_pushes_without_losing_records() -> None:
    text = (REPO / ".github" / "workflows" / "leaderboard.yml").read_text()
    flow = yaml.safe_load(text)
    assert flow["concurrency"]["cancel-in-progress"] == "${{ github.event_name == 'pull_request_target' }}"
    job = flow["jobs"]["refresh"]
    assert job["timeout-minutes"] < 360 and job["steps"][0]["with"]["fetch-depth"] == 0
    from debench.leaderboard.maintainers import load_maintainers

    assert (
        load_maintainers(REPO / "leaderboard" / "maintainers.yaml").budgets.per_refresh.wall_minutes
        < job["timeout-minutes"]
    )
    (commit,) = [s for s in job["steps"] if "Commit" in s.get("name", "")]
    script = commit["run"]
    assert commit["if"] == "always()" and "leaderboard/ledger.json" in script and "leaderboard/validated.json" in script
    assert "git pull --rebase --strategy-option=theirs" in script and "for attempt in" in script
