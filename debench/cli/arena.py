"""``debench arena`` and ``debench arena rank``."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from debench.cli.common import (
    OUTPUT_DIR_OPTION,
    checked,
    command_options,
    endpoint_options,
    report_errors,
    run_options,
    run_with_models,
)
from debench.core.ceilings import MAX_BOOTSTRAP, MAX_PERMUTATIONS
from debench.core.errors import UserError


@click.group("arena", invoke_without_command=True)
@click.option(
    "--models", default=None, help="Debaters, comma-separated; 'model@temperature=0.9' varies generation settings."
)
@click.option(
    "--judge",
    default=None,
    help="The judge; several, comma-separated, each decide every debate (or are combined with --ensemble majority).",
)
@click.option(
    "--ensemble",
    type=checked("ArenaEnsemble"),
    default=None,
    help="Combine the --judge models into one judge that votes on the winner.",
)
@click.option(
    "--topics",
    "topics_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="One question per line (or 'question | side 1 | side 2'), or YAML.",
)
@click.option(
    "--rounds",
    type=checked("Rounds"),
    default=4,
    show_default=True,
    help="Speeches per debate (side 1 opens, the last speaker concludes).",
)
@click.option(
    "--concurrency",
    type=checked("Concurrency"),
    default=4,
    show_default=True,
    help="Debates in flight (with --schedule adaptive: debates chosen per wave).",
)
@click.option(
    "--schedule",
    type=click.Choice(["round-robin", "adaptive"]),
    default="round-robin",
    show_default=True,
    help="round-robin: every pair on every topic, home and away; adaptive: at most --budget debates, each "
    "wave chosen to settle the ranking.",
)
@click.option(
    "--budget",
    type=checked("Limit"),
    default=None,
    help="With --schedule adaptive: the most debates to run (a rerun continues to it).",
)
@click.option(
    "--stop-when-separated",
    is_flag=True,
    help="With --schedule adaptive: stop early once every adjacent pair of the ranking is separated (95%).",
)
@endpoint_options
@click.option(
    "--max-tokens",
    type=checked("SpeechTokens"),
    default=350,
    show_default=True,
    help="Length cap of each speech (a debater's own max_tokens setting wins).",
)
@click.option("--reason", "ask_reason", is_flag=True, help="Also ask the judge for the main reason of its verdict.")
@click.option("--self-play", is_flag=True, help="Also let each model debate itself (reported apart, never ranked).")
@click.option("--rule", type=click.Choice(["strict", "lenient"]), default="strict", show_default=True)
@click.option(
    "--reference",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Reference ranking: one model per line, best first.",
)
@OUTPUT_DIR_OPTION
@run_options
@click.pass_context
def arena_group(
    ctx, /, models, judge, ensemble, topics_file, api_base, api_key, model_args, rule, reference, output_dir, **values
) -> None:
    """Models debate each other on every topic (home and away); judges decide; models are ranked."""
    if ctx.invoked_subcommand is not None:
        return
    if not models or not judge:
        raise UserError("debench arena needs --models and --judge (or the subcommand 'rank')")
    from debench.arena.judgments import load_reference
    from debench.arena.protocol import load_topics
    from debench.arena.run import run_arena
    from debench.arena.tournament import ArenaSettings
    from debench.core.options import JudgeSpec
    from debench.models.factory import make_judge, make_model, split_bases

    settings = command_options(ArenaSettings, values)
    seed = settings.seed
    bases = split_bases(api_base)
    names = [m.strip() for m in models.split(",") if m.strip()]
    if len(set(names)) != len(names):
        raise UserError(
            "--models lists a model twice; vary it with '@', e.g. local/smollm2@temperature=0.9", field="--models"
        )
    debaters = {
        name: make_model(name, api_bases=bases, api_key=api_key, model_args=model_args, seed=seed) for name in names
    }
    judge_specs = [j.strip() for j in judge.split(",") if j.strip()]
    if len(set(judge_specs)) != len(judge_specs):
        raise UserError("--judge lists a model twice", field="--judge")
    if ensemble:
        spec = JudgeSpec.of(model=judge, ensemble=ensemble, api_base=api_base, api_key=api_key, model_args=model_args)
        one = make_judge(spec, seed=seed)
        judges = {one.name: one}
    else:
        judges = {
            j: make_model(j, api_bases=bases, api_key=api_key, model_args=model_args, seed=seed) for j in judge_specs
        }
    topics = load_topics(topics_file)
    if reference is not None:
        load_reference(reference)  # read (or refused) before the first debate, not after the last
    out = run_with_models(
        [*debaters.values(), *judges.values()],
        lambda: run_arena(
            debaters, judges, topics, output_dir, settings, config={"command": settings.command, "seed": settings.seed}
        ),
        saved="finished debates are saved",
    )
    click.echo(
        f"{len(out.records)} debates, {len(judges)} judge(s): {out.n_judged} verdicts, {out.n_parse_failures} "
        f"unparseable, {out.n_errors} debates with errors, {out.n_not_completed} did not fit a context window"
    )
    if out.adaptive is not None:
        a = out.adaptive
        click.echo(
            f"adaptive schedule: {len(a.decisions)} of at most {a.budget} debates chosen in "
            f"{a.n_waves} waves; stopped: {a.stopped}"
        )
        click.echo(f"  schedule:    {out.out_dir / 'schedule.jsonl'} (each debate and why it was chosen)")
    click.echo(f"  transcripts: {out.out_dir / 'debates.jsonl'}\n  judgments:   {out.judgments_path}")
    if out.n_judged:
        _rank_and_report(
            out.judgments_path,
            rule,
            reference,
            out.out_dir / "ranking.json",
            out.out_dir / "bradley_terry.svg",
            1000,
            seed,
        )
    if report_errors("arena", out.errors, len(out.records), settings.max_error_rate):
        sys.exit(1)


def _rank_and_report(
    judgments, rule, reference, output, plot, n_boot, seed, controls=("length",), n_perm=10000, ratings=()
) -> None:
    from debench.arena.report import rank_files, summary_lines

    paths = [Path(judgments)] if isinstance(judgments, (str, Path)) else [Path(p) for p in judgments]
    result = rank_files(paths, rule, reference, output, plot, n_boot, seed, controls, n_perm, ratings)
    for line in summary_lines(result):
        click.echo(line)
    if plot:
        click.echo(f"  plot:    {plot}")
    click.echo(f"  ranking: {output}")


@arena_group.command("rank")
@click.option(
    "--judgments",
    required=True,
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="JSONL, one verdict on one debate per line; repeat for several files (e.g. one per judge).",
)
@click.option("--rule", type=click.Choice(["strict", "lenient"]), default="strict", show_default=True)
@click.option(
    "--reference", type=click.Path(dir_okay=False, path_type=Path), default=None, help="One model per line, best first."
)
@click.option("--output", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--plot",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the plain and style-controlled Bradley-Terry scores with their CIs as an SVG chart (a *.svg file).",
)
@click.option(
    "--control",
    type=click.Choice(["length", "length+sources", "none"]),
    default="length",
    show_default=True,
    help="Style covariates of the controlled ratings (words spoken; quoted sources).",
)
@click.option("--n-boot", type=click.IntRange(min=0, max=MAX_BOOTSTRAP), default=1000, show_default=True)
@click.option(
    "--n-perm",
    type=click.IntRange(min=0, max=MAX_PERMUTATIONS),
    default=10000,
    show_default=True,
    help="Permutations of the self-preference test.",
)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option(
    "--rating",
    "ratings",
    multiple=True,
    help="Also rate with this method (an entry point of debench.arena_ratings: win_rate, or an installed plug-in's; "
    "`debench plugins` lists them), written under ratings.NAME; repeatable.",
)
def arena_rank_cmd(judgments, rule, reference, output, plot, control, n_boot, n_perm, seed, ratings) -> None:
    """Rank models from saved judgments (from a run or from elsewhere; one judge or several)."""
    controls = () if control == "none" else tuple(control.split("+"))
    _rank_and_report(list(judgments), rule, reference, output, plot, n_boot, seed, controls, n_perm, tuple(ratings))
