"""``debench plugins``: every registered component (model kinds, metrics, judge methods, rating
methods), built-in or installed, with the package and version that provides it, and the entries
no one uses because they take a name debench (or another package) has."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from debench.core.entry_points import Clash, Declared

    Problems = dict[tuple[str, str], str]
    Refused = list[tuple[Clash, Declared]]


@click.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of {group, name, distribution, version}.")
@click.option(
    "--check",
    is_flag=True,
    help="Also import every component, check it against its group's interface and call each plug-in metric on a "
    "tiny synthetic input; exit 2 if one fails or two packages claim one name.",
)
def plugins_cmd(as_json: bool, check: bool) -> None:
    """List the model kinds, metrics, judge methods and rating methods debench can use."""
    from debench.core.entry_points import GROUPS, clashes, listing

    items = listing()
    problems = _problems(items) if check else {}
    refused = [(clash, other) for group in GROUPS for clash in clashes(group).values() for other in clash.others]
    if as_json:
        click.echo(json.dumps(_rows(items, problems, refused), indent=2))
    else:
        _print_table(items, problems, refused)
    if check and (problems or refused):
        raise SystemExit(2)


def _problems(items: list[Declared]) -> dict[tuple[str, str], str]:
    """(group, name) -> why the component does not fit its group's interface, for those that do not."""
    from debench.plugin_registries import component_problem

    problems: dict[tuple[str, str], str] = {}
    for item in items:
        problem = component_problem(item)
        if problem is not None:
            problems[item.group, item.name] = problem
    return problems


def _rows(items: list[Declared], problems: Problems, refused: Refused) -> list[dict[str, str]]:
    """``--json``: every component, then every entry a clash leaves unused (with why)."""
    rows = [
        {"group": i.group, "name": i.name, "distribution": i.distribution, "version": i.version}
        | ({"problem": problems[i.group, i.name]} if (i.group, i.name) in problems else {})
        for i in items
    ]
    return rows + [
        {"group": o.group, "name": o.name, "distribution": o.distribution, "version": o.version}
        | {"problem": c.message}
        for c, o in refused
    ]


def _print_table(items: list[Declared], problems: Problems, refused: Refused) -> None:
    """The listing by group: each component with its package and version, BROKEN and REFUSED entries said."""
    from debench.core.entry_points import GROUPS

    for group, kind in GROUPS.items():
        click.echo(f"{group} ({kind}s):")
        for i in (i for i in items if i.group == group):
            flag = f"  BROKEN: {problems[group, i.name]}" if (group, i.name) in problems else ""
            click.echo(f"  {i.name:<28} {i.distribution} {i.version}{flag}")
        for clash, other in ((c, o) for c, o in refused if c.group == group):
            click.echo(f"  {other.name:<28} {other.distribution} {other.version}  REFUSED: {clash.message}")
