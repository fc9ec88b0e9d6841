"""``debench compare``: a paired test of two runs."""

from __future__ import annotations

from pathlib import Path

import click

from debench.cli.tasks import include_path_option, include_paths
from debench.core.ceilings import MAX_BOOTSTRAP
from debench.core.numeric import fmt, fmt_ci


@click.command("compare")
@click.argument("results_a", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("results_b", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--test", type=click.Choice(["bootstrap", "permutation"]), default="bootstrap", show_default=True)
@click.option("--n", "n_resamples", type=click.IntRange(min=100, max=MAX_BOOTSTRAP), default=10000, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--data-dir", default=None, help="Local copies of the data sets (default: $DEBENCH_DATA_DIR).")
@click.option(
    "--output", type=click.Path(dir_okay=False, path_type=Path), default=None, help="Also write the comparison as JSON."
)
@include_path_option
def compare_cmd(results_a, results_b, test, n_resamples, seed, data_dir, output) -> None:
    """Paired test of two runs of the same task on the same documents (A minus B): for each metric,
    which direction is better and which run wins (or that the difference is not significant at 0.05).
    A run of a task of your own: --include-path with its folder or file, as for eval."""
    import json

    from debench.core.atomic import write_atomic
    from debench.run.compare_runs import compare_runs

    res = compare_runs(
        results_a, results_b, test=test, n=n_resamples, seed=seed, data_dir=data_dir, include_paths=include_paths()
    )
    click.echo(f"{res['task']}: A = {results_a}  B = {results_b}  ({res['n_common']} common documents, paired {test})")
    click.echo(f"  {'metric':<20} {'better':<6} {'A':>8} {'B':>8} {'A-B':>8}  {'95% CI of A-B':>19}  {'p':>7}  verdict")
    for name, m in res["metrics"].items():
        ci, p = fmt_ci(m.get("ci95")), fmt(m["p_value"])
        click.echo(
            f"  {name:<20} {m['better']:<6} {fmt(m['a']):>8} {fmt(m['b']):>8} {fmt(m['diff']):>8}  "
            f"{ci:>19}  {p:>7}  {m['verdict']}"
        )
    if output:
        write_atomic(output, json.dumps(res, indent=2) + "\n")
