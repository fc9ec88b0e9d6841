"""``debench tasks``."""

from __future__ import annotations

import click


@click.command("tasks")
def tasks_cmd() -> None:
    """List the tasks with one-line descriptions."""
    from debench.registry import all_tasks

    tasks = all_tasks()
    width = max(len(t.name) for t in tasks)
    for t in tasks:
        click.echo(f"{t.name:<{width}}  {t.description.strip().splitlines()[0]}")
