"""``debench probe``: original and probed documents through the normal runner, then statistics.

Originals and every probed copy go through ``run_samples`` as ordinary documents — cached,
concurrent, resumable — into one per-sample log, ``probe_samples_<task>_<fingerprint>.jsonl``
(the fingerprint is the one ``eval`` uses: task, model, data, method; a run over fewer documents,
``--limit`` or ``--doc-ids``, names its report and pairs apart: ``pipeline.run_stem``). Probed copies have their
own doc_ids (``<id>#<probe>:<content hash>``), so runs with other probes share the log and the
originals' answers. The report and one line per (probe, document) pair are written beside it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from debench.core.atomic import write_atomic, write_json_record
from debench.core.errors import UserError
from debench.core.options import Method
from debench.data.base import Doc, get_adapter
from debench.data.loading import load_task_data
from debench.data.prompts import check_templates
from debench.models.base import Model
from debench.probes.base import ProbeContext, ProbedDoc, ProbeSpec
from debench.probes.inject import claim_for_task
from debench.probes.report import ProbeReport, ProbeSummary
from debench.probes.stats import make_pair, summarize
from debench.run.pipeline import (
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
from debench.task.config import TaskConfig


class ProbeOptions(RunOptions):
    """``debench probe``: ``doc_ids`` chooses documents (before ``limit``)."""

    doc_ids: list[str] | None = None
    method: Method | None = None
    inject_text: str | None = None


@dataclass
class ProbeOutput:
    report: ProbeReport
    report_path: Path
    samples_path: Path
    pairs_path: Path
    n_samples: int = 0
    errors: list[tuple[str, int]] = field(default_factory=list)


def check_probe_task(task: TaskConfig) -> None:
    refusal = side_verdict_refusal(task)
    if refusal is not None:
        raise UserError(refusal)


def side_verdict_refusal(task: TaskConfig) -> str | None:
    """Probes compare verdicts naming a side: a label, or a ranking whose first item wins (None);
    else why not."""
    if task.parser.type not in ("str", "list") or not task.parser.choices:
        return (
            f"task '{task.name}' predicts {task.parser.type} values, not a side; "
            "bias probes need a verdict that names a side (e.g. debateart_winner, bp_top_team)"
        )
    return None


def check_sides_are_answers(task: TaskConfig, docs: list[Doc]) -> None:
    refusal = sides_refusal(task, docs)
    if refusal is not None:
        raise UserError(refusal)


def sides_refusal(task: TaskConfig, docs: list[Doc]) -> str | None:
    """The verdict must be able to name the debate's sides (a ranking of speakers cannot): None, or why not."""
    choices = {str(c) for c in task.parser.choices or []}
    sides = {s.side for d in docs for s in d.speeches if s.side is not None}
    if sides and not sides <= choices:
        return (
            f"task '{task.name}' answers with {', '.join(sorted(choices))}, which do not name the debate's sides "
            f"({', '.join(sorted(sides))}); bias probes need a verdict on the sides"
        )
    return None


def choose_docs(docs: list[Doc], limit: int | None, doc_ids: list[str] | None) -> list[Doc]:
    if doc_ids:
        by_id = {d.doc_id: d for d in docs}
        unknown = [d for d in doc_ids if d not in by_id]
        if unknown:
            raise UserError(f"unknown document '{unknown[0]}'", field="--doc-ids")
        docs = [by_id[d] for d in doc_ids]
    return docs[:limit] if limit is not None else docs


def build_probed(
    task: TaskConfig, docs: list[Doc], specs: list[ProbeSpec], ctx: ProbeContext
) -> tuple[dict[str, list[ProbedDoc]], dict[str, int]]:
    """Probed copies per probe key, and how many documents each probe did not apply to."""
    out: dict[str, list[ProbedDoc]] = {}
    skipped: dict[str, int] = {}
    for spec in specs:
        copies = [p for p in (spec.probe.apply(d, ctx, spec.arg) for d in docs) if p is not None]
        if not copies:
            if spec.explicit:
                raise UserError(
                    f"probe '{spec.key}' applies to none of the {len(docs)} documents of task '{task.name}'",
                    field="--probe",
                )
            continue
        out[spec.key] = copies
        skipped[spec.key] = len(docs) - len(copies)
    if not out:
        raise UserError(f"none of the requested probes applies to the documents of task '{task.name}'", field="--probe")
    return out, skipped


async def run_probes(
    task: TaskConfig, task_path: Path, model: Model, specs: list[ProbeSpec], opts: ProbeOptions
) -> ProbeOutput:
    check_probe_task(task)
    method = opts.method or task.method
    ensure_method_supported(model, method)
    dataset = load_task_data(task, opts.data_source, opts.data_dir)
    docs = choose_docs(list(dataset.docs), opts.limit, opts.doc_ids)
    check_sides_are_answers(task, docs)
    if docs:
        check_templates(task, task_path, docs[0])
    ctx = ProbeContext(
        task=task,
        speech_label=get_adapter(task.dataset.adapter).speech_label,
        seed=opts.seed,
        claim=claim_for_task(task, opts.inject_text),
    )
    probed, skipped = build_probed(task, docs, specs, ctx)
    all_docs = docs + [p.doc for copies in probed.values() for p in copies]

    fp = run_fingerprint(task, model.identity(), dataset.content_hash, method)
    out_dir = opts.model_dir(model)
    stem = run_stem(task, fp, opts.limit, opts.doc_ids)
    samples_path = (
        out_dir / f"probe_samples_{run_stem(task, fp)}.jsonl"
    )  # shared by every selection: its keys are the documents' content
    report_path = out_dir / f"probes_{stem}.json"
    pairs_path = out_dir / f"probe_pairs_{stem}.jsonl"
    settings = opts.run_settings(model, method)
    records, caller = await run_samples(task, all_docs, model, samples_path, settings)
    by_id = {r.doc_id: r for r in records}
    originals = {d.doc_id: d for d in docs}
    specs_by_key = {s.key: s for s in specs}
    summaries: dict[str, ProbeSummary] = {}
    lines: list[str] = []
    for key, copies in probed.items():
        pairs = [make_pair(originals[p.source_id], p, by_id) for p in copies]
        lines += [pair.model_dump_json() + "\n" for pair in pairs]
        summaries[key] = summarize(specs_by_key[key].probe, key, pairs, originals, skipped[key])

    report = ProbeReport(
        task=task_info(task, method),
        model=ModelInfo(**model.describe()),
        dataset=dataset_info(dataset),
        probes=summaries,
        usage=usage_info(records, caller.n_requests),
        config=run_config(
            task,
            task_path,
            model,
            opts,
            method=method,
            concurrency=settings.concurrency,
            fingerprint=fp,
            probes=list(probed),
            doc_ids=opts.doc_ids,
            inject_text=opts.inject_text,
        ),
        samples_file=samples_path.name,
        pairs_file=pairs_path.name,
        versions=package_versions(run_plugins(task, method, model)),
        created_at=now_iso(),
    )
    write_atomic(pairs_path, "".join(lines))
    write_json_record(report_path, report)
    return ProbeOutput(report, report_path, samples_path, pairs_path, len(records), error_summary(records))
