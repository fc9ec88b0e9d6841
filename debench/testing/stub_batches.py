"""The stub server's OpenAI-compatible Files and Batch endpoints (``debench.testing.stub_server``).

``POST /v1/files`` (multipart: ``purpose``, ``file``), ``GET /v1/files/{id}``,
``GET /v1/files/{id}/content``, ``POST /v1/batches`` (``input_file_id``, ``endpoint``,
``completion_window``), ``GET /v1/batches/{id}`` and ``POST /v1/batches/{id}/cancel``, with the
objects and the output / error file lines of OpenAI's Batch API. A batch is answered in the
background by the same responder as live requests (over ``BatchPlan.duration`` seconds, so a
client polling it sees its request counts grow); ``BatchPlan.outcome`` makes it fail, expire
part-way (the answers so far go to the output file, the rest to the error file with
``batch_expired``) or be cancelled.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Callable
from typing import Any, Literal

from aiohttp import web
from aiohttp.web_request import FileField
from pydantic import BaseModel, ConfigDict, Field

from debench.testing.stub_answers import error_body

Complete = Callable[[dict[str, Any]], tuple[int, dict[str, Any]]]
"""A chat-completion request body -> (HTTP status, response JSON), as the live endpoint answers."""


class BatchPlan(BaseModel):
    """How the stub processes the batches created after it is set."""

    model_config = ConfigDict(extra="forbid")

    duration: float = Field(default=0.2, ge=0.0, description="seconds from in_progress to the end")
    outcome: Literal["completed", "failed", "expired", "cancelled"] = "completed"
    answered_share: float = Field(default=0.5, ge=0.0, le=1.0, description="expired / cancelled: share answered first")


def _error(status: int, message: str) -> web.Response:
    return web.Response(status=status, body=json.dumps(error_body(message)).encode(), content_type="application/json")


class BatchDesk:
    """Files and batches of one stub server."""

    def __init__(self, complete: Complete) -> None:
        self.complete = complete
        self.plan = BatchPlan()
        self.files: dict[str, tuple[dict[str, Any], bytes]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.n_batches_created = 0
        self._ids = itertools.count(1)
        self._tasks: set[asyncio.Task[Any]] = set()

    def routes(self, app: web.Application, prefix: str) -> None:
        app.router.add_post(f"{prefix}/files", self._upload)
        app.router.add_get(f"{prefix}/files/{{file_id}}", self._file)
        app.router.add_get(f"{prefix}/files/{{file_id}}/content", self._content)
        app.router.add_post(f"{prefix}/batches", self._create)
        app.router.add_get(f"{prefix}/batches/{{batch_id}}", self._retrieve)
        app.router.add_post(f"{prefix}/batches/{{batch_id}}/cancel", self._cancel)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def _store(self, data: bytes, filename: str, purpose: str) -> dict[str, Any]:
        meta: dict[str, Any] = {
            "id": f"file-stub-{next(self._ids)}",
            "object": "file",
            "bytes": len(data),
            "created_at": int(time.time()),
            "filename": filename,
            "purpose": purpose,
            "status": "processed",
        }
        self.files[meta["id"]] = (meta, data)
        return meta

    # -- files ------------------------------------------------------------------------------------
    async def _upload(self, request: web.Request) -> web.Response:
        try:
            form = await request.post()
        except ValueError:
            return _error(400, "expected a multipart form with 'purpose' and 'file'")
        upload = form.get("file")
        purpose = str(form.get("purpose") or "")
        if not isinstance(upload, FileField) or not purpose:
            return _error(400, "expected a multipart form with 'purpose' and 'file'")
        return web.json_response(self._store(upload.file.read(), str(upload.filename or "upload.jsonl"), purpose))

    async def _file(self, request: web.Request) -> web.Response:
        entry = self.files.get(request.match_info["file_id"])
        return web.json_response(entry[0]) if entry else _error(404, "No such file")

    async def _content(self, request: web.Request) -> web.Response:
        entry = self.files.get(request.match_info["file_id"])
        return (
            web.Response(body=entry[1], content_type="application/octet-stream")
            if entry
            else _error(404, "No such file")
        )

    # -- batches ----------------------------------------------------------------------------------
    async def _create(self, request: web.Request) -> web.Response:
        try:
            body = json.loads(await request.read())
        except ValueError:
            return _error(400, "The request body is not valid JSON.")
        file_id = body.get("input_file_id")
        if file_id not in self.files:
            return _error(400, f"input file {file_id!r} not found")
        if body.get("endpoint") != "/v1/chat/completions" or body.get("completion_window") != "24h":
            return _error(400, "only endpoint /v1/chat/completions and completion_window 24h are supported")
        now = int(time.time())
        batch = {
            "id": f"batch_stub_{next(self._ids)}",
            "object": "batch",
            "endpoint": body["endpoint"],
            "errors": None,
            "input_file_id": file_id,
            "completion_window": "24h",
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": now,
            "in_progress_at": None,
            "expires_at": now + 86400,
            "completed_at": None,
            "failed_at": None,
            "expired_at": None,
            "cancelled_at": None,
            "request_counts": {"total": 0, "completed": 0, "failed": 0},
            "metadata": body.get("metadata"),
        }
        self.batches[batch["id"]] = batch
        self.n_batches_created += 1
        task = asyncio.ensure_future(self._process(batch, self.plan))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return web.json_response(batch)

    async def _retrieve(self, request: web.Request) -> web.Response:
        batch = self.batches.get(request.match_info["batch_id"])
        return web.json_response(batch) if batch else _error(404, "No such batch")

    async def _cancel(self, request: web.Request) -> web.Response:
        batch = self.batches.get(request.match_info["batch_id"])
        if batch is None:
            return _error(404, "No such batch")
        if batch["status"] in ("validating", "in_progress"):
            batch["status"] = "cancelling"
        return web.json_response(batch)

    async def _process(self, batch: dict[str, Any], plan: BatchPlan) -> None:
        requests = self._requests(batch, plan)
        if requests is None:
            return
        batch.update(status="in_progress", in_progress_at=int(time.time()))
        batch["request_counts"]["total"] = len(requests)
        out, errors = await self._run(batch, requests, plan)
        now = int(time.time())
        if out:
            batch["output_file_id"] = self._store(_jsonl(out), f"{batch['id']}_output.jsonl", "batch_output")["id"]
        if errors:
            batch["error_file_id"] = self._store(_jsonl(errors), f"{batch['id']}_errors.jsonl", "batch_output")["id"]
        if plan.outcome == "expired":
            batch.update(status="expired", expired_at=now)
        elif batch["status"] == "cancelling" or plan.outcome == "cancelled":
            batch.update(status="cancelled", cancelled_at=now)
        else:
            batch.update(status="completed", completed_at=now)

    def _requests(self, batch: dict[str, Any], plan: BatchPlan) -> list[dict[str, Any]] | None:
        """The batch's requests, or None when it fails before any is run (it is then marked failed)."""
        requests = _parse_requests(self.files[batch["input_file_id"]][1])
        if requests is None:
            failure = ("invalid_request", "every line must be a JSON object with custom_id, method, url and body")
        elif len({r["custom_id"] for r in requests}) != len(requests):
            failure = ("duplicate_custom_id", "custom_id values must be unique within a batch")
        elif plan.outcome == "failed":
            failure = ("simulated_failure", "the batch failed (simulated by the debench stub server)")
        else:
            return requests
        self._fail(batch, *failure)
        return None

    async def _run(
        self, batch: dict[str, Any], requests: list[dict[str, Any]], plan: BatchPlan
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """The output and error file lines: answers over ``plan.duration``, until the plan's stop
        or a cancellation."""
        stop_at = len(requests) if plan.outcome == "completed" else int(plan.answered_share * len(requests))
        out: list[dict[str, Any]] = []
        errors: list[dict[str, Any]] = []
        for i, req in enumerate(requests):
            if i >= stop_at or batch["status"] == "cancelling":
                code = "batch_expired" if plan.outcome == "expired" else "batch_cancelled"
                errors.append(
                    {
                        "id": f"batch_req_{i}",
                        "custom_id": req["custom_id"],
                        "response": None,
                        "error": {
                            "code": code,
                            "message": f"The request was not run ({code}, simulated by the debench stub server).",
                        },
                    }
                )
                continue
            await asyncio.sleep(plan.duration / max(1, len(requests)))
            status, body = self.complete(req["body"])
            line = {
                "id": f"batch_req_{i}",
                "custom_id": req["custom_id"],
                "response": {"status_code": status, "request_id": f"req_{i}", "body": body},
                "error": None,
            }
            (out if status == 200 else errors).append(line)
            batch["request_counts"]["completed" if status == 200 else "failed"] += 1
        return out, errors

    def _fail(self, batch: dict[str, Any], code: str, message: str) -> None:
        batch.update(
            status="failed",
            failed_at=int(time.time()),
            errors={"object": "list", "data": [{"code": code, "message": message, "param": None, "line": None}]},
        )


def _parse_requests(data: bytes) -> list[dict[str, Any]] | None:
    """The requests of a batch input file, or None when a line is not one."""
    try:
        requests = [json.loads(line) for line in data.splitlines() if line.strip()]
    except ValueError:
        return None
    ok = all(isinstance(r, dict) and r.get("custom_id") and isinstance(r.get("body"), dict) for r in requests)
    return requests if ok else None


def _jsonl(rows: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows)
