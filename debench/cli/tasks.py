"""``debench tasks``, and the ``--include-path`` option every command that takes ``--task`` shares."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from debench.run.task_lookup import TaskSelection

_INCLUDE_PATHS = "debench.include_paths"


def _remember(ctx: click.Context, _param: click.Parameter, value: tuple[str, ...]) -> None:
    ctx.meta[_INCLUDE_PATHS] = value


def include_path_option(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``--include-path DIR`` (repeatable): the task files in DIR (or the one task file given) become
    tasks (and groups) known by name, as lm-eval's ``--include_path``. Read back with
    ``selected_tasks`` or ``include_paths``."""
    return click.option(
        "--include-path",
        multiple=True,
        expose_value=False,
        callback=_remember,
        type=click.Path(),
        help="A folder of task YAML files, or one task file, whose tasks and groups can then be named (repeatable).",
    )(fn)


def include_paths() -> tuple[str, ...]:
    """This command's ``--include-path`` values."""
    return tuple(click.get_current_context().meta.get(_INCLUDE_PATHS, ()))


def selected_tasks(task_spec: str) -> TaskSelection:
    """``--task`` (names, groups, files, folders; comma-separated) with this command's include paths."""
    from debench.run.task_lookup import resolve_tasks

    return resolve_tasks(task_spec, include_paths())


@click.command("tasks")
@include_path_option
def tasks_cmd() -> None:
    """List the tasks with their group and a one-line description, then the groups."""
    from debench.run.task_lookup import group_members, task_summaries

    tasks = task_summaries(
        include_paths()
    )  # read, not validated: listing stays instant (a command running a task validates it)
    groups = group_members((s.name, s.group) for s in tasks.values())
    width = max(len(n) for n in [*tasks, "task"])
    gwidth = max(len(g) for g in [*groups, "group"])
    click.echo(f"{'task':<{width}}  {'group':<{gwidth}}  description")
    for name, s in tasks.items():
        click.echo(f"{name:<{width}}  {s.group or '—':<{gwidth}}  {s.description}")
    click.echo("\ngroups (--task GROUP runs every task of the group and writes a group summary):")
    for group, members in groups.items():
        click.echo(f"  {group:<{gwidth}}  {len(members)} task(s): {', '.join(members)}")
