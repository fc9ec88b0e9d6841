"""The ``debench`` command line."""

from __future__ import annotations

import asyncio
import logging
import sys
from pathlib import Path

import click

from debench.errors import UserError


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.4f}"


def print_results_table(results) -> None:  # type: ignore[no-untyped-def]
    r = results
    title = f"{r.task.name} (v{r.task.version}, {r.task.method}) | {r.model.name}"
    if r.dataset.is_sample:
        title += " | SAMPLE DATA"
    click.echo(title)
    width = max([len(k) for k in r.metrics] + [6])
    click.echo(f"  {'metric':<{width}}  {'value':>8}  {'95% CI':>19}  {'n':>5}")
    for name, m in r.metrics.items():
        ci = "—" if m.ci95 is None else f"[{m.ci95[0]:.4f}, {m.ci95[1]:.4f}]"
        click.echo(f"  {name:<{width}}  {_fmt(m.value):>8}  {ci:>19}  {m.n:>5}")
    click.echo(
        f"  samples {r.n_samples}  parse failures {r.n_parse_failures}  errors {r.n_errors}"
        f"  not completed {r.n_not_completed}  tokens {r.usage.total_tokens}"
        + (f"  cost ${r.usage.cost_usd:.4f}" if r.usage.cost_usd is not None else "")
    )


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


def make_judge(model_spec: str, ensemble: str | None, *, api_base: str | None, api_key: str | None, model_args: str | None, seed: int, use_cache: bool):  # type: ignore[no-untyped-def]
    """One model, or with ``--ensemble`` several comma-separated models combined into one judge."""
    from debench.models.factory import make_model, parse_model_args

    bases = [b.strip() for b in api_base.split(",")] if api_base else None
    specs = [m.strip() for m in model_spec.split(",") if m.strip()]
    if ensemble is None:
        if len(specs) != 1:
            raise UserError(f"--model names {len(specs)} models: combine them with --ensemble mean|median|majority", field="--model")
        return make_model(specs[0], api_bases=bases, api_key=api_key, model_args=parse_model_args(model_args), seed=seed)
    from debench.models.ensemble import make_ensemble

    return make_ensemble(
        specs,
        ensemble,
        lambda spec: make_model(spec, api_bases=bases, api_key=api_key, model_args=parse_model_args(model_args), seed=seed),
        use_cache=use_cache,
    )


def run_with_judge(model, work, saved: str = "finished samples are saved"):  # type: ignore[no-untyped-def]
    """``asyncio.run(work())``, closing the model's connections after it; Ctrl-C exits 130 with a
    line saying what was kept and how to resume."""

    async def run():  # type: ignore[no-untyped-def]
        try:
            return await work()
        finally:
            await model.aclose()

    try:
        return asyncio.run(run())
    except KeyboardInterrupt:
        click.echo(f"debench: interrupted; {saved} — rerun the same command to resume", err=True)
        sys.exit(130)


ENSEMBLE_OPTION = click.option(
    "--ensemble",
    type=click.Choice(["mean", "median", "majority"]),
    default=None,
    help="Judge with every model in --model (comma-separated) and combine their parsed answers.",
)


class DebenchGroup(click.Group):
    """Turns user errors into one line on stderr and exit code 2."""

    def invoke(self, ctx: click.Context):  # type: ignore[no-untyped-def]
        try:
            return super().invoke(ctx)
        except UserError as exc:
            click.echo(f"debench: error: {exc}", err=True)
            ctx.exit(2)


