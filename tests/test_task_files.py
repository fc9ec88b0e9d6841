"""Task YAML: validation, one-line errors naming file and field, exit code 2."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
import yaml
from clihelp import invoke, run_cli

import debench
from debench.core.errors import UserError
from debench.run.task_files import load_task_file
from debench.run.task_lookup import load_task, task_names, tasks_dir

SHIPPED = sorted(p for p in tasks_dir().glob("*.yaml") if not p.name.startswith("_"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_task_validates(path: Path) -> None:
    task = load_task_file(path)
    assert task.name == path.stem
    assert task.description.strip()


def test_ibm_tasks_are_registered() -> None:
    assert {"ibm_speech_likert", "ibm_speech_likert_cot"} <= set(task_names())


def _write_variant(tmp_path: Path, mutate) -> Path:
    raw = yaml.safe_load((tasks_dir() / "ibm_speech_likert.yaml").read_text())
    mutate(raw)
    path = tmp_path / "variant.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda r: r["parser"].__setitem__("patterns", ["(unclosed"]), "parser.patterns"),
        (lambda r: r["metrics"].append({"name": "no_such_metric"}), "metrics"),
        (lambda r: r.pop("prompt"), "prompt"),
        (lambda r: r["prompt"].__setitem__("user", "{{ topic "), "<root>"),
        (lambda r: r["generation"].__setitem__("max_tokens", -5), "generation.max_tokens"),
        (lambda r: r.__setitem__("surprise", 1), "surprise"),
        (lambda r: r["parser"].__setitem__("transform", "exec"), "parser.transform"),
        (lambda r: r["dataset"].__setitem__("adapter", "ibm_speech"), "dataset.adapter"),
    ],
    ids=[
        "bad-regex",
        "unknown-metric",
        "missing-prompt",
        "bad-template",
        "negative-max-tokens",
        "unknown-key",
        "unknown-transform",
        "unknown-adapter",
    ],
)
def test_invalid_task_names_file_and_field(tmp_path: Path, mutate, field: str) -> None:
    path = _write_variant(tmp_path, mutate)
    with pytest.raises(UserError) as info:
        load_task_file(path)
    msg = str(info.value)
    assert str(path) in msg
    assert "\n" not in msg
    if field != "<root>":
        assert f"field '{field}" in msg
    else:
        assert "template syntax error" in msg
    if field == "dataset.adapter":  # at load, before any data is read, with the did-you-mean
        assert "unknown data adapter 'ibm_speech'; did you mean 'ibm_speeches'?" in msg


def test_malformed_yaml_cli_one_line_exit_2(tmp_path: Path) -> None:
    path = tmp_path / "broken.yaml"
    path.write_text("name: x\nprompt: [unclosed\n")
    proc = run_cli("eval", "--task", str(path), "--model", "baseline/random")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert str(path) in lines[0] and "invalid YAML" in lines[0]


def test_yaml_code_tags_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "evil.yaml"
    path.write_text("name: !!python/object/apply:os.system ['echo pwned']\n")
    with pytest.raises(UserError, match="invalid YAML"):
        load_task_file(path)


def test_unknown_task_cli_exit_2() -> None:
    proc = run_cli("eval", "--task", "ibm_speech_likrt", "--model", "baseline/random")
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1
    assert "unknown task 'ibm_speech_likrt'" in proc.stderr
    assert "ibm_speech_likert" in proc.stderr  # the hint


def test_user_task_file_by_path(tmp_path: Path) -> None:
    path = _write_variant(tmp_path, lambda r: r.__setitem__("name", "my_likert"))
    task, where = load_task(str(path))
    assert task.name == "my_likert" and where == path
    out = tmp_path / "out"
    proc = run_cli(
        "eval",
        "--task",
        str(path),
        "--model",
        "baseline/random",
        "--data-source",
        "sample",
        "--output-dir",
        str(out),
        "--no-progress",
    )
    assert proc.returncode == 0, proc.stderr
    assert list((out / "baseline__random").glob("results_my_likert_*.json"))


SECRET = "debench-test-secret-7f3a"


def _outside_secret(tmp_path: Path) -> Path:
    """A file outside the task's folder that a task file must not be able to read."""
    secret = tmp_path / "private" / "notes.txt"
    secret.parent.mkdir()
    secret.write_text(SECRET)
    return secret


def _prompt_file_task(folder: Path, rel: str) -> Path:
    def mutate(raw):
        raw["prompt"]["files"] = {"secret": rel}
        raw["prompt"]["user"] += "{{ secret }}"

    folder.mkdir(exist_ok=True)
    return _write_variant(folder, mutate)


