"""Task YAML: validation, one-line errors naming file and field, exit code 2."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from clihelp import run_cli
from debench.errors import UserError
from debench.registry import load_task, task_names, tasks_dir
from debench.task_files import load_task_file

SHIPPED = sorted(p for p in tasks_dir().glob("*.yaml") if not p.name.startswith("_"))


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_every_shipped_task_validates(path: Path) -> None:
    task = load_task_file(path)
    assert task.name == path.stem
    assert task.description.strip()


def test_ibm_tasks_are_registered() -> None:
    assert {"ibm_speech_likert", "ibm_speech_likert_cot"} <= set(task_names())


def _write_variant(tmp_path: Path, mutate) -> Path:  # type: ignore[no-untyped-def]
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
    ],
    ids=["bad-regex", "unknown-metric", "missing-prompt", "bad-template", "negative-max-tokens", "unknown-key", "unknown-transform"],
)
def test_invalid_task_names_file_and_field(tmp_path: Path, mutate, field: str) -> None:  # type: ignore[no-untyped-def]
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
    proc = run_cli("eval", "--task", str(path), "--model", "baseline/random", "--data-source", "sample", "--output-dir", str(out), "--no-progress")
    assert proc.returncode == 0, proc.stderr
    assert list((out / "baseline__random").glob("results_my_likert_*.json"))


def test_tasks_command_lists_descriptions() -> None:
    proc = run_cli("tasks")
    assert proc.returncode == 0, proc.stderr
    line = next(l for l in proc.stdout.splitlines() if l.startswith("ibm_speech_likert "))
    assert "Rate IBM debate opening speeches" in line


def test_committed_json_schemas_are_current() -> None:
    import subprocess
    import sys

    script = Path(__file__).resolve().parent.parent / "scripts" / "write_schemas.py"
    proc = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout
