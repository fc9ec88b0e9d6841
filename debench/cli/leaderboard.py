"""CLI commands: ``debench leaderboard build`` and ``debench validate``.

Attached to the main group in ``debench.cli`` with ``main.add_command``.
"""

from __future__ import annotations

from pathlib import Path

import click

from debench.errors import UserError


@click.group("leaderboard")
def leaderboard_group() -> None:
    """Build the leaderboard from validated submissions."""


@leaderboard_group.command("build")
@click.option("--results", "results_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("leaderboard/submissions"), show_default=True, help="Folder of submissions (results files + samples logs), searched recursively.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=Path("leaderboard"), show_default=True, help="Where leaderboard.json and index.html are written.")
@click.option("--data-dir", default=None, help="Local copies of the real data sets (default: $DEBENCH_DATA_DIR; else the Hub).")
@click.option("--skip-invalid", is_flag=True, help="Leave rejected submissions out (and list them) instead of failing.")
def build_cmd(results_dir: Path, out_dir: Path, data_dir: str | None, skip_invalid: bool) -> None:
    """Validate every submission and write leaderboard.json and index.html."""
    from debench.leaderboard.build import build

    board, errors = build(results_dir, out_dir, data_dir=data_dir, skip_invalid=skip_invalid)
    for err in errors:
        click.echo(f"debench: rejected: {err}", err=True)
    n_entries = sum(len(t.entries) for t in board.tasks)
    click.echo(f"leaderboard: {n_entries} entries on {len(board.tasks)} task(s) from {board.n_submissions} submission(s)")
    click.echo(f"  {out_dir / 'leaderboard.json'}\n  {out_dir / 'index.html'}")


@click.command("validate")
@click.argument("submissions", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--data-dir", default=None, help="Local copies of the real data sets (default: $DEBENCH_DATA_DIR; else the Hub).")
@click.pass_context
def validate_cmd(ctx: click.Context, submissions: tuple[Path, ...], data_dir: str | None) -> None:
    """Check submissions: results files (or folders of them) and their samples logs.

    Every metric is recomputed from the samples on the real data; any difference, a missing or
    duplicated document, another task version or data set, or a malformed file rejects the
    submission (one line naming the file and field, exit code 2).
    """
    from debench.leaderboard.validate import find_results_files, validate_submission

    rejected = 0
    for path in find_results_files(submissions):
        try:
            sub = validate_submission(path, data_dir=data_dir)
        except UserError as exc:
            rejected += 1
            click.echo(f"debench: error: {exc}", err=True)
            continue
        r = sub.results
        scope = f"first {sub.n_docs} of {sub.n_docs_total} documents" if sub.partial else f"all {sub.n_docs} documents"
        click.echo(f"ok: {path}: {r.task.name} v{r.task.version} | {r.model.name} | {scope} | {len(r.metrics)} metrics recomputed and matched")
    if rejected:
        ctx.exit(2)
