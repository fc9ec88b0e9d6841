"""``debench tasks``."""

from __future__ import annotations

import click


@click.command("tasks")
def tasks_cmd() -> None:
    """List the tasks with one-line descriptions."""
    from debench.registry import task_summaries

    rows = task_summaries()  # read, not validated: listing stays instant (eval validates a task)
    width = max(len(name) for name, _ in rows)
    for name, description in rows:
        click.echo(f"{name:<{width}}  {description}")
