"""``eval --batch``: a model whose requests go through its provider's batch API.

``BatchedModel`` wraps a model with a batch API (``Model.batch_api``) and answers every request
through it, so the run is the same shared runner, response cache, samples log and parser as a
live run. Each request waits in a pending batch; when no job has added one for ``SETTLE_S``, the
pending requests are written as JSONL (one line per request, ``custom_id`` = the request's
response-cache key), uploaded, and submitted as a batch (split at the provider's limits). The
batches are polled every ``poll_s`` seconds with a progress bar; when one ends, its answers are
handed to the jobs waiting for them. A multi-step method (Debatrix) sends one batch per step.

**Resuming.** Every submitted batch (its id, input file and the keys of its requests) is kept in
``state_path`` in the run's folder, written before the first poll. A later run of the same command
(after a crash, a kill or Ctrl-C) attaches the requests it would send to the batch already holding
them instead of submitting them again, and collects that batch's answers.

**Failures are loud.** A failed batch, or one that expired or was cancelled, stops the run with
one line (exit 2) after saving every answer it did return; the state then marks it so, and the
same command submits the remaining requests in a new batch. A request the batch answered with an
error becomes that sample's error (a prompt too long for the model is *not completed*), retried in
a new batch by the next run.

**Cost.** Answers are priced at the provider's batch rates (litellm's table; half the regular
price for a model the table gives no batch price) and cached prompt tokens at the cached rate.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from debench.core.atomic import write_json_record
from debench.core.entry_points import PluginIdentity
from debench.core.errors import UserError
from debench.models.base import ContextOverflow, Model, ModelResponse, PermanentModelError, Request, Usage
from debench.models.cache import cache_key
from debench.models.retry import classify_status

SETTLE_S = 0.2
"""A pending batch is submitted once no request has joined it for this long."""
MAX_REQUESTS = 50_000
MAX_BYTES = 190 * 2**20
"""OpenAI's limits per batch: 50,000 requests, 200 MB of input."""
ENDED = ("completed", "failed", "expired", "cancelled")


class SubmittedBatch(BaseModel):
    batch_id: str
    input_file_id: str
    keys: list[str] = Field(
        description="custom_id of every request in the batch (the response-cache key of the request)"
    )
    submitted_at: str
    status: Literal["submitted", "collected", "failed", "expired", "cancelled"] = "submitted"
    note: str | None = None


class BatchState(BaseModel):
    """What a run submitted: kept in its folder so that a rerun collects instead of resubmitting."""

    model: str
    batches: list[SubmittedBatch] = Field(default_factory=list)


