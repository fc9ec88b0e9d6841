"""CLI commands: ``debench leaderboard build`` and ``debench validate``.

Attached to the main group in ``debench.cli`` with ``main.add_command``.
"""

from __future__ import annotations

from pathlib import Path

import click


DEFAULT_REPORTED = Path("leaderboard/reported.json")


def spot_check_options(fn):  # type: ignore[no-untyped-def]
    fn = click.option("--api-key", default=None, envvar="DEBENCH_API_KEY", help="API key for the spot check's model (never written anywhere).")(fn)
    fn = click.option(
        "--spot-check-model-args", default=None, metavar="K=V,...",
        help="Settings of this machine for the re-judging models, e.g. tensor_parallel_size=4,vllm_command=PATH for vllm/ submissions "
        "(each model takes the keys its kind uses; one that changes a model's identity is a refusal).",
    )(fn)
    fn = click.option("--spot-check-seed", type=int, default=0, show_default=True, help="Seed of the draw of documents to re-judge.")(fn)
    return click.option(
        "--spot-check", type=click.IntRange(min=1), default=None, metavar="N",
        help="Re-judge N documents of each submission with its own model (no cache) and refuse it below 80% agreement.",
    )(fn)


def _spot_settings(n: int | None, seed: int, api_key: str | None, model_args: str | None):  # type: ignore[no-untyped-def]
    from debench.models.args import parse_model_args

    args = parse_model_args(model_args, "--spot-check-model-args") if model_args else None
    if n is None:
        return None
    from debench.leaderboard.spot_check import SpotCheckSettings

    return SpotCheckSettings(n=n, seed=seed, api_key=api_key, model_args=args)


@click.group("leaderboard")
def leaderboard_group() -> None:
    """Build the leaderboard from validated submissions."""


@leaderboard_group.command("build")
@click.option("--results", "results_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("leaderboard/submissions"), show_default=True, help="Folder of submissions (results files + samples logs), searched recursively.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("leaderboard"), show_default=True, help="Where leaderboard.json and index.html are written.")
@click.option("--data-dir", default=None, help="Local copies of the real data sets (default: $DEBENCH_DATA_DIR; else the Hub).")
@click.option("--skip-invalid", is_flag=True, help="Leave refused submissions out (and list them) instead of failing.")
@click.option("--reported", "reported_path", type=click.Path(dir_okay=False, path_type=Path), default=None, help=f"The papers' reported numbers, shown apart and unranked (default: {DEFAULT_REPORTED} when it exists).")
@spot_check_options
def build_cmd(results_dir: Path, out_dir: Path, data_dir: str | None, skip_invalid: bool, reported_path: Path | None, spot_check: int | None, spot_check_seed: int, spot_check_model_args: str | None, api_key: str | None) -> None:
    """Validate every submission and write leaderboard.json and index.html."""
    from debench.leaderboard.publish import build

    if reported_path is None and DEFAULT_REPORTED.is_file():
        reported_path = DEFAULT_REPORTED
    board, errors = build(results_dir, out_dir, data_dir=data_dir, skip_invalid=skip_invalid, reported_path=reported_path,
                          spot_check=_spot_settings(spot_check, spot_check_seed, api_key, spot_check_model_args))
    for err in errors:
        click.echo(f"debench: refused: {err}", err=True)
    n_entries = sum(len(t.entries) for t in board.tasks)
    click.echo(f"leaderboard: {n_entries} entries on {len(board.tasks)} task(s) from {board.n_submissions} submission(s), {len(board.reported.rows)} reported row(s)")
    click.echo(f"  {out_dir / 'leaderboard.json'}\n  {out_dir / 'index.html'}")


@click.command("validate")
@click.argument("submissions", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--data-dir", default=None, help="Local copies of the real data sets (default: $DEBENCH_DATA_DIR; else the Hub).")
@spot_check_options
@click.pass_context
def validate_cmd(ctx: click.Context, submissions: tuple[Path, ...], data_dir: str | None, spot_check: int | None, spot_check_seed: int, spot_check_model_args: str | None, api_key: str | None) -> None:
    """Check submissions: results files (or folders of them) and their samples logs.

    Every metric is recomputed from the samples on the real data and every prediction traced to
    its raw answer (a baseline's re-derived by running it); the model identity, method and run
    fingerprint must agree; at most 5% of documents may end in error or not completed; no key may
    be in any file; one result per model, method and task. Anything else refuses the submission
    (one line naming the file and field, exit code 2).
    """
    from debench.leaderboard.collect import validate_all
    from debench.leaderboard.validate import find_results_files

    ok, errors = validate_all(find_results_files(submissions), data_dir=data_dir, spot_check=_spot_settings(spot_check, spot_check_seed, api_key, spot_check_model_args))
    for sub in ok:
        r = sub.results
        scope = f"first {sub.n_docs} of {sub.n_docs_total} documents" if sub.partial else f"all {sub.n_docs} documents"
        basis = "baseline re-run" if sub.provenance.basis == "recomputed" else "responses traced, not spot-checked"
        if sub.provenance.spot_check is not None:
            basis = "responses traced, spot-checked"
        click.echo(f"ok: {sub.results_path}: {r.task.name} v{r.task.version} | {r.model.name} | {scope} | {len(r.metrics)} metrics recomputed and matched | {basis}")
    for err in errors:
        click.echo(f"debench: error: {err}", err=True)
    if errors:
        ctx.exit(2)
