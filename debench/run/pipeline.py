"""The pipeline every command composes: task + data + judge + runner + scoring + report writing.

``evaluate_tasks`` is ``debench eval`` (and ``debench.evaluate``): it makes the judge from its
``JudgeSpec`` and runs ``evaluate_task`` for each task; ``probe``, ``rate-speeches`` and ``validate``
use the same pieces (``run_samples``, ``run_config``, ``task_info``, ``build_results``...). No CLI concerns here."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from pydantic import Field

from debench.core.atomic import write_json_record
from debench.core.entry_points import PluginIdentity, declared
from debench.core.errors import UserError
from debench.core.options import (
    DataOptions,
    Hours,
    JobOptions,
    JudgeSpec,
    Method,
    NBootstrap,
    Repeats,
    Seconds,
)
from debench.core.user_files import JUDGING_MANUAL, read_text
from debench.data.base import Doc, LoadedDataset
from debench.data.loading import Documents, run_documents
from debench.data.prompts import check_templates
from debench.data.samples import SampleRecord
from debench.judging.base import get_method
from debench.models.base import Model
from debench.models.factory import make_judge
from debench.models.managed_server import server_scope
from debench.run.runner import RunSettings, error_summary, run_fingerprint, run_samples
from debench.run.task_lookup import TaskSelection, task_file_label
from debench.task.config import TaskConfig

if (
    TYPE_CHECKING
):  # scoring, results, plots and repeats are imported after the last answer, not before the first request
    from debench.scoring.repeats import RepeatsReport
    from debench.scoring.results import DatasetInfo, Results, TaskInfo, UsageInfo


ReportT = TypeVar("ReportT")


class RunOptions(JobOptions, DataOptions):
    """What every command that runs a judge over a task's documents takes (eval, probe,
    rate-speeches): typed and checked once for the CLI and the API (``debench.core.options``)."""

    output_dir: Path = Path("results")

    def model_dir(self, model: Model) -> Path:
        """Where a run's files for ``model`` go."""
        return Path(self.output_dir) / slug(model.name)

    def run_settings(self, model: Model, method: str, **extra: Any) -> RunSettings:
        """The runner's settings: ``--concurrency`` or the model's default, the cache, the progress bar."""
        return RunSettings(
            concurrency=self.concurrency or model.default_concurrency,
            use_cache=self.use_cache,
            cache_path=self.cache_path,
            progress=self.progress,
            method=method,
            **extra,
        )


class EvalOptions(RunOptions):
    """``debench eval`` and ``debench.evaluate``: every option but the task and the judge
    (``JudgeSpec``)."""

    FLAGS: ClassVar[dict[str, str]] = {"n_bootstrap": "--bootstrap", "include_paths": "--include-path"}

    method: Method | None = None
    n_bootstrap: NBootstrap | None = None
    store_messages: bool = True
    plots: bool = True
    """Speech-rating tasks: score-distribution and per-source plots beside the results."""
    repeats: Repeats = 1
    """Judge each document this many times (``debench.scoring.repeats``)."""
    force: bool = False
    """Allow ``repeats`` at temperature 0."""
    batch: bool = False
    """Send the requests through the provider's batch API (``debench.models.batched``)."""
    batch_poll: Seconds = 30.0
    """Seconds between two looks at a submitted batch."""
    batch_deadline: Hours = 25.0
    """Hours a run waits for its batches (a provider promises 24 h) before it stops with one line;
    the batches are kept and a rerun collects them."""
    judging_manual: Path | None = None
    """Replaces the judging guide of the tasks that use one (``with_judging_manual``)."""
    include_paths: list[Path] = Field(default_factory=list)
    """Folders of task files whose tasks (and groups) the task names may name (``--include-path``)."""


class ScoreOptions(DataOptions):
    """``debench score`` and ``debench.score``: predictions scored against the first ``limit``
    documents."""

    FLAGS: ClassVar[dict[str, str]] = {"n_bootstrap": "--bootstrap"}

    output: Path | None = None
    n_bootstrap: NBootstrap | None = None
    plots: bool = True
    command: list[str] = Field(default_factory=list)


