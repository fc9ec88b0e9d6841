"""Groups and include paths (lm-eval's conventions): ``--task GROUP``, ``--task DIR``,
``--include-path DIR``, the group summary, ``debench tasks``."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir

from debench.core.errors import UserError
from debench.core.json_schema import validate_with_schema_file
from debench.run import task_lookup
from debench.run.task_lookup import resolve_tasks, tasks_dir
from debench.scoring.group_summary import GROUP_SUMMARY_SCHEMA_PATH

DEBATEART = [
    "debateart_argument", "debateart_argument_scores", "debateart_language", "debateart_language_scores",
    "debateart_source", "debateart_source_scores", "debateart_winner", "debateart_winner_scores",
]  # fmt: skip


def _user_task(folder: Path, name: str, group: str | None = None, base: str = "ibm_speech_likert.yaml") -> Path:
    raw = yaml.safe_load((tasks_dir() / base).read_text())
    raw["name"] = name
    raw["group"] = group
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


def test_a_group_name_selects_its_tasks_once() -> None:
    sel = resolve_tasks("debateart,debateart_winner")
    assert [t.task.name for t in sel.tasks] == DEBATEART
    assert sel.groups == {"debateart": DEBATEART}
    sel = resolve_tasks(["ibm_speech_likert", "ibm_speeches"])
    assert [t.task.name for t in sel.tasks] == ["ibm_speech_likert", "ibm_speech_likert_cot"]
    assert resolve_tasks("bp_top_team").groups == {}


def test_unknown_names_suggest_tasks_and_groups() -> None:
    with pytest.raises(UserError, match=r"unknown task 'debatart' .*; did you mean .*debateart"):
        resolve_tasks("debatart")
    with pytest.raises(UserError, match="names no task"):
        resolve_tasks(" , ")


def test_a_shipped_task_named_alone_is_validated_from_its_own_file(monkeypatch: pytest.MonkeyPatch) -> None:
    validated: list[str] = []
    load = task_lookup.load_task_file
    monkeypatch.setattr(task_lookup, "load_task_file", lambda path: validated.append(Path(path).name) or load(path))
    assert [t.task.name for t in resolve_tasks("ibm_speech_likert,bp_top_team").tasks] == [
        "ibm_speech_likert", "bp_top_team"
    ]  # fmt: skip
    assert validated == ["ibm_speech_likert.yaml", "bp_top_team.yaml"]
    validated.clear()
    assert [t.task.name for t in resolve_tasks("ibm_speeches").tasks] == ["ibm_speech_likert", "ibm_speech_likert_cot"]
    assert len(validated) == len(task_lookup.task_names())  # a group: every shipped task file is validated


def test_a_shipped_task_that_is_also_a_shipped_group_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    shipped = tmp_path / "tasks"
    shutil.copytree(tasks_dir(), shipped)
    _user_task(shipped, "twin", group="bp_top_team")
    monkeypatch.setattr(task_lookup, "tasks_dir", lambda: shipped)
    task_lookup._index.cache_clear()
    try:
        with pytest.raises(UserError, match="names both a task"):
            resolve_tasks("bp_top_team")
        assert [t.path for t in resolve_tasks("twin").tasks] == [shipped / "twin.yaml"]
    finally:
        task_lookup._index.cache_clear()


def test_a_folder_adds_every_task_file_in_it(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    _user_task(folder, "my_b")
    _user_task(folder, "my_a")
    (folder / "_base.yaml").write_text("version: 1\n")  # an include base, not a task
    (folder / "notes.txt").write_text("not a task")
    sel = resolve_tasks([str(folder), str(folder / "my_a.yaml")])
    assert [t.task.name for t in sel.tasks] == ["my_a", "my_b"]  # sorted, each once
    with pytest.raises(UserError, match="holds no task file"):
        (tmp_path / "empty").mkdir()
        resolve_tasks(str(tmp_path / "empty"))


def test_include_path_makes_tasks_and_groups_known_by_name(tmp_path: Path) -> None:
    folder = tmp_path / "extra"
    _user_task(folder, "my_likert", group="my_group")
    _user_task(folder, "my_likert_2", group="my_group")
    _user_task(folder, "my_extra_ibm", group="ibm_speeches")  # joins a shipped group
    with pytest.raises(UserError, match="unknown task 'my_group'"):
        resolve_tasks("my_group")
    sel = resolve_tasks("my_group", include_paths=[folder])
    assert [t.task.name for t in sel.tasks] == ["my_likert", "my_likert_2"]
    assert sel.groups == {"my_group": ["my_likert", "my_likert_2"]}
    assert resolve_tasks("ibm_speeches", include_paths=[folder]).groups["ibm_speeches"] == [
        "ibm_speech_likert", "ibm_speech_likert_cot", "my_extra_ibm"
    ]  # fmt: skip


def test_include_path_errors_name_the_file(tmp_path: Path) -> None:
    clash = tmp_path / "clash"
    path = _user_task(clash, "bp_top_team")
    with pytest.raises(UserError) as info:
        resolve_tasks("bp_top_team", include_paths=[clash])
    assert str(path) in str(info.value) and "also defined in" in str(info.value)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "bad.yaml").write_text("name: [unclosed\n")
    with pytest.raises(UserError, match="invalid YAML"):
        resolve_tasks("bp_top_team", include_paths=[broken])
    with pytest.raises(UserError, match="not a folder of task files"):
        resolve_tasks("bp_top_team", include_paths=[tmp_path / "missing"])
    # a group that is also a task name is ambiguous
    amb = tmp_path / "amb"
    _user_task(amb, "twin", group="bp_top_team")
    with pytest.raises(UserError, match="names both a task"):
        resolve_tasks("bp_top_team", include_paths=[amb])


@pytest.mark.real_data("the group's summary over the 100 DebateArt debates (the sample has 4)")
def test_eval_of_a_group_writes_each_result_and_a_summary(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    out = tmp_path / "out"
    proc = run_cli("eval", "--task", "debateart", "--model", "baseline/majority", "--output-dir", str(out),
                   "--bootstrap", "20", "--no-progress", env={"DEBENCH_DATA_DIR": str(DATA_DIR)})  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    model_dir = out / "baseline__majority"
    results = sorted(model_dir.glob("results_*.json"))
    assert [p.name.split("_", 1)[1].rsplit("_", 1)[0] for p in results] == DEBATEART
    summaries = list(model_dir.glob("group_debateart_*.json"))
    assert len(summaries) == 1 and f"group summary: {summaries[0]}" in proc.stdout
    data = json.loads(summaries[0].read_text())
    validate_with_schema_file(data, GROUP_SUMMARY_SCHEMA_PATH)
    assert data["group"] == "debateart" and data["model"] == "baseline/majority"
    assert [t["task"] for t in data["tasks"]] == DEBATEART
    for entry in data["tasks"]:
        res = json.loads((summaries[0].parent / entry["results_file"]).read_text())
        assert res["task"]["name"] == entry["task"] and not entry["is_sample"]
        first = next(k for k in res["metrics"] if k not in ("parse_failure_rate", "completion_rate"))
        pm = entry["primary_metric"]
        assert pm["name"] == first == "rmse" and pm["higher_is_better"] is False
        assert (pm["value"], pm["ci95"], pm["n"]) == (
            res["metrics"]["rmse"]["value"],
            res["metrics"]["rmse"]["ci95"],
            100,
        )
    # the same command again rewrites the same summary (no pile of files)
    again = run_cli("eval", "--task", "debateart", "--model", "baseline/majority", "--output-dir", str(out),
                    "--bootstrap", "20", "--no-progress", env={"DEBENCH_DATA_DIR": str(DATA_DIR)})  # fmt: skip
    assert again.returncode == 0 and list(model_dir.glob("group_debateart_*.json")) == summaries


def test_eval_of_a_folder_and_include_path_on_the_cli(tmp_path: Path) -> None:
    real_data_dir("ibm_debate_speeches")
    folder = tmp_path / "mine"
    _user_task(folder, "my_likert", group="my_group")
    out = tmp_path / "out"
    env = {"DEBENCH_DATA_DIR": str(DATA_DIR)}
    proc = run_cli(
        "eval",
        "--task",
        str(folder) + "/",
        "--model",
        "baseline/random",
        "--limit",
        "5",
        "--output-dir",
        str(out),
        "--no-progress",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr  # no longer IsADirectoryError
    assert list((out / "baseline__random").glob("results_my_likert_*.json"))
    assert not list((out / "baseline__random").glob("group_*.json"))  # a folder is not a group
    proc = run_cli(
        "eval",
        "--include-path",
        str(folder),
        "--task",
        "my_group",
        "--model",
        "baseline/random",
        "--limit",
        "5",
        "--output-dir",
        str(out),
        "--no-progress",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert len(list((out / "baseline__random").glob("group_my_group_*.json"))) == 1
    bad = run_cli("eval", "--task", "no_such_group", "--model", "baseline/random", "--output-dir", str(out))
    assert (
        bad.returncode == 2
        and len(bad.stderr.strip().splitlines()) == 1
        and "unknown task 'no_such_group' (no task or group" in bad.stderr
    )


def test_the_python_api_writes_the_group_summary(tmp_path: Path) -> None:
    """``debench.evaluate`` on a group writes its summary (the CLI only prints its path): a caller
    of the API gets the same files as the command."""
    import debench

    folder = tmp_path / "mine"
    _user_task(folder, "my_likert", group="my_group")
    _user_task(folder, "my_likert_b", group="my_group")
    _user_task(folder, "loner")
    runs = debench.evaluate(
        "my_group,loner",
        "baseline/random",
        include_paths=[folder],
        limit=3,
        data_source="sample",
        output_dir=tmp_path / "out",
    )
    by_task = {r.results.task.name: r for r in runs}
    summary = by_task["my_likert"].group_summary
    assert (
        summary is not None
        and summary == by_task["my_likert_b"].group_summary
        and by_task["loner"].group_summary is None
    )
    data = json.loads(summary.read_text())
    validate_with_schema_file(data, GROUP_SUMMARY_SCHEMA_PATH)
    assert data["group"] == "my_group" and [t["task"] for t in data["tasks"]] == ["my_likert", "my_likert_b"]
    assert [summary.parent / t["results_file"] for t in data["tasks"]] == [
        by_task[n].results_path for n in ("my_likert", "my_likert_b")
    ]


def test_tasks_command_shows_groups_and_included_tasks(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    _user_task(folder, "my_likert", group="my_group")
    proc = run_cli("tasks", "--include-path", str(folder))
    assert proc.returncode == 0, proc.stderr
    line = next(line for line in proc.stdout.splitlines() if line.startswith("debateart_winner "))
    assert " debateart " in line
    assert any(line.startswith("my_likert ") and "my_group" in line for line in proc.stdout.splitlines())
    groups = proc.stdout.split("groups")[1]
    assert "debateart" in groups and "8 task(s)" in groups and "my_group" in groups and "1 task(s): my_likert" in groups


def test_probe_takes_a_group(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    proc = run_cli("probe", "--task", "bp_competition", "--model", "baseline/last", "--probe", "swap", "--limit", "2",
                   "--output-dir", str(tmp_path), "--no-progress", env={"DEBENCH_DATA_DIR": str(DATA_DIR)})  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert list((tmp_path / "baseline__last").glob("probes_bp_top_team_*.json"))


def test_score_of_a_group_is_one_line(tmp_path: Path) -> None:
    preds = tmp_path / "p.jsonl"
    preds.write_text('{"doc_id": "x", "prediction": "pro"}\n')
    proc = run_cli("score", "--task", "debateart", "--predictions", str(preds), "--output", str(tmp_path / "s.json"))
    assert (
        proc.returncode == 2 and proc.stderr.count("\n") == 1 and "names 8 tasks; scoring takes one task" in proc.stderr
    )
