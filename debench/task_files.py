"""Reading a task YAML file: ``yaml.safe_load``, ``include:`` bases, prompt files, validation
against ``debench.task.TaskConfig``, and the names it uses (metrics, reports) checked against their
registries. Any problem is one ``UserError`` naming the file and the field."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import yaml

from debench.data.files import SAFE_LOADER
from debench.errors import UserError

if TYPE_CHECKING:  # imported where used: listing tasks (``read_summary``) needs no pydantic model
    from debench.task import TaskConfig


def _loc(err: dict[str, Any]) -> str:
    return ".".join(str(p) for p in err.get("loc", ())) or "<root>"


def _read_yaml(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UserError("task file not found", path=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read task file ({exc.__class__.__name__})", path=str(path)) from None
    try:
        raw = yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise UserError(f"invalid YAML{where}: {problem}", path=str(path)) from None
    if not isinstance(raw, dict):
        raise UserError("a task file must be a mapping of fields", path=str(path))
    return raw


def _merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def _resolve_includes(path: Path, depth: int = 0) -> dict[str, Any]:
    """``include: other.yaml`` (relative to the file) is read first and overridden key by key."""
    raw = _read_yaml(path)
    inc = raw.pop("include", None)
    if inc is None:
        return raw
    if depth >= 3:
        raise UserError("includes nested more than 3 deep", path=str(path), field="include")
    if not isinstance(inc, str):
        raise UserError("include must be a file name", path=str(path), field="include")
    return _merge(_resolve_includes(path.parent / inc, depth + 1), raw)


def _read_prompt_files(raw: dict[str, Any], path: Path) -> None:
    prompt = raw.get("prompt")
    if not isinstance(prompt, dict) or not isinstance(prompt.get("files"), dict):
        return
    variables = dict(prompt.get("variables") or {})
    for name, rel in prompt["files"].items():
        file = path.parent / str(rel)
        try:
            variables[name] = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            raise UserError(f"cannot read prompt file {file}", path=str(path), field=f"prompt.files.{name}") from None
    prompt["variables"] = variables


def load_task_file(path: str | Path) -> TaskConfig:
    """Read and validate one task YAML file; any problem is a one-line ``UserError``."""
    from pydantic import ValidationError

    from debench.task import TaskConfig

    path = Path(path)
    raw = _resolve_includes(path)
    _read_prompt_files(raw, path)
    try:
        task = TaskConfig.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        msg = first.get("msg", "invalid value")
        extra = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise UserError(f"{msg}{extra}", path=str(path), field=_loc(first)) from None
    check_names(task, path)
    task.dataset._base_dir = path.parent  # the generic adapter's dataset.file is relative to the task file
    return task


class TaskSummary(NamedTuple):
    """What ``debench tasks`` lists about a task file."""

    name: str
    group: str | None
    description: str
    """The first line of the description."""
    path: Path


def read_summary(path: Path) -> TaskSummary:
    """A task file's name, group and description, read without validating it (``debench tasks``:
    YAML only, no plug-in registry, no template engine)."""
    raw = _resolve_includes(Path(path))
    lines = str(raw.get("description") or "").strip().splitlines()
    group = raw.get("group")
    return TaskSummary(str(raw.get("name") or Path(path).stem), str(group) if group else None, lines[0] if lines else "", Path(path))


def check_names(task: TaskConfig, path: Path) -> None:
    """Every metric and report the task names exists."""
    # debench's own metric and report names are known without importing their code (numpy,
    # scipy): a run starts sooner; only another name loads a registry
    from debench.metrics.names import BUILTIN_NAMES, BUILTIN_REPORTS, STATUS_METRICS

    for i, m in enumerate(task.metrics):
        if m.name in STATUS_METRICS or m.name in BUILTIN_NAMES:
            continue
        from debench.metrics.base import METRICS

        if m.name not in METRICS:
            raise UserError(METRICS.unknown_message(m.name, f", {', '.join(STATUS_METRICS)}"), path=str(path), field=f"metrics.{i}.name")
    for i, r in enumerate(task.reports):
        if r in BUILTIN_REPORTS:
            continue
        from debench.metrics.reports import REPORTS

        if r not in REPORTS:
            raise UserError(REPORTS.unknown_message(r), path=str(path), field=f"reports.{i}")
