"""``debench rate-speeches``: rate a file of speeches with a speech-rating task's prompt
(``ibm_speech_likert`` by default) and compare them with the human-annotated IBM speeches on the
same topics, rated by the same judge in the same run.

Both sets go through the normal runner into one per-sample log (cached, resumable). Topics: the
file's topics, sorted; ``limit`` keeps the first N, and the IBM speeches are restricted to the
same topics so every source is compared on the same ground.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from debench.core.atomic import write_json_record
from debench.core.charts import source_means
from debench.core.errors import UserError
from debench.core.options import NBootstrap
from debench.core.paths import portable_path
from debench.data.base import Doc, Speech
from debench.data.loading import load_task_data
from debench.data.prompts import check_templates
from debench.data.samples import SampleRecord
from debench.metrics.bootstrap import mean_ci, mean_diff_ci
from debench.models.base import Model
from debench.run.pipeline import (
    ReportOutput,
    RunOptions,
    dataset_info,
    ensure_method_supported,
    run_config,
    run_plugins,
    run_stem,
    task_info,
    usage_info,
)
from debench.run.runner import error_summary, run_fingerprint, run_samples
from debench.scoring.results import ModelInfo, now_iso, package_versions
from debench.speeches.files import SpeechRow, file_hash, read_speeches
from debench.speeches.report import Comparison, Estimate, SourceRating, SpeechesFileInfo, SpeechRatingReport
from debench.task.config import TaskConfig


class RateOptions(RunOptions):
    """``debench rate-speeches``: ``limit`` counts topics: only the first N topics of the file (sorted)."""

    FLAGS: ClassVar[dict[str, str]] = {"n_bootstrap": "--bootstrap"}

    human_sources: list[str] | None = None
    """Annotated sources to rate beside the file (default: all)."""
    n_bootstrap: NBootstrap | None = None


RateOutput = ReportOutput[SpeechRatingReport]


def check_rating_task(task: TaskConfig) -> None:
    if task.dataset.adapter != "ibm_speeches" or task.parser.type not in ("int", "float"):
        raise UserError(
            f"task '{task.name}' is not a speech-rating task (use ibm_speech_likert or ibm_speech_likert_cot)",
            field="--task",
        )


def speech_docs(rows: list[SpeechRow]) -> list[Doc]:
    return [
        Doc(
            doc_id=r.id,
            fields={"topic": r.topic, "speech": r.text},
            speeches=[Speech(speaker=r.source, side="pro", text=r.text)],
            meta={"source": r.source, "origin": "speeches_file"},
        )
        for r in rows
    ]


def _numeric(records: list[SampleRecord]) -> np.ndarray:
    return np.array(
        [float(r.prediction) for r in records if r.status == "ok" and r.prediction is not None], dtype=float
    )


def _estimate(values: np.ndarray, n_boot: int, seed: int) -> Estimate:
    value, ci = mean_ci(values, n_boot, seed)
    return Estimate(value=value, ci95=ci, n=len(values))


def _source_rating(origin: str, docs: list[Doc], recs: dict[str, SampleRecord], n_boot: int, seed: int) -> SourceRating:
    rs = [recs[d.doc_id] for d in docs if d.doc_id in recs]
    status = Counter(r.status for r in rs)
    scores = _numeric(rs)
    human = None
    if origin == "annotated":
        human = _estimate(np.array([float(d.target) for d in docs]), n_boot, seed + 1)
    dist = Counter(str(int(v)) if float(v).is_integer() else str(v) for v in scores)
    return SourceRating(
        origin=origin,  # type: ignore[arg-type]  # a document's meta origin, one of the two; pydantic checks it
        n_speeches=len(docs),
        n_ok=status["ok"],
        n_parse_failures=status["parse_failure"],
        n_errors=status["error"],
        n_not_completed=status["not_completed"],
        judge_mean=_estimate(scores, n_boot, seed),
        human_mean=human,
        judge_distribution=dict(sorted(dist.items())),
    )


def _rows_on_topics(rows: list[SpeechRow], limit: int | None) -> tuple[list[SpeechRow], list[str]]:
    """The file's rows on its first ``limit`` topics (sorted; all without a limit), and the topics."""
    topics = sorted({r.topic for r in rows})
    if limit is not None:
        topics = topics[:limit]
    return [r for r in rows if r.topic in set(topics)], topics


def _annotated_on_topics(docs: list[Doc], topics: list[str], human_sources: list[str] | None) -> list[Doc]:
    """The annotated speeches on ``topics``, of the ``human_sources`` only when given (each must be
    a source of the data set)."""
    human = [d for d in docs if d.fields.get("topic") in set(topics)]
    if human_sources is None:
        return human
    known = {str(d.meta.get("source")) for d in docs}
    unknown = [s for s in human_sources if s not in known]
    if unknown:
        raise UserError(
            f"no annotated source '{unknown[0]}' (known: {', '.join(sorted(known))})", field="--human-sources"
        )
    return [d for d in human if d.meta.get("source") in human_sources]


def _check_ids_apart(rows: list[SpeechRow], docs: list[Doc], speeches_path: Path) -> None:
    clash = {r.id for r in rows} & {d.doc_id for d in docs}
    if clash:
        raise UserError(
            f"id '{sorted(clash)[0]}' is also an id of the annotated speeches", path=str(speeches_path), field="id"
        )


Sources = dict[tuple[str, str], list[Doc]]
"""(origin, source name) -> the source's documents."""