@dataclass
class EvalOutput:
    results: Results
    results_path: Path
    samples_path: Path
    errors: list[tuple[str, int]] = field(default_factory=list)
    """Distinct error messages of the samples that ended in errors, with their counts."""
    repeats: RepeatsReport | None = None
    """With ``--repeats``: the consistency summary (``results`` is then repeat 0's)."""
    repeats_path: Path | None = None
    group_summary: Path | None = None
    """When the task was run as part of a group (``--task GROUP``): the group's summary file."""


@dataclass
class ReportOutput(Generic[ReportT]):
    """What a study that writes one report from one samples log returns (``rate-speeches``, the
    memorization probe): the report, its file, the samples log, and the samples' errors."""

    report: ReportT
    report_path: Path
    samples_path: Path
    n_samples: int = 0
    errors: list[tuple[str, int]] = field(default_factory=list)


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "__", text).strip("_") or "model"


def run_stem(task: TaskConfig, fingerprint: str, limit: int | None = None, doc_ids: list[str] | None = None) -> str:
    """How a run's files are named: ``<task>_<fingerprint>``, then ``_limit<N>`` for a run over the
    first N documents (and ``_docs<digest>`` for chosen documents). Every file of such a run (samples
    log, results, batches, repeats, plots, reports) is named apart from a run over more documents,
    so it never replaces or mixes with one; the same command finds its own files again (resume).
    The answers both runs share come from the response cache."""
    stem = f"{task.name}_{fingerprint}"
    if doc_ids:
        stem += "_docs" + hashlib.sha256("\n".join(doc_ids).encode()).hexdigest()[:8]
    return stem + (f"_limit{limit}" if limit is not None else "")


def task_sha(task: TaskConfig) -> str:
    """sha256 of the whole validated task: changes with anything, a metric included."""
    return hashlib.sha256(task.model_dump_json().encode()).hexdigest()


def task_identity(task: TaskConfig) -> str:
    """sha256 of what changes the answers (data, prompt, parser, generation, method, ...): the task
    without its scoring side (``debench.task.config.SCORING_SIDE``). A stored run is bound to it."""
    from debench.task.config import SCORING_SIDE

    return hashlib.sha256(task.model_dump_json(exclude=set(SCORING_SIDE)).encode()).hexdigest()


def scored_with(task: TaskConfig) -> dict[str, Any]:
    """How a run's answers were scored: the task's metrics (names and arguments) and scoring settings."""
    return {
        "metrics": [m.model_dump(mode="json") for m in task.metrics],
        "scoring": task.scoring.model_dump(mode="json"),
    }


def task_info(task: TaskConfig, method: str) -> TaskInfo:
    """The ``task`` block of every file a run writes (results, probe and speech-rating reports)."""
    from debench.scoring.results import TaskInfo

    return TaskInfo(
        name=task.name, version=task.version, method=method, description=task.description, config_sha256=task_sha(task),
        identity_sha256=task_identity(task), scored_with=scored_with(task),
    )  # fmt: skip


def select_docs(dataset: LoadedDataset, limit: int | None) -> list[Doc]:
    return dataset.docs[:limit] if limit is not None else list(dataset.docs)


def dataset_info(dataset: LoadedDataset) -> DatasetInfo:
    from debench.scoring.results import DatasetInfo

    return DatasetInfo(
        source=dataset.source,
        location=dataset.location,
        revision=dataset.revision,
        content_hash=dataset.content_hash,
        is_sample=dataset.is_sample,
        n_docs_total=len(dataset.docs),
    )


def usage_info(records: list[SampleRecord], n_requests: int) -> UsageInfo:
    """Tokens of every record; cost of the fresh (uncached) answers, null when a price is unknown."""
    from debench.scoring.results import UsageInfo

    costs = [r.cost_usd for r in records if not r.cached and r.cost_usd is not None]
    fresh = [r for r in records if not r.cached and r.status in ("ok", "parse_failure")]
    prompt_tokens = sum(r.prompt_tokens for r in records)
    completion_tokens = sum(r.completion_tokens for r in records)
    return UsageInfo(
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        total_tokens=prompt_tokens + completion_tokens,
        cached_prompt_tokens=sum(r.cached_prompt_tokens for r in records),
        cost_usd=sum(costs) if costs and len(costs) == len(fresh) else None,
        n_requests=n_requests,
        n_cached=sum(1 for r in records if r.cached),
    )


