"""``debench view RESULTS.json``: an offline HTML report of one run."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("view")
@click.argument("results", type=click.Path(path_type=Path))
@click.option(
    "--output",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to write the page (default: beside the results, .html).",
)
@click.option(
    "--data-dir",
    default=None,
    help="Local copies of the data sets, to show the debate texts (default: $DEBENCH_DATA_DIR, then fetched copies).",
)
def view_cmd(results: Path, output: Path | None, data_dir: str | None) -> None:
    """Write a static, self-contained HTML report of one run: metrics with CIs, a confusion matrix
    or score scatter, and every sample (filterable by wrong / parse failure / error, searchable).
    Given an arena run's folder (arena_<key>/), every debate with each judge's verdict side by side."""
    from debench.view.render import write_arena_view, write_view

    if results.is_dir():
        click.echo(f"report: {write_arena_view(results, output)}")
    else:
        click.echo(f"report: {write_view(results, output, data_dir=data_dir)}")
