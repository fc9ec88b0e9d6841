"""The Python API: what ``debench eval`` and ``debench score`` do, as functions.

    import debench

    runs = debench.evaluate(["ibm_speech_likert"], model="baseline/random", limit=20, data_dir="../shared/datasets")
    runs[0].results.metrics["kendall_tau_c"].value     # a Results object (debench.scoring.results.Results)
    runs[0].results_path, runs[0].samples_path          # the files written, as the CLI writes them

    judge = debench.JudgeSpec(model="openai/llama3", api_base="http://127.0.0.1:8000/v1")
    options = debench.EvalOptions(limit=20, output_dir="runs", progress=False)
    runs = debench.evaluate("ibm_speech_likert", judge, options)   # the same, as objects

    results = debench.score("ibm_speech_likert", "preds.jsonl", output="scored.json")
    same = debench.load_results(runs[0].results_path)

A call's options are one object (``EvalOptions``, ``ScoreOptions``), made once where the call
comes in, from the keywords (typed: ``EvalKeywords``, ``ScoreKeywords``) or given whole, and
handed down; the judge is a ``JudgeSpec``, made into a model by ``debench.run.pipeline``.
``evaluate`` runs the tasks one after another with one judge and returns one ``Evaluation`` per
task (``aevaluate`` is the same coroutine for code that already runs an event loop); a group
named in ``tasks`` also gets its summary file (``Evaluation.group_summary``,
``debench.scoring.group_summary``). Errors a caller can fix raise ``debench.core.errors.UserError`` (the CLI
prints those in one line, exit 2). The CLI commands call these functions; nothing here prints.

May import: ``core``, ``task``, ``data``, ``models``, ``judging``, ``metrics``, ``scoring``, ``run``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar, Unpack

from debench.core.errors import UserError
from debench.core.options import (
    Concurrency,
    DataSource,
    Ensemble,
    Hours,
    JudgeSpec,
    Limit,
    Method,
    NBootstrap,
    Options,
    Repeats,
    Seconds,
    Seed,
    Share,
    check_keywords,
)
from debench.core.paths import portable_path
from debench.run.pipeline import (
    EvalOptions,
    EvalOutput,
    ScoreOptions,
    build_results,
    evaluate_tasks,
    select_docs,
    task_plugins,
)
from debench.task.config import TaskConfig

if TYPE_CHECKING:  # results (and scoring, numpy) are imported when a run is scored, not before it starts
    from debench.run.task_lookup import TaskSelection
    from debench.scoring.results import Results

Evaluation = EvalOutput
"""One task's run: ``results`` (a ``Results``), ``results_path``, ``samples_path``, ``errors``
(distinct error messages with their counts), with ``repeats`` > 1 the consistency report, and
``group_summary`` when the task ran as part of a group."""

TaskSpecs = str | Path | Sequence[str | Path]
"""Task names, group names, task files and folders of task files: comma-separated in one string, or a list."""

__all__ = [
    "EvalKeywords",
    "EvalOptions",
    "Evaluation",
    "JudgeSpec",
    "ScoreKeywords",
    "ScoreOptions",
    "aevaluate",
    "evaluate",
    "load_results",
    "resolve_tasks",
    "score",
]


class EvalKeywords(TypedDict, total=False):
    """``evaluate``'s keywords: the fields of ``JudgeSpec`` but its model, then those of
    ``EvalOptions`` (their defaults and checks; a path may be given as text, a list as any
    sequence). ``tests/test_python_api.py`` holds the two to the same names and types."""

    ensemble: Ensemble | None
    api_base: str | None
    api_key: str | None
    model_args: str | dict[str, Any] | None
    output_dir: str | Path
    limit: Limit | None
    data_source: DataSource
    data_dir: str | Path | None
    concurrency: Concurrency | None
    seed: Seed
    use_cache: bool
    cache_path: str | Path | None
    progress: bool
    max_error_rate: Share
    command: Sequence[str]
    method: Method | None
    n_bootstrap: NBootstrap | None
    store_messages: bool
    plots: bool
    repeats: Repeats
    force: bool
    batch: bool
    batch_poll: Seconds
    batch_deadline: Hours
    judging_manual: str | Path | None
    include_paths: Sequence[str | Path]


class ScoreKeywords(TypedDict, total=False):
    """``score``'s keywords: the fields of ``ScoreOptions`` (held to them by ``tests/test_python_api.py``)."""

    output: str | Path | None
    limit: Limit | None
    data_source: DataSource
    data_dir: str | Path | None
    n_bootstrap: NBootstrap | None
    plots: bool
    command: Sequence[str]


def resolve_tasks(tasks: TaskSpecs, include_paths: Sequence[str | Path] = ()) -> list[tuple[TaskConfig, Path]]:
    """Task names, group names, task files and folders of task files (comma-separated in one
    string, or a list; ``include_paths`` make more task files known by name); every task is loaded
    and validated before any work, and runs once (see ``debench.run.task_lookup.resolve_tasks``)."""
    return list(_selection(tasks, include_paths).tasks)


def _selection(tasks: TaskSpecs, include_paths: Sequence[str | Path]) -> TaskSelection:
    from debench.run.task_lookup import resolve_tasks as resolve

    if isinstance(tasks, (str, Path)):
        items: list[Any] = [tasks]
    elif isinstance(tasks, Sequence) and not isinstance(tasks, (bytes, bytearray)):
        items = list(tasks)
    else:
        items = [tasks]
    wrong = [t for t in items if not isinstance(t, (str, Path))]
    if wrong or not items:
        got = f"{type(wrong[0]).__name__} {wrong[0]!r}"[:80] if wrong else "nothing"
        raise UserError(
            f"tasks: expected a task name, a task file or folder (text or a Path), or a list of them; got {got}"
        )
    specs = [str(t) for t in items]
    return resolve(specs, include_paths)


