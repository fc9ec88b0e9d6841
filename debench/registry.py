"""Task registry: the YAML files shipped in ``tasks/`` (``debench/_tasks`` inside the wheel),
plus any user file given by path."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from debench.errors import UserError
from debench.task_files import load_task_file, read_summary

if TYPE_CHECKING:
    from debench.task import TaskConfig


def tasks_dir() -> Path:
    here = Path(__file__).resolve().parent
    for candidate in (here / "_tasks", here.parent / "tasks"):
        if candidate.is_dir():
            return candidate
    raise UserError("debench's task directory is missing from the installation")


@lru_cache(maxsize=1)
def _index() -> dict[str, Path]:
    # files starting with "_" are shared bases for ``include:``, not tasks
    return {p.stem: p for p in sorted(tasks_dir().glob("*.yaml")) if not p.name.startswith("_")}


def task_names() -> list[str]:
    return sorted(_index())


def load_task(spec: str) -> tuple[TaskConfig, Path]:
    """A task name (``ibm_speech_likert``) or a path to a user's YAML file."""
    path = Path(spec)
    if spec.endswith((".yaml", ".yml")) or path.exists():
        return load_task_file(path), path
    index = _index()
    if spec not in index:
        close = [n for n in index if spec.split("_")[0] in n][:5]
        hint = f"; did you mean {', '.join(close)}?" if close else "; `debench tasks` lists them"
        raise UserError(f"unknown task '{spec}'{hint}")
    task = load_task_file(index[spec])
    if task.name != spec:
        raise UserError(f"task file declares name '{task.name}'", path=str(index[spec]), field="name")
    return task, index[spec]


def all_tasks() -> list[TaskConfig]:
    return [load_task(n)[0] for n in task_names()]


def task_summaries() -> list[tuple[str, str]]:
    """(name, first line of the description) of every shipped task, without validating them."""
    return [read_summary(path) for _, path in sorted(_index().items())]
