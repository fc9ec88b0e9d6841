"""``debench card``: a judge card, or two cards side by side."""

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
    report_errors,
    run_options,
    run_until_done,
)
from debench.cli.tasks import include_path_option, selected_tasks


def print_card(card) -> None:
    from debench.card.page import BADGE
    from debench.card.tables import sections

    click.echo(f"judge card: {card.model.name}")
    click.echo(f"  overall        {BADGE[card.overall.status]} — {card.overall.reason}")
    for s in sections(card):
        click.echo(f"  {s.name:<14} {BADGE[s.status]} — {s.reason}")
    if card.overall.advice:
        click.echo(f"  what to do: {card.overall.advice}")


def compare_cards(paths: tuple[str, str]) -> None:
    from debench.card.compare import compare_markdown
    from debench.card.model import load_card

    click.echo(compare_markdown(load_card(paths[0]), load_card(paths[1])), nl=False)


@click.command("card")
@click.option("--model", default=None, help="The judge (several, comma-separated, with --ensemble).")
@ENSEMBLE_OPTION
@click.option(
    "--tasks",
    "task_spec",
    default=None,
    help="Tasks or groups, comma-separated (default: ibm_speech_likert, debateart_winner, bp_top_team; for a "
    "baseline, those of them whose task file lists it).",
)
@include_path_option
@click.option("--method", type=checked("Method"), default=None, help="Judge method (default: each task's).")
@click.option("--limit", type=checked("Limit"), default=None, help="Only the first N documents of each task.")
@click.option(
    "--repeats",
    type=checked("Repeats"),
    default=2,
    show_default=True,
    help="Judge every document K more times for consistency (seed + k); 1: consistency not measured.",
)
@BOOTSTRAP_OPTION
@click.option("--force", is_flag=True, help="Repeat at temperature 0 too (the provider's own nondeterminism).")
@connection_options
@OUTPUT_DIR_OPTION
@click.option(
    "--card-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Where card.json, card.md and card.html go (default: <output-dir>/<model>/card_<digest>).",
)
@click.option(
    "--compare",
    nargs=2,
    default=None,
    metavar="A B",
    help="Show two cards (card.json files or their folders) side by side, and run nothing.",
)
@data_options
@run_options
def card_cmd(task_spec, compare, **values) -> None:
    """Can I trust this model to judge debates? Runs (or finds again) eval, repeats, bias probes and the
    memorization probe, and writes a judge card: agreement, replaceability, consistency, bias, memorization
    and cost, each with its threshold and a pass / warn / fail status (docs/studies.md)."""
    if compare:
        compare_cards(compare)
        return
    if not values.get("model"):
        raise click.UsageError("give --model (or --compare A B)")
    from debench.card.run import CardOptions, card_task_names, run_card

    tasks = selected_tasks(card_task_names(task_spec, values["model"])).tasks
    judge = judge_spec(values)
    opts = command_options(CardOptions, values)
    out = run_until_done(lambda: run_card(tasks, judge, opts))
    print_card(out.card)
    for path in out.files:
        click.echo(f"  {path.suffix[1:]:<5} {path}")
    if report_errors(f"card {out.card.model.name}", out.errors, out.n_samples, opts.max_error_rate):
        sys.exit(1)
