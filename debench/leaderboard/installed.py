"""debench's own tasks, looked up by name in its task directory: a name in a submission or in the
reported-numbers file never points at a file of its own (``load_task`` would accept a path)."""

from __future__ import annotations

from debench.task import TaskConfig
from debench.task_files import load_task_file
from debench.task_lookup import task_names, tasks_dir


def installed_task(name: str) -> TaskConfig | None:
    """The installed task called ``name``, or None when debench has no such task."""
    if name not in task_names():
        return None
    return load_task_file(tasks_dir() / f"{name}.yaml")