@pytest.mark.parametrize("attack", ["absolute", "etc-passwd", "dotdot", "symlink"])
def test_a_prompt_file_outside_the_task_folder_is_refused(tmp_path: Path, attack: str) -> None:
    """A task file from someone else is data: it may not copy another file of the user's into
    every prompt (and so to a model provider). Refused before any data is read, CLI and API alike."""
    secret = _outside_secret(tmp_path)
    folder = tmp_path / "tasks"
    folder.mkdir()
    rel = {
        "absolute": str(secret),
        "etc-passwd": "/etc/passwd",
        "dotdot": "../../../../../../../../etc/passwd",
        "symlink": "manual.md",
    }[attack]
    if attack == "symlink":
        (folder / "manual.md").symlink_to(secret)
    path = _prompt_file_task(folder, rel)
    line = invoke(
        "eval",
        "--task",
        str(path),
        "--model",
        "baseline/random",
        "--data-source",
        "sample",
        "--output-dir",
        str(tmp_path / "out"),
    ).one_line_error()
    assert str(path) in line and "field 'prompt.files.secret'" in line and "own folder" in line
    assert SECRET not in line
    with pytest.raises(UserError, match=re.escape("prompt.files.secret")):
        debench.evaluate(str(path), "baseline/random", data_source="sample", output_dir=tmp_path / "out")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("attack", ["absolute", "dotdot", "symlink"])
def test_an_include_outside_the_task_folder_is_refused(tmp_path: Path, attack: str) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "outside.yaml").write_text((tasks_dir() / "ibm_speech_likert.yaml").read_text())
    folder = tmp_path / "tasks"
    folder.mkdir()
    inc = {"absolute": str(elsewhere / "outside.yaml"), "dotdot": "../elsewhere/outside.yaml", "symlink": "base.yaml"}[
        attack
    ]
    if attack == "symlink":
        (folder / "base.yaml").symlink_to(elsewhere / "outside.yaml")
    path = folder / "mine.yaml"
    path.write_text(f"include: {inc}\nname: mine\n")
    line = invoke("eval", "--task", str(path), "--model", "baseline/random").one_line_error()
    assert str(path) in line and "field 'include'" in line and "own folder" in line
    with pytest.raises(UserError, match="field 'include'"):
        debench.evaluate(str(path), "baseline/random")


def test_includes_and_prompt_files_inside_the_folder_still_work(tmp_path: Path) -> None:
    """Subfolders, a symlink that stays inside, a nested include that climbs back to the task's
    own folder, and debench's own task files (by their installed path) are all inside."""
    folder = tmp_path / "tasks"
    (folder / "bases").mkdir(parents=True)
    (folder / "guide.md").write_text("GUIDE TEXT")
    (folder / "guide_link.md").symlink_to(folder / "guide.md")
    (folder / "bases" / "_a.yaml").write_text("include: ../_b.yaml\nprompt: {files: {guide: ../guide_link.md}}\n")
    (folder / "_b.yaml").write_text(f"include: {tasks_dir() / 'ibm_speech_likert.yaml'}\n")
    path = folder / "mine.yaml"
    path.write_text("include: bases/_a.yaml\nname: mine\n")
    task = load_task_file(path)
    assert task.name == "mine" and task.prompt.variables["guide"] == "GUIDE TEXT"
    assert task.prompt.files == {"guide": "../guide_link.md"}  # as written: the identity holds no path of the machine
    verdict = load_task_file(tasks_dir() / "debatebench_verdict.yaml")  # its base's prompt file, read from tasks/
    assert verdict.prompt.variables["judging_manual"].strip()
    # debench's own task files by a relative path too (benchmarks/tasks/ does this), and their
    # own prompt files from tasks/
    rel = os.path.relpath(tasks_dir() / "debatebench_verdict.yaml", folder)
    (folder / "bench.yaml").write_text(f"include: {rel}\nname: bench\n")
    assert (
        load_task_file(folder / "bench.yaml").prompt.variables["judging_manual"]
        == verdict.prompt.variables["judging_manual"]
    )


def test_tasks_command_lists_descriptions() -> None:
    proc = run_cli("tasks")
    assert proc.returncode == 0, proc.stderr
    line = next(row for row in proc.stdout.splitlines() if row.startswith("ibm_speech_likert "))
    assert "Rate IBM debate opening speeches" in line


def test_committed_json_schemas_are_current() -> None:
    import subprocess
    import sys

    script = Path(__file__).resolve().parent.parent / "scripts" / "write_schemas.py"
    proc = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout
