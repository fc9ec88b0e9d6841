"""``debench data fetch``: the real data sets, downloaded from their official sources into the cache."""

from __future__ import annotations

import sys

import click

from debench.cli.tasks import include_path_option, include_paths, selected_tasks


@click.group("data")
def data_group() -> None:
    """The data sets the tasks read."""


@data_group.command("fetch")
@click.argument("targets", nargs=-1)
@include_path_option
@click.option("--force", is_flag=True, help="Download again even when a checked copy is already in the cache.")
@click.option(
    "--allow-unverified",
    is_flag=True,
    help="Also fetch data sets for which the task ships no checksum (their content hash is recorded).",
)
@click.option("--no-progress", is_flag=True)
def fetch_cmd(targets: tuple[str, ...], force: bool, allow_unverified: bool, no_progress: bool) -> None:
    """Download the data sets of TARGETS (task or group names, task files; default: all) from their
    official sources, check them against the checksums the task files ship, and unpack them into
    $DEBENCH_CACHE_DIR/data (default ~/.cache/debench/data), where --data-source auto finds them."""
    from debench.data.fetch import Fetcher, fetch_targets
    from debench.run.task_lookup import TaskIndex

    specs = [t for t in targets if t != "all"]
    chosen = selected_tasks(",".join(specs)).tasks if specs else TaskIndex(include_paths()).tasks.values()
    todo, nothing = fetch_targets(entry.task for entry in chosen)
    if specs and nothing:
        click.echo(f"nothing to fetch for {', '.join(nothing)} (no dataset.fetch in the task file)")
    not_fetched = 0
    with Fetcher(force=force, allow_unverified=allow_unverified, progress=not no_progress) as fetcher:
        for target in todo:
            try:
                out = fetcher.fetch(target)
            except KeyboardInterrupt:
                click.echo(
                    f"debench: interrupted while fetching {target.local_dir}; nothing half-done was kept", err=True
                )
                sys.exit(130)
            head = f"{target.local_dir} ({len(target.tasks)} task(s))"
            if out.status == "skipped":
                not_fetched += 1
                click.echo(f"{head}: NOT fetched: {out.reason}", err=True)
                continue
            assert out.record is not None
            checked = " and ".join(out.record.checked) or "nothing (--allow-unverified)"
            what = "fetched" if out.status == "fetched" else "already fetched"
            click.echo(
                f"{head}: {what} from {out.record.source}\n  checked: {checked}; content hash "
                f"{out.record.content_hash}\n  in: {out.path}"
            )
    if not_fetched:
        sys.exit(1)