def task_plugins(task: TaskConfig, method: str | None) -> list[PluginIdentity]:
    """The plug-ins (other packages' components, with their code's identity) of a task's run: its
    judge method (``method``; None: the run asks no model) and its metrics."""
    wanted = [("debench.methods", method)] if method is not None else []
    wanted += [("debench.metrics", m.name) for m in task.metrics]
    found: list[PluginIdentity] = []
    for group, name in wanted:
        entry = declared(group).get(name)
        plugin = entry.identity() if entry is not None else None
        if plugin is not None and plugin not in found:
            found.append(plugin)
    return found


def run_plugins(task: TaskConfig, method: str, model: Model) -> list[PluginIdentity]:
    """Every plug-in a run uses: its model's kinds (an ensemble's members'), judge method and metrics;
    none when it uses only debench's own components."""
    return [*dict.fromkeys(model.plugins()), *task_plugins(task, method)]


def build_results(
    task: TaskConfig,
    model_info: dict[str, Any],
    dataset: LoadedDataset,
    docs: list[Doc],
    records: list[SampleRecord],
    *,
    config: dict[str, Any],
    n_requests: int,
    n_bootstrap: int | None,
    samples_file: str | None,
    method: str,
    plugins: Sequence[PluginIdentity] = (),
) -> Results:
    """The results of a run: ``plugins`` (``run_plugins``) are named with their versions."""
    from debench.scoring.results import ModelInfo, Results, now_iso, package_versions
    from debench.scoring.scores import score

    report = score(task, docs, {r.doc_id: r for r in records}, n_bootstrap=n_bootstrap)
    return Results(
        task=task_info(task, method),
        model=ModelInfo(**model_info),
        metrics=report.metrics,
        n_samples=report.n_samples,
        n_parse_failures=report.n_parse_failures,
        n_errors=report.n_errors,
        n_not_completed=report.n_not_completed,
        usage=usage_info(records, n_requests),
        config=config,
        dataset=dataset_info(dataset),
        reports=report.reports,
        samples_file=samples_file,
        versions=package_versions(plugins),
        created_at=now_iso(),
    )


def ensure_method_supported(model: Model, method: str) -> None:
    """An ensemble aggregates parsed verdicts, so it judges with one prompt per member (direct)."""
    if model.kind == "ensemble" and method != "direct":
        raise UserError(
            f"an ensemble judges with --method direct only (asked for {method}): its members' "
            "intermediate notes cannot be aggregated"
        )


def with_judging_manual(task: TaskConfig, path: Path) -> TaskConfig:
    """The task with its ``judging_manual`` prompt variable read from ``path``."""
    if "judging_manual" not in task.prompt.variables:
        raise UserError(f"task '{task.name}' uses no judging manual", field="--judging-manual")
    variables = {**task.prompt.variables, "judging_manual": read_text(path, JUDGING_MANUAL)}
    return task.model_copy(update={"prompt": task.prompt.model_copy(update={"variables": variables})})


def load_documents(task: TaskConfig, task_path: Path, opts: RunOptions) -> tuple[LoadedDataset, Documents]:
    """The task's data set and the documents of this ``eval`` run, as the runner reads them
    (``Documents``: a large data set's text is read from its file as the run goes, not held in
    memory); the task's templates are rendered once against the first document, so a template
    naming a field the data does not have is one line (exit 2) before any request."""
    dataset, docs = run_documents(task, opts.data_source, opts.data_dir, opts.limit)
    first = next(iter(docs), None)
    if first is not None:
        check_templates(task, task_path, first)
    return dataset, docs


def check_task_plugins(task: TaskConfig, method: str, docs: Documents) -> None:
    """Before the first request: the task's metrics from other packages computed on its first
    documents (``debench.scoring.scores.check_plugin_metrics``); their modules were loaded with
    the task file, the judge method with the command."""
    names = {p.name for p in task_plugins(task, method) if p.group == "debench.metrics"}
    if names:
        from debench.scoring.scores import check_plugin_metrics  # numpy: only for a plug-in's metric

        check_plugin_metrics(task, docs.gold, names)