class BatchedModel(Model):
    def __init__(
        self,
        inner: Model,
        state_path: Path,
        *,
        poll_s: float = 30.0,
        progress: bool = True,
        deadline_s: float = 25 * 3600.0,
    ):
        if inner.composite or not inner.makes_requests:
            raise UserError(f"--batch runs one model that calls a provider; {inner.name} does not", field="--batch")
        self.inner = inner
        self.api = inner.batch_api()
        self.name = inner.name
        self.kind = inner.kind
        self.generation_overrides = inner.generation_overrides
        self.default_concurrency = inner.default_concurrency
        self.state_path = Path(state_path)
        self.poll_s = poll_s
        self.deadline_s = deadline_s
        """Seconds this run polls its batches before it stops (``eval --batch-deadline``)."""
        self.progress = progress
        self.state = (
            BatchState.model_validate_json(self.state_path.read_text())
            if self.state_path.exists()
            else BatchState(model=inner.name)
        )
        self._pending: dict[str, tuple[Request, asyncio.Future[ModelResponse]]] = {}
        self._waiting: dict[str, asyncio.Future[ModelResponse]] = {}
        self._last_join = 0.0
        self._worker: asyncio.Task[None] | None = None

    # -- what the runner sees -------------------------------------------------------------------
    def identity(self) -> dict[str, Any]:
        return self.inner.identity()  # a batch answer is the same model's answer (same cache key)

    def describe(self) -> dict[str, Any]:
        return {**self.inner.describe(), "batch": True}

    def plugins(self) -> list[PluginIdentity]:
        return self.inner.plugins()

    def not_sent(self, generation: Any) -> list[str]:
        return self.inner.not_sent(generation)

    def check_ready(self) -> None:
        self.inner.check_ready()

    def context_window(self) -> int | None:
        return self.inner.context_window()

    def count_tokens(self, messages: Any) -> int | None:
        return self.inner.count_tokens(messages)

    async def generate(self, request: Request) -> ModelResponse:
        key = cache_key(self.identity(), request.messages, request.generation.model_dump(), request.grammar_text)
        if key in self._waiting:
            return await asyncio.shield(self._waiting[key])
        future: asyncio.Future[ModelResponse] = asyncio.get_running_loop().create_future()
        self._waiting[key] = future
        self._pending[key] = (request, future)
        self._last_join = time.monotonic()
        if self._worker is None or self._worker.done():
            self._worker = asyncio.ensure_future(self._work())
        return await future

    async def aclose(self) -> None:
        if self._worker is not None and not self._worker.done():
            self._worker.cancel()
            await asyncio.gather(self._worker, return_exceptions=True)
        await self.api.aclose()
        await self.inner.aclose()

    # -- batches ----------------------------------------------------------------------------------
    async def _work(self) -> None:
        """Submit what is pending (or attach it to a batch submitted before), poll, hand out answers."""
        try:
            while self._pending:
                while time.monotonic() - self._last_join < SETTLE_S:  # noqa: ASYNC110 - a debounce on the clock: no task signals "nobody joined"
                    await asyncio.sleep(SETTLE_S)
                batch = self._pending
                self._pending = {}
                outstanding = self._attach(batch) + await self._submit(batch)
                await self._poll(outstanding)
        except BaseException as exc:  # the run stops: every waiting job learns why
            for key, future in list(self._waiting.items()):
                if not future.done():
                    future.set_exception(
                        exc if isinstance(exc, Exception) else UserError("the batch run was interrupted")
                    )
                self._waiting.pop(key, None)
            if not isinstance(exc, Exception):
                raise

    def _attach(self, batch: dict[str, tuple[Request, asyncio.Future[ModelResponse]]]) -> list[SubmittedBatch]:
        """Batches submitted before (by this run or a killed one) that hold pending requests."""
        found = []
        for sub in self.state.batches:
            if sub.status == "submitted" and any(k in batch for k in sub.keys):
                found.append(sub)
                for k in sub.keys:
                    batch.pop(k, None)
        return found

    async def _submit(self, batch: dict[str, tuple[Request, asyncio.Future[ModelResponse]]]) -> list[SubmittedBatch]:
        out: list[SubmittedBatch] = []
        lines: list[bytes] = []
        keys: list[str] = []
        size = 0
        for key, (request, _) in batch.items():
            line = (
                json.dumps(
                    {
                        "custom_id": key,
                        "method": "POST",
                        "url": "/v1/chat/completions",
                        "body": self.inner.batch_body(request),
                    },
                    ensure_ascii=False,
                ).encode("utf-8")
                + b"\n"
            )
            if keys and (len(keys) >= MAX_REQUESTS or size + len(line) > MAX_BYTES):
                out.append(await self._submit_one(lines, keys))
                lines, keys, size = [], [], 0
            lines.append(line)
            keys.append(key)
            size += len(line)
        if keys:
            out.append(await self._submit_one(lines, keys))
        return out

    async def _submit_one(self, lines: list[bytes], keys: list[str]) -> SubmittedBatch:
        file_id = await self.api.upload(b"".join(lines), f"debench-{self.state_path.stem}.jsonl")
        created = await self.api.create(file_id)
        sub = SubmittedBatch(
            batch_id=str(created["id"]),
            input_file_id=file_id,
            keys=keys,
            submitted_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        )
        self.state.batches.append(sub)
        self._save()
        return sub

    def _save(self) -> None:
        write_json_record(self.state_path, self.state)

    async def _poll(self, outstanding: list[SubmittedBatch]) -> None:
        from tqdm import tqdm

        progress = {s.batch_id: 0 for s in outstanding}
        names = ", ".join(progress)
        with tqdm(
            total=sum(len(s.keys) for s in outstanding),
            desc=f"batch {names}",
            unit="req",
            disable=not self.progress,
            file=sys.stderr,
            dynamic_ncols=True,
        ) as bar:
            left = list(outstanding)
            stop_at = time.monotonic() + self.deadline_s
            while left:
                for sub in list(left):
                    info = await self.api.retrieve(sub.batch_id)
                    counts = info.get("request_counts") or {}
                    progress[sub.batch_id] = int(counts.get("completed") or 0) + int(counts.get("failed") or 0)
                    if info.get("status") in ENDED:
                        left.remove(sub)
                        progress[sub.batch_id] = len(sub.keys)
                        bar.update(sum(progress.values()) - bar.n)
                        await self._collect(sub, info)
                bar.update(sum(progress.values()) - bar.n)
                if left and time.monotonic() >= stop_at:
                    raise UserError(
                        f"batch {', '.join(s.batch_id for s in left)} not finished after {self.deadline_s / 3600:g} h: "
                        "the answers already collected are saved and the batch is kept; rerun the same command to "
                        "collect it (or raise --batch-deadline)",
                        field="--batch-deadline",
                    )
                if left:
                    await asyncio.sleep(max(0.0, min(self.poll_s, stop_at - time.monotonic())))

    async def _collect(self, sub: SubmittedBatch, info: dict[str, Any]) -> None:
        """Hand out a finished batch's answers; a batch that did not complete stops the run."""
        answered = 0
        for file_key in ("output_file_id", "error_file_id"):
            if info.get(file_key):
                for raw in (await self.api.content(str(info[file_key]))).splitlines():
                    if raw.strip():
                        answered += self._deliver(sub, json.loads(raw))
        status = str(info.get("status"))
        missing = [k for k in sub.keys if k in self._waiting]
        if status == "completed":
            sub.status = "collected"
            self._save()
            for k in missing:  # the batch ended without a line for it: an error, retried by the next run
                self._resolve(
                    k, exc=PermanentModelError(f"batch {sub.batch_id} completed without an answer for this request")
                )
            return
        errors = (info.get("errors") or {}).get("data") or []
        why = str(errors[0].get("message")) if errors else status
        sub.status = status  # type: ignore[assignment]  # the provider's word for a batch that did not complete (failed, expired, cancelled), kept as it said it
        sub.note = why
        self._save()
        raise UserError(
            f"batch {sub.batch_id} {status} ({why}): {answered} of {len(sub.keys)} requests answered and saved; "
            f"rerun the same command to submit the other {len(missing)} in a new batch",
            field="--batch",
        )

    def _deliver(self, sub: SubmittedBatch, line: dict[str, Any]) -> int:
        """One line of an output or error file: 1 when it answered its request."""
        key = str(line.get("custom_id"))
        response = line.get("response") or {}
        status = int(response.get("status_code") or 0)
        body = response.get("body") or {}
        if status == 200 and isinstance(body, dict) and body.get("choices"):
            usage = Usage.of(body.get("usage"))
            text = (body["choices"][0].get("message") or {}).get("content")
            self._resolve(key, ModelResponse(text=text, usage=usage, cost_usd=self.inner.batch_cost(usage), attempts=1))
            return 1
        error = line.get("error") or (body.get("error") if isinstance(body, dict) else None) or {}
        message = str(error.get("message") or error or f"HTTP {status}")
        if str(error.get("code")) in ("batch_expired", "batch_cancelled"):
            return 0  # not run: reported by the batch's status, submitted again by the next run
        if classify_status(status, message) == "context":
            self._resolve(key, exc=ContextOverflow(f"{self.name}: {message}"))
        else:
            self._resolve(key, exc=PermanentModelError(f"batch {sub.batch_id}: HTTP {status or '?'}: {message}"))
        return 0

    def _resolve(self, key: str, response: ModelResponse | None = None, *, exc: Exception | None = None) -> None:
        future = self._waiting.pop(key, None)
        if future is None or future.done():
            return
        if exc is not None:
            exc.attempts = 1  # type: ignore[attr-defined] # the request was sent once, in the batch
            future.set_exception(exc)
        else:
            future.set_result(response)  # type: ignore[arg-type]  # a response is given whenever exc is not
