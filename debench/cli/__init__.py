"""The ``debench`` command line: one module per command, each only parses options and hands
the work to the library (``debench.run.pipeline`` and friends).

May import: every package, ``api`` and ``plugin_registries``.
"""

from __future__ import annotations

import atexit
import gc
import logging

import click

from debench.cli.common import DebenchGroup

# A command runs once, then exits, and most of what it builds lives until then: the cyclic
# collector's default (a pass every 700 new objects, each pass over more of the ones that live on)
# cost ~0.2 s of CPU in a 2,048-document eval, half of it inside the request window, and its
# passes at the interpreter's exit ~0.15 s more. A pass now comes every 20,000 new objects, and
# what is alive at exit is frozen (left out of those last passes; the OS takes the memory back).
# Measured by ``python -m benchmarks`` (docs/performance.md).
gc.set_threshold(20_000, 10, 10)
atexit.register(gc.freeze)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    # debench.__version__, not click's package_name lookup: it also answers from a source tree
    # that is not installed (and reads the package metadata only when asked)
    if value and not ctx.resilient_parsing:
        from debench.core.version import debench_version

        click.echo(f"debench, version {debench_version()}")
        ctx.exit()


COMMANDS = {
    "tasks": "debench.cli.tasks:tasks_cmd",
    "eval": "debench.cli.eval:eval_cmd",
    "score": "debench.cli.score:score_cmd",
    "compare": "debench.cli.compare:compare_cmd",
    "arena": "debench.cli.arena:arena_group",
    "probe": "debench.cli.probe:probe_cmd",
    "card": "debench.cli.card:card_cmd",
    "generate-speeches": "debench.cli.speeches:generate_speeches_cmd",
    "rate-speeches": "debench.cli.speeches:rate_speeches_cmd",
    "leaderboard": "debench.cli.leaderboard:leaderboard_group",
    "validate": "debench.cli.leaderboard:validate_cmd",
    "data": "debench.cli.data:data_group",
    "view": "debench.cli.view:view_cmd",
    "plugins": "debench.cli.plugins:plugins_cmd",
}
"""Every command, as ``module:attribute``: a command's module is imported when the command is named
(its options built by click's decorators, its own imports): ~13 ms of CPU each ``debench eval`` spent
importing the other thirteen."""


@click.group(cls=DebenchGroup, lazy=COMMANDS)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and exit.",
)
@click.option("-v", "--verbose", count=True, help="More logging (-vv for debug).")
def main(verbose: int) -> None:
    """Benchmarks of language models as debate judges."""
    level = logging.WARNING - 10 * min(verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    for noisy in ("LiteLLM", "litellm", "httpx", "LiteLLM Router", "LiteLLM Proxy"):
        logging.getLogger(noisy).setLevel(max(level, logging.WARNING))
