"""What every command shares: its options, the exit codes, result tables, running a judge, and
the one error reporter.

Exit codes: 0 done; 1 done, but more than ``--max-error-rate`` (default 5%) of the samples ended
in errors (results are written first); 2 a problem the user can fix (one line naming the file or
option: a ``UserError``, a file the user named that cannot be read or written, or a bad option —
click's usage errors are reported in the same one line); 130 interrupted (everything finished is
kept; rerun the same command to resume). Every refusal is listed in ``docs/errors.md``.

Option values are checked by the types of ``debench.core.options`` (``checked("Limit")``), the same
rules the Python API's options models apply."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from debench.core.errors import UserError
from debench.core.numeric import fmt, fmt_ci
from debench.core.paths import portable_argv

if TYPE_CHECKING:  # pydantic is imported when a command runs, not when the CLI starts
    from debench.core.options import JudgeSpec, Options

    OptionsT = TypeVar("OptionsT", bound=Options)


def recorded_command() -> list[str]:
    """This command line as result files record it: secrets are masked when the file is written,
    paths of this machine made portable here (``debench.core.paths``)."""
    return portable_argv(sys.argv[1:])


def judge_spec(values: dict[str, Any]) -> JudgeSpec:
    """The model a command names (``--model``, ``--ensemble``, ``--api-base``, ``--api-key``,
    ``--model-args``), taken out of click's ``values`` (the parameters are named as the fields)."""
    from debench.core.options import JudgeSpec

    return JudgeSpec.of(**{name: values.pop(name) for name in JudgeSpec.model_fields if name in values})


def command_options(kind: type[OptionsT], values: dict[str, Any]) -> OptionsT:
    """A command's options made from click's ``values`` in one place (its parameters are named as
    the fields, ``--no-cache`` as ``use_cache``...), with this command line as ``command``."""
    return kind.of(**values, command=recorded_command())


def print_results_table(results) -> None:
    r = results
    title = f"{r.task.name} (v{r.task.version}, {r.task.method}) | {r.model.name}"
    if r.dataset.is_sample:
        title += " | SAMPLE DATA"
    click.echo(title)
    width = max([len(k) for k in r.metrics] + [6])
    click.echo(f"  {'metric':<{width}}  {'value':>8}  {'95% CI':>19}  {'n':>5}")
    for name, m in r.metrics.items():
        ci = fmt_ci(m.ci95)
        why = f"  — {m.note}" if m.note else ""  # why a value or CI is missing
        click.echo(f"  {name:<{width}}  {fmt(m.value):>8}  {ci:>19}  {m.n:>5}{why}")
    click.echo(
        f"  samples {r.n_samples}  parse failures {r.n_parse_failures}  errors {r.n_errors}"
        f"  not completed {r.n_not_completed}  tokens {r.usage.total_tokens}"
        + (
            f" ({r.usage.cached_prompt_tokens} prompt tokens from the provider's cache)"
            if r.usage.cached_prompt_tokens
            else ""
        )
        + (f"  cost ${r.usage.cost_usd:.4f}" if r.usage.cost_usd is not None else "")
    )


def run_until_done(work, saved: str = "finished samples are saved"):
    """``asyncio.run(work())`` for work that closes its own models (the Python API's); Ctrl-C
    exits 130 with a line saying what was kept and how to resume."""
    import asyncio  # here: `debench tasks` and `--help` do not need it

    try:
        return asyncio.run(work())
    except KeyboardInterrupt:
        click.echo(f"debench: interrupted; {saved} — rerun the same command to resume", err=True)
        sys.exit(130)


def run_with_judge(model, work, saved: str = "finished samples are saved"):
    """``asyncio.run(work())``, closing the model's connections after it; Ctrl-C exits 130 with a
    line saying what was kept and how to resume."""
    return run_with_models([model], work, saved)


def run_with_models(models, work, saved: str = "finished samples are saved"):
    """``run_with_judge`` for a command with several models (the arena's debaters and judges)."""

    async def run():
        try:
            return await work()
        finally:
            for m in {id(m): m for m in models}.values():
                await m.aclose()

    return run_until_done(run, saved)


class checked(click.ParamType):  # type: ignore[type-arg, unused-ignore]  # generic from click 8.5; the 8.4 floor is not
    """A click type checked by one of ``debench.core.options``' types: the same range, choices and
    one-line message as the Python API. ``debench.core.options`` (pydantic) is imported when a value is
    checked or ``--help`` shows one, not when the CLI starts."""

    def __init__(self, type_name: str):
        self.type_name = type_name
        self.name = type_name.lower()

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from debench.core.options import check_value

        flag = max(param.opts, key=len) if param is not None and param.opts else self.name
        return check_value(self.type_name, value, flag)

    def get_metavar(self, param: click.Parameter, ctx: click.Context | None = None) -> str | None:
        from debench.core.options import metavar

        return metavar(self.type_name)


