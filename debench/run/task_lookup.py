"""Tasks looked up by name: the YAML files shipped in ``tasks/`` (``debench/_tasks`` inside the wheel), the
task files of include paths (lm-eval's ``--include_path``), any user file given by path, and the
groups tasks declare (``group:``).

``resolve_tasks`` turns what a user names — task names, group names, task files, folders of task
files — into the tasks to run, each once, in a stable order. ``installed_task`` looks up debench's
own tasks only: a name in a submission or in the reported-numbers file never points at a file of
its own (``load_task`` would accept a path).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from debench.core.errors import UserError
from debench.core.paths import portable_path
from debench.run.task_files import TaskSummary, load_task_file, read_summary, tasks_dir

if TYPE_CHECKING:
    from debench.task.config import TaskConfig

YAML_SUFFIXES = (".yaml", ".yml")


def task_file_label(path: Path) -> str:
    """How a results file names its task file: ``tasks/<name>.yaml`` for one of debench's own, so no
    user's installation path is published; a task file of the user's own as it was given (an
    absolute path made portable: ``debench.core.paths.portable_path``)."""
    try:
        return f"tasks/{Path(path).resolve().relative_to(tasks_dir().resolve()).as_posix()}"
    except (ValueError, UserError):
        return portable_path(str(path))


def task_files(directory: Path) -> list[Path]:
    """The task YAML files of a folder, sorted; names starting with ``_`` are shared bases for
    ``include:``, not tasks."""
    return sorted(
        p for p in directory.iterdir() if p.is_file() and p.suffix in YAML_SUFFIXES and not p.name.startswith("_")
    )


@lru_cache(maxsize=1)
def _index() -> dict[str, Path]:
    return {p.stem: p for p in task_files(tasks_dir())}


def task_names() -> list[str]:
    return sorted(_index())


def _is_path(spec: str) -> bool:
    return spec.endswith(YAML_SUFFIXES) or Path(spec).exists()


def load_task(spec: str) -> tuple[TaskConfig, Path]:
    """A task name (``ibm_speech_likert``) or a path to a user's YAML file."""
    path = Path(spec)
    if _is_path(spec):
        if path.is_dir():
            raise UserError(
                "is a folder of task files: name one file, or pass the folder to --task or --include-path", path=spec
            )
        return load_task_file(path), path
    index = _index()
    if spec not in index:
        close = [n for n in index if spec.split("_")[0] in n][:5]
        hint = f"; did you mean {', '.join(close)}?" if close else "; `debench tasks` lists them"
        raise UserError(f"unknown task '{spec}'{hint}")
    return _load_shipped(spec), index[spec]


def _load_shipped(name: str) -> TaskConfig:
    path = _index()[name]
    task = load_task_file(path)
    if task.name != name:
        raise UserError(f"task file declares name '{task.name}'", path=str(path), field="name")
    return task


class ResolvedTask(NamedTuple):
    """A task to run and the file it was read from."""

    task: TaskConfig
    path: Path


@dataclass
class TaskSelection:
    """What a list of task specs resolved to."""

    tasks: list[ResolvedTask] = field(default_factory=list)
    """Every task once, in the order first named (a group's tasks sorted by name)."""
    groups: dict[str, list[str]] = field(default_factory=dict)
    """Each group named in the specs -> the names of its tasks (a summary is written per group)."""


