"""``debench score``: re-scoring predictions without a model."""

from __future__ import annotations

from pathlib import Path

import click

from debench.cli.common import checked, print_results_table, recorded_command


@click.command("score")
@click.option("--task", "task_spec", required=True, help="Task name or path to a task YAML file.")
@click.option("--predictions", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--output", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--limit", type=checked("Limit"), default=None, help="Score only the first N documents.")
@click.option("--data-source", type=checked("DataSource"), default="auto", show_default=True)
@click.option("--data-dir", default=None)
@click.option("--bootstrap", "n_bootstrap", type=checked("NBootstrap"), default=None)
def score_cmd(task_spec, predictions, output, limit, data_source, data_dir, n_bootstrap) -> None:
    """Re-score predictions without calling any model."""
    from debench.api import score

    results = score(
        task_spec,
        predictions,
        output=output,
        limit=limit,
        data_source=data_source,
        data_dir=data_dir,
        n_bootstrap=n_bootstrap,
        command=recorded_command(),
    )
    print_results_table(results)
    click.echo(f"  results: {output}")
    for plot in results.plots:
        click.echo(f"  plot:    {output.parent / plot}")
