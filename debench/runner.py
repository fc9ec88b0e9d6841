"""The async evaluation loop: a bounded pool of workers per model, the cache, the resume log."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tqdm import tqdm

from debench.cache import ResponseCache
from debench.data.base import Doc
from debench.errors import UserError
from debench.grammars import load_grammar
from debench.judging.base import JudgeContext, get_method
from debench.models.base import ContextOverflow, Model, PermanentModelError
from debench.samples import SampleLog, SampleRecord
from debench.task import TaskConfig

log = logging.getLogger(__name__)


@dataclass
class RunSettings:
    concurrency: int
    use_cache: bool = True
    cache_path: Path | None = None
    progress: bool = True
    store_messages: bool = True
    method: str | None = None


def run_fingerprint(task: TaskConfig, identity: dict[str, Any], content_hash: str, method: str) -> str:
    """Everything that changes the samples: a rerun with the same fingerprint resumes its log.

    ``identity`` is the model's (``Model.identity()``, recorded in results as ``model.identity``),
    so a fingerprint can be recomputed from a results file."""
    payload = json.dumps(
        {
            "task": task.model_dump(mode="json", exclude={"description", "metrics", "scoring", "baselines"}),
            "model": identity,
            "data": content_hash,
            "method": method,
        },
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


async def _worker(queue: asyncio.Queue[Doc | None], ctx: JudgeContext, method, log_: SampleLog, bar) -> None:  # type: ignore[no-untyped-def]
    while True:
        doc = await queue.get()
        if doc is None:
            return
        record = await judge_one(ctx, method, doc)
        log_.append(record)
        bar.update(1)


async def judge_one(ctx: JudgeContext, method, doc: Doc) -> SampleRecord:  # type: ignore[no-untyped-def]
    """Run the judge method on one document; failures become records, never exceptions."""
    try:
        return await method(ctx, doc)
    except ContextOverflow as exc:
        return SampleRecord(doc_id=doc.doc_id, status="not_completed", error=str(exc), target=doc.target)
    except UserError:
        raise  # a configuration problem: stop the run (finished samples are already saved)
    except PermanentModelError as exc:
        return SampleRecord(doc_id=doc.doc_id, status="error", error=str(exc), target=doc.target)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # noqa: BLE001 - transient failures past their retry cap
        return SampleRecord(doc_id=doc.doc_id, status="error", error=f"{type(exc).__name__}: {exc}"[:500], target=doc.target)


async def run_samples(
    task: TaskConfig, docs: list[Doc], model: Model, samples_path: Path, settings: RunSettings
) -> tuple[list[SampleRecord], JudgeContext]:
    """Judge every document not already finished in ``samples_path``; return records in doc order."""
    method_name = settings.method or task.method
    method = get_method(method_name)
    if method_name.startswith("debatrix") and task.debatrix is None:
        raise UserError(f"task '{task.name}' has no 'debatrix' section, so --method {method_name} cannot run it")
    grammar_text = load_grammar(task.generation.grammar)
    cache = ResponseCache(settings.cache_path) if settings.use_cache and model.cacheable else None
    model.prepare(docs, task)
    ctx = JudgeContext(
        task=task,
        model=model,
        cache=cache,
        generation=task.generation,
        grammar_text=grammar_text,
        store_messages=settings.store_messages,
    )
    log_ = SampleLog(samples_path)
    done = log_.finished_ids()
    todo = [d for d in docs if d.doc_id not in done]
    order = [d.doc_id for d in docs]
    bar = tqdm(
        total=len(docs),
        initial=len(docs) - len(todo),
        desc=f"{task.name} | {model.name}",
        unit="doc",
        disable=not settings.progress,
        file=sys.stderr,
        dynamic_ncols=True,
    )
    try:
        queue: asyncio.Queue[Doc | None] = asyncio.Queue()
        for d in todo:
            queue.put_nowait(d)
        n_workers = max(1, min(settings.concurrency, len(todo)))
        for _ in range(n_workers):
            queue.put_nowait(None)
        await asyncio.gather(*(_worker(queue, ctx, method, log_, bar) for _ in range(n_workers)))
    finally:
        bar.close()
        log_.close()
        if cache is not None:
            cache.close()
        await model.aclose()  # release pooled connections; a model reopens them on its next call
    log_.compact(order)
    records = [log_.existing[d] for d in order if d in log_.existing]
    return records, ctx