class TaskIndex:
    """The shipped tasks plus every task file of the include paths, by name and by group."""

    def __init__(self, include_paths: Iterable[str | Path] = ()):
        self.tasks: dict[str, ResolvedTask] = {}
        for name in task_names():
            self._add(ResolvedTask(_load_shipped(name), _index()[name]))
        for folder in include_paths:
            for path in _folder_files(Path(folder), "--include-path"):
                self._add(ResolvedTask(load_task_file(path), path))

    def _add(self, entry: ResolvedTask) -> None:
        known = self.tasks.get(entry.task.name)
        if known is not None and known.path.resolve() != entry.path.resolve():
            raise UserError(
                f"task '{entry.task.name}' is also defined in {known.path}: give one of them another name",
                path=str(entry.path),
                field="name",
            )
        self.tasks[entry.task.name] = entry

    def groups(self) -> dict[str, list[str]]:
        """group -> its task names, sorted."""
        return group_members((name, entry.task.group) for name, entry in self.tasks.items())

    def lookup(self, name: str) -> tuple[list[ResolvedTask], str | None]:
        """(tasks, group name or None) for a task or group name."""
        groups = self.groups()
        if name in self.tasks and name in groups:
            raise UserError(f"'{name}' names both a task ({self.tasks[name].path}) and a group; rename one of them")
        if name in self.tasks:
            return [self.tasks[name]], None
        if name in groups:
            return [self.tasks[n] for n in groups[name]], name
        close = difflib.get_close_matches(name, [*self.tasks, *groups], n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else "; `debench tasks` lists tasks and groups"
        raise UserError(f"unknown task '{name}' (no task or group has that name){hint}", field="--task")


def group_members(tasks: Iterable[tuple[str, str | None]]) -> dict[str, list[str]]:
    """(task name, group) pairs -> group -> its task names, both sorted."""
    out: dict[str, list[str]] = {}
    for name, group in sorted(tasks):
        if group:
            out.setdefault(group, []).append(name)
    return dict(sorted(out.items()))


def _folder_files(folder: Path, option: str) -> list[Path]:
    """The task files of a folder; ``--include-path`` also takes one task file."""
    if option == "--include-path" and folder.is_file() and folder.suffix in YAML_SUFFIXES:
        return [folder]
    if not folder.is_dir():
        what = "a folder of task files or a task file" if option == "--include-path" else "a folder of task files"
        raise UserError(f"not {what}", path=str(folder), field=option)
    files = task_files(folder)
    if not files:
        raise UserError(
            "holds no task file (*.yaml, *.yml; names starting with '_' are include bases)",
            path=str(folder),
            field=option,
        )
    return files


def _shipped_alone(name: str, summaries: dict[str, TaskSummary]) -> ResolvedTask | None:
    """The shipped task ``name`` read and validated from its own file alone, when its file settles
    the name: no other shipped file declares it and no shipped task names it as its group (both read
    from the files' YAML alone, ``task_summaries``, kept in ``summaries`` for the next name). None
    otherwise: the index of every task decides (a group, a name both a task and a group, an unknown
    name with its hints). The caller passes no include path: their task files may declare the name
    or a group of that name too."""
    path = _index().get(name)
    if path is None:
        return None
    if not summaries:
        summaries.update(task_summaries())
    known = summaries.get(name)
    if known is None or known.path != path or any(s.group == name for s in summaries.values()):
        return None
    return ResolvedTask(_load_shipped(name), path)


def split_specs(specs: str | Sequence[str]) -> list[str]:
    """``"a,b"`` or ``["a", "b,c"]`` -> ``["a", "b", "c"]``."""
    parts = [specs] if isinstance(specs, str) else list(specs)
    return [s.strip() for part in parts for s in part.split(",") if s.strip()]


def resolve_tasks(specs: str | Sequence[str], include_paths: Sequence[str | Path] = ()) -> TaskSelection:
    """Task names, group names, task files and folders of task files -> the tasks to run.

    Every task file that runs is read and validated here, before any work. A folder (``--task DIR``)
    adds every task file in it; ``include_paths`` make their tasks (and groups) known by name. A
    shipped task named alone (no include path, no group of its name) is read from its own file: the
    other shipped files only as YAML, for their names and groups (``_shipped_alone``); any other
    name reads and validates every task file it could name (``TaskIndex``).
    """
    names = split_specs(specs)
    if not names:
        raise UserError("names no task", field="--task")
    selection = TaskSelection()
    seen: set[Path] = set()
    index: TaskIndex | None = None
    shipped: dict[str, TaskSummary] = {}

    def add(entries: Iterable[ResolvedTask]) -> None:
        for entry in entries:
            key = entry.path.resolve()
            if key not in seen:
                seen.add(key)
                selection.tasks.append(entry)

    for spec in names:
        path = Path(spec)
        if path.is_dir():
            add(ResolvedTask(load_task_file(p), p) for p in _folder_files(path, "--task"))
        elif _is_path(spec):
            add([ResolvedTask(*load_task(spec))])
        elif not include_paths and (alone := _shipped_alone(spec, shipped)) is not None:
            add([alone])
        else:
            index = index or TaskIndex(include_paths)
            entries, group = index.lookup(spec)
            add(entries)
            if group is not None:
                selection.groups[group] = [e.task.name for e in entries]
    if include_paths and index is None:
        TaskIndex(include_paths)  # the include paths are checked even when every spec is a file
    return selection


def task_summaries(include_paths: Iterable[str | Path] = ()) -> dict[str, TaskSummary]:
    """name -> (name, group, description, file) of the shipped tasks and those of the include
    paths, read without validating them (``debench tasks``: YAML only, no plug-in registry, no
    template engine; a task is validated when a command runs it)."""
    out: dict[str, TaskSummary] = {}
    files = [_index()[n] for n in task_names()] + [
        p for folder in include_paths for p in _folder_files(Path(folder), "--include-path")
    ]
    for path in files:
        summary = read_summary(path)
        known = out.get(summary.name)
        if known is not None and known.path.resolve() != path.resolve():
            raise UserError(
                f"task '{summary.name}' is also defined in {known.path}: give one of them another name",
                path=str(path),
                field="name",
            )
        out[summary.name] = summary
    return dict(sorted(out.items()))


def installed_task(name: str) -> TaskConfig | None:
    """The installed task called ``name``, or None when debench has no such task."""
    if name not in task_names():
        return None
    return load_task_file(tasks_dir() / f"{name}.yaml")


def named_task(name: str, include_paths: Sequence[str | Path] = ()) -> TaskConfig | None:
    """The task called ``name``: debench's own, or one of the include paths' (folders of task files
    or task files, as ``eval --include-path`` takes them), so a run of a user's task is validated
    against the file it was run with (``validate --include-path``); None when no task has that name."""
    if not include_paths:
        return installed_task(name)
    entry = TaskIndex(include_paths).tasks.get(name)
    return entry.task if entry is not None else None