def generation_record(task: TaskConfig, model: Model) -> dict[str, Any]:
    """The generation settings requests were sent with: the task's, with the model's own on top;
    settings the provider does not accept (and so were not sent) are listed apart."""
    gen = model.generation_for(task.generation)
    out: dict[str, Any] = {"generation": gen.model_dump()}
    if model.generation_overrides:
        out["generation_from_model_args"] = dict(model.generation_overrides)
    not_sent = model.not_sent(gen)
    if not_sent:
        out["generation_not_sent"] = not_sent
    return out


def run_config(
    task: TaskConfig,
    task_path: Path,
    model: Model,
    opts: RunOptions,
    *,
    method: str,
    concurrency: int,
    fingerprint: str,
    **specific: Any,
) -> dict[str, Any]:
    """The ``config`` block of every file a run that asks a model writes (eval's results, a probe
    report, a speech-rating report): the task file, the method and generation settings, what the
    command adds (``specific``), then the run options, the fingerprint and the command line; with
    other packages' components, each one's package, version and sha256 of its module files
    (``plugins``)."""
    plugins = run_plugins(task, method, model)
    return {
        "task_file": task_file_label(task_path),
        "method": method,
        **generation_record(task, model),
        **specific,
        "limit": opts.limit,
        "seed": opts.seed,
        "concurrency": concurrency,
        "data_source": opts.data_source,
        "use_cache": opts.use_cache,
        "fingerprint": fingerprint,
        "command": opts.command,
        **({"plugins": [p.record() for p in plugins]} if plugins else {}),
    }


async def evaluate_tasks(selection: TaskSelection, judge: JudgeSpec, opts: EvalOptions) -> list[EvalOutput]:
    """``debench eval``: the judge ``judge`` names, made once (a ``vllm/`` server it starts stops
    with this call), judges every task of ``selection`` one after another (``evaluate_task``); a
    group's summary (``debench.scoring.group_summary``) is written after its tasks. The judging
    manual is read and checked against every task before the judge is made."""
    tasks = [(task, path) for task, path in selection.tasks]
    if opts.judging_manual is not None:
        tasks = [(with_judging_manual(t, opts.judging_manual), p) for t, p in tasks]
    for task, _ in tasks:  # every task's judge method loaded and checked before the first request
        get_method(opts.method or task.method)
    with server_scope():
        model = make_judge(judge, seed=opts.seed)
        try:
            outputs = [await evaluate_task(task, path, model, opts) for task, path in tasks]
        finally:
            await model.aclose()
    _summarize_groups(selection.groups, outputs)
    return outputs


def _summarize_groups(groups: dict[str, list[str]], outputs: list[EvalOutput]) -> None:
    """Each group's summary over its tasks' runs (repeated runs have their own report instead)."""
    if not groups:
        return
    from debench.scoring.group_summary import write_group_summaries  # imports the metrics (numpy): after the run

    single = [o for o in outputs if o.repeats is None]
    for group, path in write_group_summaries(groups, [(o.results, o.results_path) for o in single]).items():
        for out in single:
            if out.results.task.name in groups[group]:
                out.group_summary = path


async def evaluate_task(task: TaskConfig, task_path: Path, model: Model, opts: EvalOptions) -> EvalOutput:
    """``debench eval`` for one task: judge, score, write; with ``opts.repeats`` > 1, every repeat
    and the consistency summary (``debench.scoring.repeats``)."""
    method = opts.method or task.method
    ensure_method_supported(model, method)
    if opts.repeats > 1:
        check_repeats(task, model, opts)
    dataset, docs = load_documents(task, task_path, opts)
    check_task_plugins(task, method, docs)
    if opts.repeats <= 1:
        out, _ = await _run_once(task, task_path, model, opts, method, dataset, docs, None)
        return out
    runs: list[tuple[EvalOutput, dict[str, SampleRecord]]] = []
    for k in range(opts.repeats):
        runs.append(await _run_once(task, task_path, model, opts, method, dataset, docs, k))
    first = runs[0][0]
    base_seed = model.generation_for(task.generation).seed or 0
    from debench.scoring.repeats import summarize

    report = summarize(
        task,
        docs.gold,
        [records for _, records in runs],
        [out.results.metrics for out, _ in runs],
        task_info=first.results.task,
        model_info=first.results.model,
        seeds=[base_seed + k for k in range(opts.repeats)],
        temperature=model.generation_for(task.generation).temperature,
        results_files=[out.results_path.name for out, _ in runs],
        n_bootstrap=opts.n_bootstrap,
    )
    path = first.results_path.with_name(first.results_path.name.replace("results_", "repeats_", 1))
    write_json_record(path, report)
    first.repeats = report
    first.repeats_path = path
    first.errors = [e for out, _ in runs for e in out.errors]
    return first


