"""``debench probe``: bias probes on any judge, printed as a table and written as a report."""

from __future__ import annotations

import sys

import click

from debench.cli.common import (
    ENSEMBLE_OPTION,
    OUTPUT_DIR_OPTION,
    checked,
    command_options,
    connection_options,
    data_options,
    judge_spec,
    report_errors,
    run_options,
    run_with_judge,
)
from debench.core.numeric import fmt_estimate


def _pct(r) -> str:
    return "—" if r.value is None else f"{fmt_estimate(r.value, r.ci95)} n={r.n}"


def print_probe_report(report) -> None:
    title = f"{report.task.name} | {report.model.name}"
    if report.dataset.is_sample:
        title += " | SAMPLE DATA"
    click.echo(title)
    for key, s in report.probes.items():
        o, p = s.original, s.probed
        click.echo(f"  {key}: {s.n_docs} documents ({s.n_not_applicable} not applicable)")
        click.echo(f"    flip rate              {_pct(s.flip_rate)}")
        chance = f" (chance {s.chance_share:.2f})" if s.chance_share is not None else ""
        click.echo(
            f"    last speaker's share   original {_pct(s.original_shares.last_speaker)}  probed "
            f"{_pct(s.probed_shares.last_speaker)}{chance}"
        )
        click.echo(
            f"    first speaker's share  original {_pct(s.original_shares.first_speaker)}  probed "
            f"{_pct(s.probed_shares.first_speaker)}"
        )
        click.echo(
            f"    longest side's share   original {_pct(s.original_shares.longest_side)}  probed "
            f"{_pct(s.probed_shares.longest_side)}"
        )
        if s.effect is not None:
            click.echo(f"    {s.effect.name:<22} {_pct(s.effect.rate)}")
        click.echo(
            f"    parse failures {o.parse_failure} / {p.parse_failure}  errors {o.error} / {p.error}"
            f"  not completed {o.not_completed} / {p.not_completed}  (original / probed)"
        )


@click.command("probe")
@click.option(
    "--task",
    required=True,
    help="Task name(s), comma-separated, or a task YAML file; the verdict must name a side.",
)
@click.option("--model", required=True, help="The judge (several, comma-separated, with --ensemble).")
@ENSEMBLE_OPTION
@click.option(
    "--probe",
    "probe_spec",
    default="all",
    show_default=True,
    help="Probes or aliases, comma-separated: swap (swap_sides, relabel_teams), length (pad_length, trim_length), "
    "inject, all; pad_length:1.5 sets an argument.",
)
@click.option("--limit", type=checked("Limit"), default=None, help="Only the first N documents.")
@click.option("--doc-ids", default=None, help="Only these documents (comma-separated doc_ids).")
@click.option(
    "--inject-text",
    default=None,
    help="The claim the inject probe places in a speech, with {side} (default: the task's answer "
    "format, e.g. 'Winner: {side}').",
)
@connection_options
@click.option("--method", type=checked("Method"), default=None)
@OUTPUT_DIR_OPTION
@data_options
@run_options
def probe_cmd(task, probe_spec, doc_ids, **values) -> None:
    """Bias probes: rerun debates with the speaking order swapped or the BP teams relabelled, one side
    padded or trimmed, or a verdict-claiming line injected; report verdict flips, position, length
    and injection statistics with 95% CIs. The seed also picks the inject probe's side."""
    from debench.cli.tasks import selected_tasks
    from debench.models.factory import make_judge
    from debench.probes.base import parse_probe_specs
    from debench.probes.run import ProbeOptions, run_probes

    tasks = selected_tasks(task).tasks
    specs = parse_probe_specs(probe_spec)
    judge = judge_spec(values)
    ids = [d.strip() for d in doc_ids.split(",") if d.strip()] if doc_ids else None
    opts = command_options(ProbeOptions, {**values, "doc_ids": ids})
    model = make_judge(judge, seed=opts.seed)

    async def run_all():
        return [await run_probes(t, p, model, specs, opts) for t, p in tasks]

    outputs = run_with_judge(model, run_all)
    for out in outputs:
        print_probe_report(out.report)
        click.echo(f"  report:  {out.report_path}\n  pairs:   {out.pairs_path}\n  samples: {out.samples_path}")
    failed = False
    for out in outputs:
        failed |= report_errors(f"probe {out.report.task.name}", out.errors, out.n_samples, opts.max_error_rate)
    if failed:
        sys.exit(1)