@click.group(cls=DebenchGroup)
@click.option("-v", "--verbose", count=True, help="More logging (-vv for debug).")
def main(verbose: int) -> None:
    """Benchmarks of language models as debate judges."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    for noisy in ("LiteLLM", "litellm", "httpx", "LiteLLM Router", "LiteLLM Proxy"):
        logging.getLogger(noisy).setLevel(max(level, logging.WARNING))


@main.command("tasks")
def tasks_cmd() -> None:
    """List the tasks with one-line descriptions."""
    from debench.registry import all_tasks

    tasks = all_tasks()
    width = max(len(t.name) for t in tasks)
    for t in tasks:
        click.echo(f"{t.name:<{width}}  {t.description.strip().splitlines()[0]}")


@main.command("eval")
@click.option("--task", "task_spec", required=True, help="Task name(s), comma-separated, or a path to a task YAML file.")
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
    from debench.evaluate import EvalOptions, evaluate_task
    from debench.registry import load_task

    specs = [s.strip() for s in task_spec.split(",") if s.strip()]
    tasks = [load_task(s) for s in specs]  # validate every task before any work
    if judging_manual is not None:
        tasks = [(with_judging_manual(t, judging_manual), p) for t, p in tasks]
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
    if failed:
        sys.exit(1)


@main.command("score")
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
    from debench.evaluate import build_results, select_docs
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


from debench.leaderboard.cli import leaderboard_group, validate_cmd  # noqa: E402

main.add_command(leaderboard_group)
main.add_command(validate_cmd)

from debench.probes.cli import probe_cmd  # noqa: E402
from debench.speeches.cli import generate_speeches_cmd, rate_speeches_cmd  # noqa: E402

main.add_command(probe_cmd)
main.add_command(generate_speeches_cmd)
main.add_command(rate_speeches_cmd)

@main.command("compare")
@click.argument("results_a", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("results_b", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--test", type=click.Choice(["bootstrap", "permutation"]), default="bootstrap", show_default=True)
@click.option("--n", "n_resamples", type=click.IntRange(min=100), default=10000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--data-dir", default=None, help="Local copies of the data sets (default: $DEBENCH_DATA_DIR).")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Also write the comparison as JSON.")
def compare_cmd(results_a, results_b, test, n_resamples, seed, data_dir, output) -> None:  # type: ignore[no-untyped-def]
    """Paired test of two runs of the same task on the same documents (A minus B)."""
    import json

    from debench.compare_runs import compare_runs

    res = compare_runs(results_a, results_b, test=test, n=n_resamples, seed=seed, data_dir=data_dir)
    click.echo(f"{res['task']}: A = {results_a}  B = {results_b}  ({res['n_common']} common documents, paired {test})")
    click.echo(f"  {'metric':<20} {'A':>8} {'B':>8} {'A-B':>8}  {'95% CI of A-B':>19}  {'p':>7}")
    for name, m in res["metrics"].items():
        ci = "—" if not m.get("ci95") else f"[{m['ci95'][0]:.4f}, {m['ci95'][1]:.4f}]"
        p = "—" if m["p_value"] is None else f"{m['p_value']:.4f}"
        click.echo(f"  {name:<20} {_fmt(m['a']):>8} {_fmt(m['b']):>8} {_fmt(m['diff']):>8}  {ci:>19}  {p:>7}")
    if output:
        output.write_text(json.dumps(res, indent=2) + "\n")


def _debater_spec(spec: str) -> tuple[str, dict[str, object]]:
    """``model@temperature=0.9;max_tokens=200`` -> (model string, generation overrides)."""
    from debench.models.factory import parse_model_args

    base, _, extra = spec.partition("@")
    overrides = parse_model_args(extra.replace(";", ",")) if extra else {}
    unknown = set(overrides) - {"temperature", "max_tokens", "top_p", "seed"}
    if unknown:
        raise UserError(f"--models {spec}: only temperature, max_tokens, top_p and seed can follow '@'")
    return base, overrides


@main.group("arena", invoke_without_command=True)
@click.option("--models", default=None, help="Debaters, comma-separated; 'model@temperature=0.9' varies generation settings.")
@click.option("--judge", default=None, help="The judge model.")
@click.option("--topics", "topics_file", type=click.Path(dir_okay=False, path_type=Path), default=None, help="One question per line (or 'question | side 1 | side 2'), or YAML.")
@click.option("--rounds", type=click.IntRange(min=2), default=4, show_default=True, help="Speeches per debate (side 1 opens, the last speaker concludes).")
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True, help="Debates in flight.")
@click.option("--api-base", default=None, help="OpenAI-compatible server URL(s) for openai/<name> models.")
@click.option("--model-args", default=None, help="key=value,... for every model (timeout, max_retries, ...).")
@click.option("--max-tokens", type=click.IntRange(min=16), default=350, show_default=True, help="Length cap of each speech.")
@click.option("--reason", is_flag=True, help="Also ask the judge for the main reason of its verdict.")
@click.option("--self-play", is_flag=True, help="Also let each model debate itself (reported apart, never ranked).")
@click.option("--rule", type=click.Choice(["strict", "lenient"]), default="strict", show_default=True)
@click.option("--reference", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Reference ranking: one model per line, best first.")
@click.option("--output-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("results"), show_default=True)
@click.option("--no-cache", is_flag=True)
@click.option("--no-progress", is_flag=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.pass_context
def arena_group(ctx, models, judge, topics_file, rounds, concurrency, api_base, model_args, max_tokens, reason, self_play, rule, reference, output_dir, no_cache, no_progress, seed) -> None:  # type: ignore[no-untyped-def]
    """Models debate each other on every topic (home and away); a judge decides; models are ranked."""
    if ctx.invoked_subcommand is not None:
        return
    if not models or not judge:
        raise UserError("debench arena needs --models and --judge (or the subcommand 'rank')")
    from debench.arena.run import run_arena
    from debench.arena.topics import load_topics
    from debench.arena.tournament import ArenaSettings
    from debench.models.factory import make_model, parse_model_args
    from debench.task import GenerationConfig

    args = parse_model_args(model_args)
    bases = [b.strip() for b in api_base.split(",")] if api_base else None
    names = [m.strip() for m in models.split(",") if m.strip()]
    if len(set(names)) != len(names):
        raise UserError("--models lists a model twice; vary it with '@', e.g. local/smollm2@temperature=0.9")
    debaters, overrides = {}, {}
    for name in names:
        spec, over = _debater_spec(name)
        debaters[name] = make_model(spec, api_bases=bases, model_args=dict(args), seed=seed)
        if over:
            overrides[name] = over
    judge_model = make_model(judge, api_bases=bases, model_args=dict(args), seed=seed)
    topics = load_topics(topics_file)
    settings = ArenaSettings(
        rounds=rounds, concurrency=concurrency, ask_reason=reason, self_play=self_play, use_cache=not no_cache,
        progress=not no_progress, debater_generation=GenerationConfig(temperature=0.0, max_tokens=max_tokens, seed=seed),
        debater_overrides=overrides,
    )
    out = run_arena(debaters, judge_model, topics, output_dir, settings)
    click.echo(f"{len(out.records)} debates: {out.n_judged} judged, {out.n_parse_failures} unparseable verdicts, "
               f"{out.n_errors} errors, {out.n_not_completed} did not fit a context window")
    click.echo(f"  transcripts: {out.out_dir / 'debates.jsonl'}\n  judgments:   {out.judgments_path}")
    if out.n_judged:
        _rank_and_report(out.judgments_path, rule, reference, out.out_dir / "ranking.json", out.out_dir / "bradley_terry.png", 1000, seed)


def _rank_and_report(judgments, rule, reference, output, plot, n_boot, seed) -> None:  # type: ignore[no-untyped-def]
    import json

    from debench.arena.judgments import load_judgments, load_reference
    from debench.arena.plot import plot_bradley_terry
    from debench.arena.rank import format_matrix, rank_judgments

    result = rank_judgments(load_judgments(judgments), rule, load_reference(reference) if reference else None, n_boot, seed)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    click.echo(f"win matrix (topics won by row against column, {rule} rule):")
    click.echo(format_matrix(result))
    click.echo("ranking: " + " > ".join(result["ranking"]))
    pb = result["position_bias"]
    if pb["side1_win_rate"] is not None:
        click.echo(f"judge position bias: side 1 won {pb['side1_win_rate']:.1%} of {pb['n_decided']} decided debates")
    if "kendall_tau_distance" in result and result["kendall_tau_distance"] is not None:
        click.echo(f"normalized Kendall tau distance to the reference: {result['kendall_tau_distance']:.4f}")
    if plot:
        plot_bradley_terry(result, plot)
        click.echo(f"  plot:    {plot}")
    click.echo(f"  ranking: {output}")


@arena_group.command("rank")
@click.option("--judgments", required=True, type=click.Path(dir_okay=False, path_type=Path), help="JSONL, one debate per line.")
@click.option("--rule", type=click.Choice(["strict", "lenient"]), default="strict", show_default=True)
@click.option("--reference", type=click.Path(dir_okay=False, path_type=Path), default=None, help="One model per line, best first.")
@click.option("--output", required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--plot", type=click.Path(dir_okay=False, path_type=Path), default=None, help="PNG of Bradley-Terry scores with CIs.")
@click.option("--n-boot", type=click.IntRange(min=0), default=1000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
def arena_rank_cmd(judgments, rule, reference, output, plot, n_boot, seed) -> None:  # type: ignore[no-untyped-def]
    """Rank models from saved judgments (from a run or from elsewhere)."""
    _rank_and_report(judgments, rule, reference, output, plot, n_boot, seed)


if __name__ == "__main__":
    main()
