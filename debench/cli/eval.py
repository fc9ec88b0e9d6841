"""``debench eval``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from debench.cli.common import ENSEMBLE_OPTION, print_results_table, run_with_judge
from debench.cli.tasks import include_path_option, selected_tasks
from debench.errors import UserError


def with_judging_manual(task, path: Path):  # type: ignore[no-untyped-def]
    """The task with its ``judging_manual`` prompt variable read from ``path``."""
    if "judging_manual" not in task.prompt.variables:
        raise UserError(f"task '{task.name}' uses no judging manual", field="--judging-manual")
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read the judging manual ({exc.__class__.__name__})", path=str(path)) from None
    variables = {**task.prompt.variables, "judging_manual": text}
    return task.model_copy(update={"prompt": task.prompt.model_copy(update={"variables": variables})})


@click.command("eval")
@click.option("--task", "task_spec", required=True, help="Task or group name(s), task YAML files or folders of them, comma-separated.")
@include_path_option
@click.option("--model", "model_spec", required=True, help="litellm model string, openai/<name> with --api-base, local/smollm2, or baseline/<name>; several, comma-separated, with --ensemble.")
@ENSEMBLE_OPTION
@click.option("--api-base", "api_base", default=None, help="OpenAI-compatible server URL; several, comma-separated, are load-balanced.")
@click.option("--api-key", default=None, envvar="DEBENCH_API_KEY", help="API key (default: the provider's usual environment variable).")
@click.option("--model-args", default=None, help="key=value,... e.g. timeout=60,max_retries=3,grammar=true,context_window=8192,n_parallel=2.")
@click.option("--limit", type=click.IntRange(min=1), default=None, help="Only the first N documents.")
@click.option("--concurrency", type=click.IntRange(min=1), default=None, help="Requests in flight for this model (default: per model kind).")
@click.option("--output-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("results"), show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for baselines and sampling.")
@click.option("--method", type=click.Choice(["direct", "debatrix-h", "debatrix-f"]), default=None, help="Judge method (default: the task's).")
@click.option("--data-source", type=click.Choice(["auto", "hub", "local", "sample"]), default="auto", show_default=True)
@click.option("--data-dir", default=None, help="Local copies of the data sets (default: $DEBENCH_DATA_DIR).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the response cache.")
@click.option("--bootstrap", "n_bootstrap", type=click.IntRange(min=0), default=None, help="Bootstrap resamples for CIs (default: the task's, 1000).")
@click.option("--max-error-rate", type=click.FloatRange(0, 1), default=None, help="Exit 1 if more than this share of samples ended in errors.")
@click.option("--judging-manual", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Replace the judging guide of tasks that use one (DebateBench).")
@click.option("--no-progress", is_flag=True)
def eval_cmd(task_spec, model_spec, ensemble, api_base, api_key, model_args, limit, concurrency, output_dir, seed, method, data_source, data_dir, no_cache, n_bootstrap, max_error_rate, judging_manual, no_progress) -> None:  # type: ignore[no-untyped-def]
    """Evaluate a judge model on one or more tasks."""
    from debench.pipeline import EvalOptions, evaluate_task

    selection = selected_tasks(task_spec)  # validate every task before any work
    tasks = selection.tasks
    if judging_manual is not None:
        tasks = [(with_judging_manual(t, judging_manual), p) for t, p in tasks]
    from debench.models.factory import make_judge

    model = make_judge(model_spec, ensemble, api_base=api_base, api_key=api_key, model_args=model_args, seed=seed, use_cache=not no_cache)
    opts = EvalOptions(
        output_dir=output_dir,
        limit=limit,
        concurrency=concurrency,
        seed=seed,
        data_source=data_source,
        data_dir=data_dir,
        use_cache=not no_cache,
        progress=not no_progress,
        method=method,
        n_bootstrap=n_bootstrap,
        command=sys.argv[1:],
    )

    async def run_all():  # type: ignore[no-untyped-def]
        return [await evaluate_task(task, path, model, opts) for task, path in tasks]

    outputs = run_with_judge(model, run_all)
    failed = False
    for out in outputs:
        print_results_table(out.results)
        click.echo(f"  results: {out.results_path}\n  samples: {out.samples_path}")
        for png in out.results.plots:
            click.echo(f"  plot:    {out.results_path.parent / png}")
        r = out.results
        if max_error_rate is not None and r.n_samples and r.n_errors / r.n_samples > max_error_rate:
            click.echo(
                f"debench: error rate {r.n_errors / r.n_samples:.3f} exceeds --max-error-rate {max_error_rate} on {r.task.name}",
                err=True,
            )
            failed = True
    from debench.group_summary import write_group_summaries

    for summary in write_group_summaries(selection.groups, [(o.results, o.results_path) for o in outputs]):
        click.echo(f"group summary: {summary}")
    if failed:
        sys.exit(1)
