"""``debench score``: re-scoring predictions without a model."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from debench.cli.common import print_results_table


@click.command("score")
@click.option("--task", "task_spec", required=True, help="Task name or path to a task YAML file.")
@click.option("--predictions", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--output", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Score only the first N documents.")
@click.option("--data-source", type=click.Choice(["auto", "hub", "local", "sample"]), default="auto", show_default=True)
@click.option("--data-dir", default=None)
@click.option("--bootstrap", "n_bootstrap", type=click.IntRange(min=0), default=None)
def score_cmd(task_spec, predictions, output, limit, data_source, data_dir, n_bootstrap) -> None:  # type: ignore[no-untyped-def]
    """Re-score predictions without calling any model."""
    from debench.data.loading import load_task_data
    from debench.pipeline import build_results, select_docs
    from debench.predictions import load_predictions
    from debench.registry import load_task
    from debench.results import write_results

    task, path = load_task(task_spec)
    dataset = load_task_data(task, data_source, data_dir)
    docs = select_docs(dataset, limit)
    records = load_predictions(predictions, task, docs)
    results = build_results(
        task,
        {"name": f"predictions:{predictions.name}", "kind": "predictions"},
        dataset,
        docs,
        records,
        config={"task_file": str(path), "predictions": str(predictions), "limit": limit, "data_source": data_source, "command": sys.argv[1:]},
        n_requests=0,
        n_bootstrap=n_bootstrap,
        samples_file=None,
        method=task.method,
    )
    from debench.plots import speech_rating_plots

    results.plots = [p.name for p in speech_rating_plots(results, output)]
    write_results(results, output)
    print_results_table(results)
    click.echo(f"  results: {output}")
    for png in results.plots:
        click.echo(f"  plot:    {output.parent / png}")
