"""What every command shares: the error-to-exit-code group, result tables, running a judge."""

from __future__ import annotations

import asyncio
import sys

import click

from debench.errors import UserError


def fmt(x: float | None) -> str:
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
        why = f"  — {m.note}" if m.note else ""  # why a value or CI is missing
        click.echo(f"  {name:<{width}}  {fmt(m.value):>8}  {ci:>19}  {m.n:>5}{why}")
    click.echo(
        f"  samples {r.n_samples}  parse failures {r.n_parse_failures}  errors {r.n_errors}"
        f"  not completed {r.n_not_completed}  tokens {r.usage.total_tokens}"
        + (f"  cost ${r.usage.cost_usd:.4f}" if r.usage.cost_usd is not None else "")
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
