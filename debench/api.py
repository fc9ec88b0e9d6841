"""The Python API: what ``debench eval`` and ``debench score`` do, as functions.

    import debench

    runs = debench.evaluate(["ibm_speech_likert"], model="baseline/random", limit=20, data_dir="../shared/datasets")
    runs[0].results.metrics["kendall_tau_c"].value     # a Results object (debench.scoring.results.Results)
    runs[0].results_path, runs[0].samples_path          # the files written, as the CLI writes them

    results = debench.score("ibm_speech_likert", "preds.jsonl", output="scored.json")
    same = debench.load_results(runs[0].results_path)

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
from typing import TYPE_CHECKING, Any

from debench.core.errors import UserError
from debench.core.options import checked_keywords
from debench.core.paths import portable_path
from debench.run.pipeline import (
    EvalOptions,
    EvalOutput,
    ScoreOptions,
    build_results,
    evaluate_task,
    select_docs,
    with_judging_manual,
)
from debench.task.config import TaskConfig

if TYPE_CHECKING:  # results (and scoring, numpy) are imported when a run is scored, not before it starts
    from debench.run.task_lookup import TaskSelection
    from debench.scoring.results import Results

Evaluation = EvalOutput
"""One task's run: ``results`` (a ``Results``), ``results_path``, ``samples_path``, ``errors``
(distinct error messages with their counts), with ``repeats`` > 1 the consistency report, and
``group_summary`` when the task ran as part of a group."""

__all__ = ["Evaluation", "aevaluate", "evaluate", "load_results", "resolve_tasks", "score"]


def resolve_tasks(
    tasks: str | Path | Sequence[str | Path], include_paths: Sequence[str | Path] = ()
) -> list[tuple[TaskConfig, Path]]:
    """Task names, group names, task files and folders of task files (comma-separated in one
    string, or a list; ``include_paths`` make more task files known by name); every task is loaded
    and validated before any work, and runs once (see ``debench.run.task_lookup.resolve_tasks``)."""
    return list(_selection(tasks, include_paths).tasks)


def _selection(tasks: str | Path | Sequence[str | Path], include_paths: Sequence[str | Path]) -> TaskSelection:
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


@checked_keywords
async def aevaluate(
    tasks: str | Path | Sequence[str | Path],
    model: str,
    *,
    ensemble: str | None = None,
    api_base: str | None = None,
    api_key: str | None = None,
    model_args: str | dict[str, Any] | None = None,
    limit: int | None = None,
    concurrency: int | None = None,
    output_dir: str | Path = "results",
    seed: int = 0,
    method: str | None = None,
    data_source: str = "auto",
    data_dir: str | Path | None = None,
    use_cache: bool = True,
    n_bootstrap: int | None = None,
    judging_manual: str | Path | None = None,
    repeats: int = 1,
    force: bool = False,
    batch: bool = False,
    batch_poll: float = 30.0,
    batch_deadline: float = 25.0,
    progress: bool = False,
    command: Sequence[str] = (),
    include_paths: Sequence[str | Path] = (),
) -> list[Evaluation]:
    """Judge every document of every task with ``model`` (a model string, or several
    comma-separated with ``ensemble``); write results and samples under ``output_dir``.
    ``tasks`` may name groups and folders of task files; ``include_paths`` are lm-eval's
    ``--include_path`` (their task files become known by name). Every task is read and checked
    before the judge is built. A group's summary (``group_<group>_<digest>.json``, beside its
    results) is written after its tasks, and named by their ``group_summary``. The options are
    ``debench eval``'s, checked by the same rules (``debench.run.pipeline.EvalOptions``): a bad value or
    an unknown keyword is a one-line ``UserError`` before any work."""
    from debench.models.factory import make_judge

    opts = EvalOptions.of(
        output_dir=output_dir,
        limit=limit,
        concurrency=concurrency,
        seed=seed,
        data_source=data_source,
        data_dir=data_dir,
        use_cache=use_cache,
        progress=progress,
        method=method,
        n_bootstrap=n_bootstrap,
        repeats=repeats,
        force=force,
        batch=batch,
        batch_poll=batch_poll,
        batch_deadline=batch_deadline,
        command=list(command),
    )
    from debench.models.managed_server import server_scope

    selection = _selection(tasks, include_paths)
    resolved = [(t, p) for t, p in selection.tasks]
    if judging_manual is not None:
        resolved = [(with_judging_manual(t, Path(judging_manual)), p) for t, p in resolved]
    with server_scope():  # a vllm/ server started for this call stops with it (or with the command)
        judge = make_judge(model, ensemble, api_base=api_base, api_key=api_key, model_args=model_args, seed=seed)
        try:
            outputs = [await evaluate_task(task, path, judge, opts) for task, path in resolved]
        finally:
            await judge.aclose()
    _write_group_summaries(selection.groups, outputs)
    return outputs


def _write_group_summaries(groups: dict[str, list[str]], outputs: list[Evaluation]) -> None:
    """Each group's summary over its tasks' runs (repeated runs have their own report instead)."""
    if not groups:
        return
    from debench.scoring.group_summary import write_group_summaries  # imports the metrics (numpy): only after the run

    single = [o for o in outputs if o.repeats is None]
    for group, path in write_group_summaries(groups, [(o.results, o.results_path) for o in single]).items():
        for out in single:
            if out.results.task.name in groups[group]:
                out.group_summary = path


def load_results(path: str | Path) -> Results:
    """A results file, validated (``debench.scoring.results.load_results``)."""
    from debench.scoring.results import load_results as read

    return read(path)


def evaluate(tasks: str | Path | Sequence[str | Path], model: str, **options: Any) -> list[Evaluation]:
    """``aevaluate`` run to completion (for scripts and notebooks without an event loop)."""
    return asyncio.run(aevaluate(tasks, model, **options))


@checked_keywords
def score(
    task: str | Path,
    predictions: str | Path,
    *,
    output: str | Path | None = None,
    limit: int | None = None,
    data_source: str = "auto",
    data_dir: str | Path | None = None,
    n_bootstrap: int | None = None,
    plots: bool = True,
    command: Sequence[str] = (),
) -> Results:
    """Score a predictions file (JSONL: ``{"doc_id", "response"}`` or ``{"doc_id", "prediction"}``,
    or a samples log) without calling any model; written to ``output`` when given. The options are
    ``debench score``'s, checked by the same rules (``debench.run.pipeline.ScoreOptions``)."""
    from debench.core.charts import speech_rating_plots
    from debench.data.loading import load_task_data
    from debench.run.task_lookup import task_file_label
    from debench.scoring.predictions import load_predictions
    from debench.scoring.results import write_results

    opts = ScoreOptions.of(
        output=output,
        limit=limit,
        data_source=data_source,
        data_dir=data_dir,
        n_bootstrap=n_bootstrap,
        plots=plots,
        command=list(command),
    )
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
    )
    if opts.output is not None:
        if opts.plots:
            results.plots = [p.name for p in speech_rating_plots(results, opts.output)]
        write_results(results, opts.output)
    return results