def check_repeats(task: TaskConfig, model: Model, opts: EvalOptions) -> None:
    """Repeats measure how much a judge's answers vary: at temperature 0 they vary only by the
    provider's nondeterminism, which ``--force`` asks to measure on purpose."""
    refusal = repeats_refusal(task, model, opts.repeats, force=opts.force)
    if refusal is not None:
        raise UserError(refusal, field="--repeats")


def repeats_refusal(task: TaskConfig, model: Model, repeats: int, *, force: bool) -> str | None:
    """Why repeating this judge's answers measures nothing (``check_repeats``), or None."""
    if not model.makes_requests:
        return f"{model.name} calls no model: its answers never vary, so --repeats has nothing to measure"
    if model.generation_for(task.generation).temperature == 0 and not force:
        return (
            f"--repeats {repeats} at temperature 0 asks the same greedy question {repeats} times; "
            "set a temperature (--model-args temperature=0.7) or pass --force to measure the provider's own "
            "nondeterminism"
        )
    return None


async def _run_once(
    task: TaskConfig,
    task_path: Path,
    model: Model,
    opts: EvalOptions,
    method: str,
    dataset: LoadedDataset,
    docs: Documents,
    repeat: int | None,
) -> tuple[EvalOutput, dict[str, SampleRecord]]:
    fp = run_fingerprint(task, model.identity(), dataset.content_hash, method, repeat)
    out_dir = opts.model_dir(model)
    stem = run_stem(task, fp, opts.limit)
    samples_path = out_dir / f"samples_{stem}.jsonl"
    results_path = out_dir / f"results_{stem}.json"
    settings = opts.run_settings(model, method, store_messages=opts.store_messages, repeat=repeat)
    run_model = model
    if opts.batch:
        from debench.models.batched import BatchedModel

        run_model = BatchedModel(
            model,
            out_dir / f"batches_{stem}.json",
            poll_s=opts.batch_poll,
            progress=opts.progress,
            deadline_s=opts.batch_deadline * 3600,
        )
        settings.concurrency = max(1, len(docs))  # every request joins the batch at once
    records, caller = await run_samples(task, docs, run_model, samples_path, settings)
    config = run_config(
        task,
        task_path,
        model,
        opts,
        method=method,
        concurrency=settings.concurrency,
        fingerprint=fp,
        parser=task.parser.model_dump(),
        scoring=task.scoring.model_dump(),
        n_bootstrap=opts.n_bootstrap if opts.n_bootstrap is not None else task.scoring.n_bootstrap,
    )
    if opts.batch:
        # with --batch, run_model is the BatchedModel wrapper
        batches = [b.batch_id for b in run_model.state.batches]  # type: ignore[attr-defined]
        config["batch"] = {"state_file": f"batches_{stem}.json", "batches": batches}
    if repeat is not None:
        config["repeat"] = repeat
        config["generation"]["seed"] = (config["generation"]["seed"] or 0) + repeat
    results = build_results(
        task,
        run_model.describe(),
        dataset,
        docs.gold,
        records,
        config=config,
        n_requests=caller.n_requests,
        n_bootstrap=opts.n_bootstrap,
        samples_file=samples_path.name,
        method=method,
        plugins=run_plugins(task, method, run_model),
    )
    from debench.core.charts import speech_rating_plots
    from debench.scoring.results import write_results

    if opts.plots:
        results.plots = [p.name for p in speech_rating_plots(results, results_path)]
    write_results(results, results_path)
    return EvalOutput(results, results_path, samples_path, error_summary(records)), {r.doc_id: r for r in records}