DEFAULT_MAX_ERROR_RATE = (
    0.05  # debench.core.options.DEFAULT_MAX_ERROR_RATE (not imported: the CLI starts without pydantic)
)


def report_errors(label: str, errors: Sequence[tuple[str, int]], n: int, max_error_rate: float) -> bool:
    """Print the distinct error messages with their counts; True when the share of errors is above
    ``max_error_rate`` (the command then exits 1, after writing everything)."""
    n_errors = sum(c for _, c in errors)
    if not n_errors:
        return False
    share = n_errors / n if n else 1.0
    click.echo(
        f"debench: {label}: {n_errors} of {n} ended in errors ({share:.1%}); rerun the same command to retry them:",
        err=True,
    )
    for message, count in errors[:10]:
        click.echo(f"  {count:>5} x {message}", err=True)
    if len(errors) > 10:
        click.echo(f"  ... and {len(errors) - 10} other messages", err=True)
    if share > max_error_rate:
        click.echo(
            f"debench: {label}: error share {share:.1%} is above --max-error-rate {max_error_rate:.1%}: exit code 1",
            err=True,
        )
        return True
    return False


def _stack(options: list[Callable[[Any], Any]]) -> Callable[[Any], Any]:
    def deco(fn: Any) -> Any:
        for opt in reversed(options):
            fn = opt(fn)
        return fn

    return deco


ENSEMBLE_OPTION = click.option(
    "--ensemble",
    type=checked("Ensemble"),
    default=None,
    help="Judge with every model in --model (comma-separated) and combine their parsed answers.",
)

OUTPUT_DIR_OPTION = click.option(
    "--output-dir", type=click.Path(file_okay=False, path_type=Path), default=Path("results"), show_default=True
)
"""Where a command's results go (eval, probe, speeches, arena, card)."""

BOOTSTRAP_OPTION = click.option(
    "--bootstrap",
    "n_bootstrap",
    type=checked("NBootstrap"),
    default=None,
    help="Bootstrap resamples for CIs (default: the task's, 1000).",
)

MODEL_ARGS_HELP = (
    "key=value,... Generation settings (temperature, top_p, top_k, min_p, max_tokens, seed, stop=a|b, "
    "presence_penalty, frequency_penalty, repetition_penalty) override the task's in every request; client "
    "settings: timeout, max_retries, base_delay, max_delay, connect_grace (seconds a refused connection is "
    "retried, default 20), client=auto|http|litellm, grammar=true, context_window, api_key; n_parallel, n_ctx, "
    "cache_prompt, n_threads (local/, gguf/); revision (vllm/, gguf/hf:); the vLLM server debench starts: "
    "tensor_parallel_size, data_parallel_size, max_model_len, gpu_memory_utilization, dtype, quantization, "
    "server_args, vllm_command, startup_timeout. A model kind refuses the keys it does not take (its declaration; "
    "`debench plugins` lists the kinds). See docs/models.md."
)

endpoint_options = _stack(
    [
        click.option(
            "--api-base",
            "api_base",
            default=None,
            help="OpenAI-compatible server URL; several, comma-separated, are load-balanced. With a vllm/ model: the "
            "vLLM server already running (none is started).",
        ),
        click.option(
            "--api-key",
            default=None,
            envvar="DEBENCH_API_KEY",
            help="API key (default: the provider's usual environment variable). Never written to any file.",
        ),
        click.option("--model-args", default=None, help=MODEL_ARGS_HELP),
    ]
)
"""How the models are reached: shared by every command that calls a model."""

connection_options = _stack(
    [
        endpoint_options,
        click.option(
            "--concurrency",
            type=checked("Concurrency"),
            default=None,
            help="Requests in flight (default: per model kind).",
        ),
    ]
)

data_options = _stack(
    [
        click.option("--data-source", type=checked("DataSource"), default="auto", show_default=True),
        click.option("--data-dir", default=None, help="Local copies of the data sets (default: $DEBENCH_DATA_DIR)."),
    ]
)

run_options = _stack(
    [
        click.option(
            "--seed", type=checked("Seed"), default=0, show_default=True, help="Seed for baselines and sampling."
        ),
        click.option(
            "--no-cache",
            "use_cache",
            is_flag=True,
            flag_value=False,
            default=True,
            help="Do not read or write the response cache.",
        ),
        click.option("--no-progress", "progress", is_flag=True, flag_value=False, default=True),
        click.option(
            "--max-error-rate",
            type=checked("Share"),
            default=DEFAULT_MAX_ERROR_RATE,
            show_default=True,
            help="Exit 1 (after writing everything) when more than this share of samples ended in errors.",
        ),
    ]
)


