"""``debench plugins``: every registered component (model kinds, metrics, judge methods, rating
methods), built-in or installed, with the package that provides it."""

from __future__ import annotations

import json

import click


@click.command("plugins")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of {group, name, distribution}.")
@click.option(
    "--check",
    is_flag=True,
    help="Also import every component and check it against its group's interface (exit 2 if one fails).",
)
def plugins_cmd(as_json: bool, check: bool) -> None:
    """List the model kinds, metrics, judge methods and rating methods debench can use."""
    from debench.core.entry_points import GROUPS, listing
    from debench.core.errors import UserError

    items = listing()
    problems: dict[tuple[str, str], str] = {}
    if check:
        from debench.plugin_registries import registry_of

        for item in items:
            try:
                registry_of(item.group).get(item.name)
            except UserError as exc:
                problems[item.group, item.name] = str(exc)
    if as_json:
        rows = [
            {"group": i.group, "name": i.name, "distribution": i.distribution}
            | ({"problem": problems[i.group, i.name]} if (i.group, i.name) in problems else {})
            for i in items
        ]
        click.echo(json.dumps(rows, indent=2))
    else:
        for group, kind in GROUPS.items():
            click.echo(f"{group} ({kind}s):")
            for i in (i for i in items if i.group == group):
                flag = f"  BROKEN: {problems[group, i.name]}" if (group, i.name) in problems else ""
                click.echo(f"  {i.name:<28} {i.distribution}{flag}")
    if problems:
        raise SystemExit(2)
