"""CLI commands: ``debench leaderboard build`` and ``debench validate``.

Named in ``debench.cli.COMMANDS``: imported when one of them is named.
"""

from __future__ import annotations

from pathlib import Path

import click

from debench.cli.tasks import include_path_option, include_paths

DEFAULT_REPORTED = Path("leaderboard/reported.json")
DEFAULT_TRUSTED = Path("leaderboard/trusted_endpoints.yaml")
DEFAULT_MAINTAINERS = Path("leaderboard/maintainers.yaml")

spot_check_model_args_option = click.option(
    "--spot-check-model-args",
    default=None,
    metavar="K=V,...",
    help="This machine's settings for the self-check's models, e.g. tensor_parallel_size=4,vllm_command=PATH for vllm/ "
    "entries (each model takes the keys its kind uses; one that changes a model's identity is a refusal).",
)


def _operator_args(text: str | None):  # ModelArgs, imported on use
    from debench.models.args import parse_model_args

    return parse_model_args(text, "--spot-check-model-args") if text else None


@click.group("leaderboard")
def leaderboard_group() -> None:
    """Build the leaderboard from validated submissions."""


@leaderboard_group.command("build")
@click.option(
    "--results",
    "results_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("leaderboard/submissions"),
    show_default=True,
    help="Folder of submissions: one folder of results files + samples logs each.",
)
@click.option(
    "--out",
    "out_dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("leaderboard"),
    show_default=True,
    help="Where leaderboard.json and index.html are written.",
)
@click.option(
    "--data-dir", default=None, help="Local copies of the real data sets (default: $DEBENCH_DATA_DIR; else the Hub)."
)
@click.option("--skip-invalid", is_flag=True, help="Leave refused submissions out (and list them) instead of failing.")
@click.option(
    "--reported",
    "reported_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"The papers' reported numbers, shown apart and unranked (default: {DEFAULT_REPORTED} when it exists).",
)
@click.option(
    "--trusted",
    "trusted_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"The endpoints that may verify an entry (default: {DEFAULT_TRUSTED} when it exists; "
    "else none: nothing is verified).",
)
@click.option(
    "--maintainers",
    "maintainers_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help=f"Budgets, allowlist and overall task set (default: {DEFAULT_MAINTAINERS} when it "
    "exists; else nothing is reproduced).",
)
def build_cmd(
    results_dir: Path,
    out_dir: Path,
    data_dir: str | None,
    skip_invalid: bool,
    reported_path: Path | None,
    trusted_path: Path | None,
    maintainers_path: Path | None,
) -> None:
    """Validate every submission, show what the leaderboard reproduced (its committed runs under
    leaderboard/reproduced/; the refresh job makes them), and write leaderboard.json and index.html."""
    from debench.leaderboard.publish import build

    if reported_path is None and DEFAULT_REPORTED.is_file():
        reported_path = DEFAULT_REPORTED
    if trusted_path is None and DEFAULT_TRUSTED.is_file():
        trusted_path = DEFAULT_TRUSTED
    if maintainers_path is None and DEFAULT_MAINTAINERS.is_file():
        maintainers_path = DEFAULT_MAINTAINERS
    queue = results_dir.parent / "queue.json"
    built = build(
        results_dir,
        out_dir,
        data_dir=data_dir,
        skip_invalid=skip_invalid,
        reported_path=reported_path,
        trusted_path=trusted_path,
        maintainers_path=maintainers_path,
        queue_path=queue if queue.is_file() else None,
    )
    for err in built.errors:
        click.echo(f"debench: refused: {err}", err=True)
    board = built.board
    n_entries = sum(len(t.entries) for t in board.tasks)
    n_verified = sum(len(t.verified) for t in board.tasks)
    click.echo(
        f"leaderboard: {n_entries} entries ({n_verified} verified) on {len(board.tasks)} task(s) from "
        f"{board.n_submissions} submission(s), {len(board.reported.rows)} reported row(s)"
    )
    click.echo(f"  {out_dir / 'leaderboard.json'}\n  {out_dir / 'index.html'}")


@click.command("validate")
@click.argument("submissions", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--data-dir", default=None, help="Local copies of the real data sets (default: $DEBENCH_DATA_DIR; else the Hub)."
)
@click.option(
    "--spot-check",
    type=click.IntRange(min=1),
    default=None,
    metavar="N",
    help="Self-check: re-judge N documents of each submission through the endpoint its identity names (no cache) and "
    "refuse it below 80% agreement. This verifies nothing: after the merge the leaderboard runs allowlisted "
    "models itself on every document.",
)
@click.option(
    "--spot-check-seed", type=int, default=0, show_default=True, help="Seed of the self-check's draw of documents."
)
@click.option(
    "--api-key",
    default=None,
    envvar="DEBENCH_API_KEY",
    help="API key for the self-check's model (never written anywhere).",
)
@spot_check_model_args_option
@include_path_option
@click.pass_context
def validate_cmd(
    ctx: click.Context,
    submissions: tuple[Path, ...],
    data_dir: str | None,
    spot_check: int | None,
    spot_check_seed: int,
    api_key: str | None,
    spot_check_model_args: str | None,
) -> None:
    """Check submissions: results files (or folders of them) and their samples logs.

    Every metric is recomputed from the samples on the real data and every prediction traced to
    its raw answer (a baseline's re-derived by running it); every prompt must be the installed
    task's; the model identity, method and run fingerprint must agree; at most 5% of documents may
    end in error or not completed; no key and no absolute path of your machine may be in any file;
    one result per model, method and task. A folder is checked whole: regular files only, each
    accounted for by a results file. Anything else refuses the submission (one line naming the file
    and field, exit code 2). Passing validation does not rank an entry: only the leaderboard's own
    run of every document, through an endpoint the maintainers trust, is ranked (docs/leaderboard.md).
    A run of a task of your own is checked against its file with --include-path (folder or file), as
    for eval (the leaderboard takes only debench's own tasks).
    """
    from debench.core.errors import UserError
    from debench.core.redact import remember_secret
    from debench.leaderboard.self_check import self_check
    from debench.leaderboard.validate import find_results_files, validate_all

    remember_secret(api_key)
    operator = _operator_args(spot_check_model_args)
    folders = any(p.is_dir() for p in submissions)
    ok, errors = validate_all(
        find_results_files(submissions), data_dir=data_dir, folders=folders, include_paths=include_paths()
    )
    for sub in ok:
        r = sub.results
        scope = f"first {sub.n_docs} of {sub.n_docs_total} documents" if sub.partial else f"all {sub.n_docs} documents"
        basis = (
            "baseline re-run"
            if sub.provenance.basis == "recomputed"
            else "responses traced, not reproduced (only the leaderboard's own run of it can be ranked)"
        )
        if spot_check is not None and sub.provenance.basis != "recomputed":
            try:
                agreement = self_check(sub, spot_check, spot_check_seed, api_key, operator)
            except UserError as exc:
                errors.append(exc)
                continue
            basis += f"; self-check {agreement:.0%} at its own endpoint (not a verification)"
        click.echo(
            f"ok: {sub.results_path}: {r.task.name} v{r.task.version} | {r.model.name} | {scope} | {len(r.metrics)} "
            f"metrics recomputed and matched | {basis}"
        )
    for err in errors:
        click.echo(f"debench: error: {err}", err=True)
    if errors:
        ctx.exit(2)