QUOTED_LINE = "  | "
"""A line a message quotes verbatim (a server's last log lines) starts with this, and is kept as a line."""


def report_error(message: str) -> None:
    """The one way debench refuses: one line on stderr (a message's own line breaks folded), secrets
    masked; only quoted lines (``QUOTED_LINE``, e.g. the log of a server that died) follow it."""
    from debench.core.redact import Redactor

    lines = message.split("\n")
    quoted = [line for line in lines if line.startswith(QUOTED_LINE)]
    head = " ".join(" ".join(line for line in lines if not line.startswith(QUOTED_LINE)).split())
    click.echo(Redactor().text("\n".join([f"debench: error: {head}", *quoted])), err=True)


def usage_line(exc: click.UsageError) -> str:
    """click's usage error (a bad or missing option, an unknown command) as one line naming the
    option, with where to read more, instead of click's usage text."""
    where = exc.ctx.command_path if exc.ctx is not None else "debench"
    return f"{exc.format_message()} (see '{where} --help')"


class OneLineError(click.ClickException):
    """A usage error shown as debench shows every refusal: one line, exit code 2."""

    exit_code = 2

    @classmethod
    def of(cls, exc: click.UsageError) -> click.ClickException:
        if isinstance(exc, click.exceptions.NoArgsIsHelpError):
            return exc  # `debench` alone: the help, as click shows it
        return cls(usage_line(exc))

    def show(self, file: Any = None) -> None:
        report_error(self.message)


def _stdout_fails() -> bool:
    """The standard output cannot be written (so the error came from it): one more line written
    and flushed fails too."""
    try:
        sys.stdout.write("\n")
        sys.stdout.flush()
    except OSError:
        return True
    return False


def _silence_stdout() -> None:
    """Point the standard output at the null device, so the interpreter's last flush of what is
    still in its buffer does not print an error on the way out."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # a stream without a file descriptor (a test's)
        pass


class DebenchGroup(click.Group):
    """Turns user errors into one line on stderr and exit code 2 (``UserError``, files the user
    named, and click's usage errors, which click would print as several lines of usage text); stops
    the servers a command started (``vllm/`` models) however it ends. ``lazy``: commands by name as
    ``module:attribute``, each imported when it is first looked up (``debench eval`` imports no other
    command's module; ``--help`` imports them all)."""

    def __init__(self, *args: Any, lazy: dict[str, str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy or {})

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.commands, *self.lazy})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in self.lazy:
            import importlib

            module, _, attribute = self.lazy[cmd_name].partition(":")
            self.add_command(getattr(importlib.import_module(module), attribute), cmd_name)
        return super().get_command(ctx, cmd_name)

    def resolve_command(self, ctx: click.Context, args: list[str]):
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib

            close = difflib.get_close_matches(name, self.list_commands(ctx), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f" (commands: {', '.join(self.list_commands(ctx))})"
            raise click.UsageError(f"no such command '{name}'{hint}", ctx)
        return super().resolve_command(ctx, args)

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent, **extra)
        except click.UsageError as exc:  # debench's own options (-v, --version)
            raise OneLineError.of(exc) from None

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """click's ``main``, with a standard output that cannot be written (a full device,
        ``debench tasks > /dev/full``) ended by one line and exit code 2, never a traceback; a
        closed pipe (``debench tasks | head -1``) ends quietly with exit code 1, as click ends it."""
        try:
            return super().main(*args, **kwargs)
        except OSError as exc:
            if exc.filename is not None or not _stdout_fails():
                raise
            _silence_stdout()
            report_error(f"cannot write the standard output ({exc.strerror or type(exc).__name__})")
            sys.exit(2)

    def invoke(self, ctx: click.Context):
        from debench.models.managed_server import server_scope

        try:
            os.getcwd()
        except FileNotFoundError:
            report_error(
                "the working folder no longer exists (it was deleted or moved): change to another folder and rerun"
            )
            ctx.exit(2)
        try:
            with server_scope():
                return super().invoke(ctx)
        except click.UsageError as exc:  # a command's options, or an unknown command
            raise OneLineError.of(exc) from None
        except UserError as exc:
            report_error(str(exc))
            ctx.exit(2)
        except OSError as exc:
            # a file or folder the user named or pointed at (read-only, missing, full disk): one
            # line; other failures keep their traceback (they are bugs to report)
            if exc.filename is None:
                raise
            where = exc.filename if exc.filename2 is None else f"{exc.filename} -> {exc.filename2}"
            report_error(f"{where}: {exc.strerror or type(exc).__name__}")
            ctx.exit(2)