def _by_source(human: list[Doc], file_docs: list[Doc], speeches_path: Path) -> Sources:
    """The documents of each source; a source of the file may not share an annotated source's name."""
    by_source: Sources = {}
    for d in human:
        by_source.setdefault(("annotated", str(d.meta["source"])), []).append(d)
    for d in file_docs:
        by_source.setdefault(("speeches_file", str(d.meta["source"])), []).append(d)
    overlap = set(_names(by_source, "speeches_file")) & set(_names(by_source, "annotated"))
    if overlap:
        raise UserError(
            f"source '{sorted(overlap)[0]}' is also an annotated source name", path=str(speeches_path), field="source"
        )
    return by_source


def _names(by_source: Sources, origin: str) -> list[str]:
    return sorted({name for o, name in by_source if o == origin})


def _comparisons(by_source: Sources, recs: dict[str, SampleRecord], n_boot: int, seed: int) -> list[Comparison]:
    """Each source of the file against each annotated source: the difference of the judge's means."""

    def scores(origin: str, name: str) -> np.ndarray:
        return _numeric([recs[d.doc_id] for d in by_source[(origin, name)] if d.doc_id in recs])

    comparisons = []
    for i, g in enumerate(_names(by_source, "speeches_file")):
        gs = scores("speeches_file", g)
        for j, a in enumerate(_names(by_source, "annotated")):
            hs = scores("annotated", a)
            value, ci = mean_diff_ci(gs, hs, n_boot, seed + 1000 + 100 * i + j)
            comparisons.append(
                Comparison(source=g, reference=a, diff=Estimate(value=value, ci95=ci, n=len(gs) + len(hs)))
            )
    return comparisons


def _sources_chart(
    sources: dict[str, SourceRating], title: str, file_sources: list[str], report_path: Path
) -> list[str]:
    """The chart of each source's judge mean beside its human mean, written beside the report (its
    file name; none when no source has a judge mean)."""
    plot_rows: dict[str, dict[str, Any]] = {}
    for name, s in sources.items():
        if s.judge_mean.value is None:
            continue
        human = s.human_mean
        plot_rows[name] = {
            "judge_mean": s.judge_mean.value,
            "judge_ci95": s.judge_mean.ci95,
            "human_mean": human.value if human else None,
            "human_ci95": human.ci95 if human else None,
        }
    if not plot_rows:
        return []
    chart = source_means(plot_rows, title=title, subtitle="no human ratings exist for: " + ", ".join(file_sources))
    return [chart.save(report_path.with_name(report_path.stem + "_sources.svg")).name]


async def rate_speeches(
    task: TaskConfig, task_path: Path, model: Model, speeches_path: Path, opts: RateOptions
) -> RateOutput:
    check_rating_task(task)
    ensure_method_supported(model, task.method)
    rows, topics = _rows_on_topics(read_speeches(speeches_path), opts.limit)
    dataset = load_task_data(task, opts.data_source, opts.data_dir)
    human = _annotated_on_topics(dataset.docs, topics, opts.human_sources)
    _check_ids_apart(rows, dataset.docs, speeches_path)
    file_docs = speech_docs(rows)
    docs = human + file_docs
    if docs:
        check_templates(task, task_path, docs[0])

    content = file_hash(speeches_path)
    base_fp = run_fingerprint(task, model.identity(), dataset.content_hash, task.method)
    fp = hashlib.sha256(f"{base_fp}|{content}".encode()).hexdigest()[:12]
    out_dir = opts.model_dir(model)
    stem = run_stem(task, fp, opts.limit)
    samples_path = out_dir / f"speech_rating_samples_{stem}.jsonl"
    report_path = out_dir / f"speech_rating_{stem}.json"
    settings = opts.run_settings(model, task.method)
    records, caller = await run_samples(task, docs, model, samples_path, settings)
    recs = {r.doc_id: r for r in records}
    n_boot = task.scoring.n_bootstrap if opts.n_bootstrap is None else opts.n_bootstrap
    seed = task.scoring.bootstrap_seed + opts.seed

    by_source = _by_source(human, file_docs, speeches_path)
    file_sources = _names(by_source, "speeches_file")
    sources = {
        name: _source_rating(origin, ds, recs, n_boot, seed + 10 * i)
        for i, ((origin, name), ds) in enumerate(sorted(by_source.items()))
    }
    title = f"Mean score per source ({len(topics)} topics)\n{task.name} | {model.name}"
    report = SpeechRatingReport(
        task=task_info(task, task.method),
        model=ModelInfo(**model.describe()),
        speeches_file=SpeechesFileInfo(
            path=portable_path(str(speeches_path)), content_hash=content, n_speeches=len(rows), sources=file_sources
        ),
        human_data=dataset_info(dataset),
        topics=topics,
        sources=sources,
        comparisons=_comparisons(by_source, recs, n_boot, seed),
        usage=usage_info(records, caller.n_requests),
        config=run_config(
            task,
            task_path,
            model,
            opts,
            method=task.method,
            concurrency=settings.concurrency,
            fingerprint=fp,
            speeches=portable_path(str(speeches_path)),
            human_sources=opts.human_sources,
            n_bootstrap=n_boot,
        ),
        samples_file=samples_path.name,
        plots=_sources_chart(sources, title, file_sources, report_path),
        versions=package_versions(run_plugins(task, task.method, model)),
        created_at=now_iso(),
    )
    write_json_record(report_path, report)
    return RateOutput(report, report_path, samples_path, len(records), error_summary(records))
