"""``debench generate-speeches`` and ``debench rate-speeches``."""

from __future__ import annotations

import sys
from pathlib import Path

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
from debench.core.errors import UserError
from debench.core.numeric import fmt_estimate


def _est(e) -> str:
    return "—" if e is None else fmt_estimate(e.value, e.ci95)


@click.command("generate-speeches")
@click.option("--model", required=True, help="The model that writes the speeches.")
@click.option(
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="CSV to write (id, topic, source, text).",
)
@click.option(
    "--topics",
    "topics_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="One topic per line (default: the IBM speeches' 76 topics).",
)
@click.option("--limit", type=checked("Limit"), default=None, help="Only the first N topics (sorted).")
@click.option(
    "--words",
    type=checked("Words"),
    default=600,
    show_default=True,
    help="Word limit; longer speeches lose sentences from the end.",
)
@click.option("--per-topic", type=checked("PerTopic"), default=2, show_default=True)
@click.option("--temperature", type=checked("Temperature"), default=1.0, show_default=True)
@click.option("--max-tokens", type=checked("SpeechTokens"), default=None, help="Default: 1024 per 600 words.")
@connection_options
@data_options
@run_options
def generate_speeches_cmd(output, topics_file, **values) -> None:
    """Write opening speeches supporting each topic (Debatable Intelligence §5.3), trimmed by sentences to the word
    limit. Speech k of a topic uses generation seed SEED+k."""
    from debench.models.factory import make_judge
    from debench.speeches.generate import GenerateOptions, generate_speeches, ibm_topics, read_topics, write_generated

    writer = judge_spec(values)
    opts = command_options(GenerateOptions, values)
    topics = read_topics(topics_file) if topics_file else ibm_topics(opts.data_source, opts.data_dir)
    if opts.limit is not None:
        topics = topics[: opts.limit]
    model = make_judge(writer, seed=opts.seed)
    out = run_with_judge(
        model, lambda: generate_speeches(model, topics, output, opts), saved="finished speeches are saved"
    )
    meta_path = write_generated(output, out, model, topics, opts, opts.command)
    click.echo(
        f"{len(out.rows)} speeches on {len(topics)} topics by {model.name} ({out.n_trimmed} "
        f"trimmed to {opts.words} words)"
    )
    click.echo(f"  speeches: {output}\n  settings: {meta_path}\n  log:      {out.log_path}")
    if report_errors("generate-speeches", out.errors, len(out.records), opts.max_error_rate):
        sys.exit(1)


@click.command("rate-speeches")
@click.option(
    "--speeches",
    "speeches_file",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="CSV with columns id, topic, source, text.",
)
@click.option("--model", required=True, help="The judge (several, comma-separated, with --ensemble).")
@ENSEMBLE_OPTION
@click.option(
    "--task",
    default="ibm_speech_likert",
    show_default=True,
    help="The speech-rating task whose prompt and parser are used.",
)
@click.option(
    "--limit",
    type=checked("Limit"),
    default=None,
    help="Only the first N topics of the file (sorted); the annotated speeches follow.",
)
@click.option(
    "--human-sources", default=None, help="Annotated sources to rate beside the file, comma-separated (default: all 8)."
)
@connection_options
@OUTPUT_DIR_OPTION
@click.option("--bootstrap", "n_bootstrap", type=checked("NBootstrap"), default=None)
@data_options
@run_options
def rate_speeches_cmd(speeches_file, task, human_sources, **values) -> None:
    """Rate a file of speeches beside the human-annotated IBM speeches on the same topics, with the same judge."""
    from debench.models.factory import make_judge
    from debench.run.task_lookup import load_task
    from debench.speeches.rate import RateOptions, rate_speeches

    task_config, path = load_task(task)
    sources = [s.strip() for s in human_sources.split(",") if s.strip()] if human_sources is not None else None
    if sources is not None and not sources:
        raise UserError("names no source", field="--human-sources")
    judge = judge_spec(values)
    opts = command_options(RateOptions, {**values, "human_sources": sources})
    model = make_judge(judge, seed=opts.seed)

    out = run_with_judge(model, lambda: rate_speeches(task_config, path, model, speeches_file, opts))
    r = out.report
    title = f"{r.task.name} | {r.model.name} | {len(r.topics)} topics"
    if r.human_data.is_sample:
        title += " | SAMPLE DATA"
    click.echo(title)
    width = max(len(s) for s in r.sources) + 2
    click.echo(f"  {'source':<{width}} {'n':>4} {'fail':>4}  {'judge mean [95% CI]':<22} {'human mean [95% CI]':<22}")
    order = sorted(r.sources.items(), key=lambda kv: (kv[1].origin != "speeches_file", -(kv[1].judge_mean.value or 0)))
    for name, s in order:
        click.echo(
            f"  {name:<{width}} {s.n_speeches:>4} {s.n_parse_failures + s.n_errors + s.n_not_completed:>4}  "
            f"{_est(s.judge_mean):<22} {_est(s.human_mean):<22}"
        )
    for c in r.comparisons:
        click.echo(f"  {c.source} minus {c.reference} (judge means): {_est(c.diff)}")
    click.echo(f"  report:  {out.report_path}\n  samples: {out.samples_path}")
    for plot in r.plots:
        click.echo(f"  plot:    {out.report_path.parent / plot}")
    if report_errors("rate-speeches", out.errors, out.n_samples, opts.max_error_rate):
        sys.exit(1)