OptionsT = TypeVar("OptionsT", bound=Options)


def _options(kind: type[OptionsT], given: OptionsT | None, values: dict[str, Any], default: dict[str, Any]) -> OptionsT:
    """``given`` (else options made from ``default``) with ``values`` on top, all checked."""
    if given is None:
        return kind.of(**{**default, **values})
    if not isinstance(given, kind):
        raise UserError(f"options: expected {kind.__name__}, got {type(given).__name__}")
    return given.updated(**values) if values else given


def _eval_request(
    model: str | JudgeSpec, options: EvalOptions | None, keywords: dict[str, Any]
) -> tuple[JudgeSpec, EvalOptions]:
    """The judge and the options of one ``aevaluate`` call: keywords naming a ``JudgeSpec`` field go
    to the judge, the others to the options; without ``options``, no progress bar (``progress=True``
    shows one)."""
    check_keywords("aevaluate", keywords, EvalKeywords.__annotations__)
    judged = {k: v for k, v in keywords.items() if k in JudgeSpec.model_fields}
    run = {k: v for k, v in keywords.items() if k not in judged}
    spec = model if isinstance(model, JudgeSpec) else None
    judge = _options(JudgeSpec, spec, judged if spec else {"model": model, **judged}, {})
    return judge, _options(EvalOptions, options, run, {"progress": False})


async def aevaluate(
    tasks: TaskSpecs,
    model: str | JudgeSpec,
    options: EvalOptions | None = None,
    **keywords: Unpack[EvalKeywords],
) -> list[Evaluation]:
    """Judge every document of every task with ``model`` (a model string, or a ``JudgeSpec``: several
    comma-separated models with ``ensemble``, the server, the model arguments); write results and
    samples under ``options.output_dir``. ``options`` are ``debench eval``'s (``EvalOptions``);
    ``keywords`` (``EvalKeywords``) build both, or change the ones given. ``tasks`` may name groups and
    folders of task files; ``include_paths`` are lm-eval's ``--include_path`` (their task files become
    known by name). Every task is read and checked before the judge is built. A group's summary
    (``group_<group>_<digest>.json``, beside its results) is written after its tasks, and named by
    their ``group_summary``. A bad value or an unknown keyword is a one-line ``UserError`` before any
    work, by the rules ``debench eval`` applies."""
    judge, opts = _eval_request(model, options, dict(keywords))
    selection = _selection(tasks, opts.include_paths)
    return await evaluate_tasks(selection, judge, opts)


def load_results(path: str | Path) -> Results:
    """A results file, validated (``debench.scoring.results.load_results``)."""
    from debench.scoring.results import load_results as read

    return read(path)


def evaluate(
    tasks: TaskSpecs,
    model: str | JudgeSpec,
    options: EvalOptions | None = None,
    **keywords: Unpack[EvalKeywords],
) -> list[Evaluation]:
    """``aevaluate`` run to completion (for scripts and notebooks without an event loop)."""
    return asyncio.run(aevaluate(tasks, model, options, **keywords))


def score(
    task: str | Path,
    predictions: str | Path,
    options: ScoreOptions | None = None,
    **keywords: Unpack[ScoreKeywords],
) -> Results:
    """Score a predictions file (JSONL: ``{"doc_id", "response"}`` or ``{"doc_id", "prediction"}``,
    or a samples log) without calling any model; written to ``options.output`` when given.
    ``options`` are ``debench score``'s (``ScoreOptions``); ``keywords`` (``ScoreKeywords``) build
    them, or change the ones given, checked by the same rules."""
    from debench.core.atomic import check_replaceable
    from debench.core.charts import speech_rating_plots
    from debench.data.loading import load_task_data
    from debench.run.task_lookup import task_file_label
    from debench.scoring.predictions import load_predictions
    from debench.scoring.results import write_results

    check_keywords("score", keywords, ScoreKeywords.__annotations__)
    opts = _options(ScoreOptions, options, dict(keywords), {})
    if opts.output is not None:
        check_replaceable(opts.output)  # a FIFO or a device stays what it is: refused before anything is written
    resolved = resolve_tasks([task])
    if len(resolved) != 1:
        raise UserError(f"names {len(resolved)} tasks; scoring takes one task", field="--task")
    ((task_cfg, path),) = resolved
    dataset = load_task_data(task_cfg, opts.data_source, opts.data_dir)
    docs = select_docs(dataset, opts.limit)
    records = load_predictions(Path(predictions), task_cfg, docs)
    results = build_results(
        task_cfg,
        {"name": f"predictions:{Path(predictions).name}", "kind": "predictions"},
        dataset,
        docs,
        records,
        config={
            "task_file": task_file_label(path),
            "predictions": portable_path(str(predictions)),
            "limit": opts.limit,
            "data_source": opts.data_source,
            "command": opts.command,
        },
        n_requests=0,
        n_bootstrap=opts.n_bootstrap,
        samples_file=None,
        method=task_cfg.method,
        plugins=task_plugins(task_cfg, None),
    )
    if opts.output is not None:
        if opts.plots:
            results.plots = [p.name for p in speech_rating_plots(results, opts.output)]
        write_results(results, opts.output)
    return results
