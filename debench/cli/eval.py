"""``debench eval``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from debench.cli.common import (
    BOOTSTRAP_OPTION,
    ENSEMBLE_OPTION,
    OUTPUT_DIR_OPTION,
    checked,
    command_options,
    connection_options,
    data_options,
    judge_spec,
    print_results_table,
    report_errors,
    run_options,
    run_until_done,
)
from debench.cli.tasks import include_path_option, include_paths
from debench.core.numeric import fmt, fmt_ci


@click.command("eval")
@click.option(
    "--task",
    required=True,
    help="Task or group name(s), task YAML files or folders of them, comma-separated.",
)
@include_path_option
@click.option(
    "--model",
    required=True,
    help="litellm model string, openai/<name> with --api-base, vllm/<model or path> (a vLLM server debench starts), "
    "gguf/<file>, local/smollm2, or baseline/<name> (docs/models.md), optionally with @key=value;... settings; "
    "several, comma-separated, with --ensemble.",
)
@ENSEMBLE_OPTION
@connection_options
@click.option(
    "--limit",
    type=checked("Limit"),
    default=None,
    help="Only the first N documents (its files are named apart: ..._limit<N>).",
)
@OUTPUT_DIR_OPTION
@click.option(
    "--method",
    type=checked("Method"),
    default=None,
    help="Judge method (default: the task's): direct, debatrix-h, debatrix-f, debatrix-h-scores, debatrix-f-scores, "
    "or an installed plug-in's (`debench plugins`).",
)
@data_options
@BOOTSTRAP_OPTION
@click.option(
    "--judging-manual",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Replace the judging guide of tasks that use one (DebateBench).",
)
@click.option(
    "--repeats",
    type=checked("Repeats"),
    default=1,
    show_default=True,
    help="Judge every document K times (seed + k) and report the judge's consistency.",
)
@click.option(
    "--force", is_flag=True, help="Allow --repeats at temperature 0 (to measure a provider's own nondeterminism)."
)
@click.option(
    "--batch",
    is_flag=True,
    help="Send the requests through the provider's batch API (OpenAI-compatible /v1/files + /v1/batches): cheaper, "
    "answers within 24 h; rerun the same command to resume a submitted batch.",
)
@click.option(
    "--batch-poll",
    type=checked("Seconds"),
    default=30.0,
    show_default=True,
    help="Seconds between two looks at a submitted batch.",
)
@click.option(
    "--batch-deadline",
    type=checked("Hours"),
    default=25.0,
    show_default=True,
    help="Hours to wait for a submitted batch before stopping (the batch is kept: rerun to collect it).",
)
@run_options
def eval_cmd(task, **values) -> None:
    """Evaluate a judge model on one or more tasks."""
    from debench.api import EvalOptions, aevaluate

    judge = judge_spec(values)
    opts = command_options(EvalOptions, {**values, "include_paths": include_paths()})
    outputs = run_until_done(lambda: aevaluate(task, judge, opts))
    failed = False
    for out in outputs:
        if out.repeats is not None:
            print_repeats(out.repeats)
            click.echo(f"  repeats: {out.repeats_path}")
            continue
        print_results_table(out.results)
        click.echo(f"  results: {out.results_path}\n  samples: {out.samples_path}")
        for plot in out.results.plots:
            click.echo(f"  plot:    {out.results_path.parent / plot}")
    for summary in dict.fromkeys(o.group_summary for o in outputs if o.group_summary is not None):
        click.echo(f"group summary: {summary}")
    for out in outputs:
        failed |= report_errors(out.results.task.name, out.errors, out.results.n_samples, opts.max_error_rate)
    if failed:
        sys.exit(1)


def print_repeats(r) -> None:
    a = r.agreement
    click.echo(
        f"{r.task.name} | {r.model.name} | {r.repeats} repeats (seeds {r.seeds[0]}..{r.seeds[-1]}, "
        f"temperature {r.temperature:g})"
    )
    click.echo(
        f"  agreement with the modal answer: mean {fmt(a.mean)} over {a.n_docs} documents, {a.n_unanimous} unanimous"
    )
    width = max([len(k) for k in r.majority_vote] + [6])
    click.echo(
        f"  {'metric':<{width}}  {'majority':>8}  {'95% CI':>19}  {'mean':>8}  {'sd':>8}  {'min':>8}  {'max':>8}"
    )
    for name, m in r.majority_vote.items():
        s = r.spread.get(name)
        ci = fmt_ci(m.ci95)
        cells = [fmt(s.mean), fmt(s.sd), fmt(s.min), fmt(s.max)] if s else ["—"] * 4
        click.echo(f"  {name:<{width}}  {fmt(m.value):>8}  {ci:>19}  " + "  ".join(f"{c:>8}" for c in cells))
