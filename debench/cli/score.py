"""``debench score``: re-scoring predictions without a model."""

from __future__ import annotations

from pathlib import Path

import click

from debench.cli.common import checked, command_options, print_results_table


@click.command("score")
@click.option("--task", required=True, help="Task name or path to a task YAML file.")
@click.option("--predictions", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--output", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--limit", type=checked("Limit"), default=None, help="Score only the first N documents.")
@click.option("--data-source", type=checked("DataSource"), default="auto", show_default=True)
@click.option("--data-dir", default=None)
@click.option("--bootstrap", "n_bootstrap", type=checked("NBootstrap"), default=None)
def score_cmd(task, predictions, output, **values) -> None:
    """Re-score predictions without calling any model."""
    from debench.api import ScoreOptions, score

    opts = command_options(ScoreOptions, {**values, "output": output})
    results = score(task, predictions, opts)
    print_results_table(results)
    click.echo(f"  results: {output}")
    for plot in results.plots:
        click.echo(f"  plot:    {output.parent / plot}")
