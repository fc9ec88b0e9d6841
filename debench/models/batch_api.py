"""Clients of an OpenAI-compatible Files + Batch API: upload a JSONL of requests, create a batch,
retrieve it, download its output and error files.

``HTTPBatchAPI`` speaks to the server of ``openai/<name> --api-base URL`` directly (aiohttp), the
way ``debench.models.openai_http`` does for live requests; ``LiteLLMBatchAPI`` goes through
litellm's ``acreate_file`` / ``acreate_batch`` / ``aretrieve_batch`` / ``afile_content`` for the
providers litellm runs batches for with this format. Both retry transient failures (429, 5xx,
dropped connections) with the live requests' retry loop.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, Protocol

import aiohttp

from debench.core.errors import UserError
from debench.models.http_errors import MalformedResponse, classify_http_exception, error_message, http_error
from debench.models.retry import EndpointError, FailureKind, RetryPolicy, call_with_retries

ENDPOINT = "/v1/chat/completions"
WINDOW = "24h"


class BatchAPI(Protocol):
    async def upload(self, data: bytes, filename: str) -> str:
        """The id of the uploaded file (purpose ``batch``)."""
        ...

    async def create(self, input_file_id: str) -> dict[str, Any]:
        """The new batch object."""
        ...

    async def retrieve(self, batch_id: str) -> dict[str, Any]: ...

    async def content(self, file_id: str) -> bytes: ...

    async def aclose(self) -> None: ...


@contextmanager
def no_batch_endpoints(server: str) -> Iterator[None]:
    """A 404 from the Files or Batch API means the server has none: ``--batch`` cannot work there
    (one line, exit code 2, before any sample is judged)."""
    try:
        yield
    except EndpointError as exc:
        status = getattr(exc.__cause__, "status", None) or getattr(exc.__cause__, "status_code", None)
        if status != 404:
            raise
        raise UserError(
            f"{server} has no batch endpoints (Files + Batch API): {exc}; run without --batch", field="--batch"
        ) from exc


class HTTPBatchAPI:
    """An OpenAI-compatible server's ``/files`` and ``/batches`` under its api base."""

    def __init__(self, api_base: str, api_key: str, retry: RetryPolicy, seed: int = 0):
        self.api_base = api_base.rstrip("/")
        self._auth = {"Authorization": f"Bearer {api_key}"}
        self.retry = retry
        self._rng = random.Random(seed)
        self._session: aiohttp.ClientSession | None = None

    def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            # no default content type: an upload is multipart, the rest JSON
            self._session = aiohttp.ClientSession(
                headers=self._auth, timeout=aiohttp.ClientTimeout(total=self.retry.timeout)
            )
        return self._session

    async def _call(self, method: str, path: str, *, raw: bool = False, json_body: Any = None, form: Any = None) -> Any:
        """One call, retried when transient; ``form`` builds the multipart body (once per attempt)."""

        async def once() -> Any:
            data = form() if form is not None else None
            async with self._get_session().request(method, self.api_base + path, json=json_body, data=data) as resp:
                body = await resp.read()
                if resp.status != 200:
                    raise http_error(resp.status, error_message(body), resp.headers)
            if raw:
                return body
            try:
                return json.loads(body)
            except ValueError as exc:
                raise MalformedResponse(f"unreadable answer from {path}: {body[:200]!r}") from exc

        where = f"{method} {self.api_base}{path}"
        with no_batch_endpoints(self.api_base):
            result, _ = await call_with_retries(
                once, policy=self.retry, rng=self._rng, classify=classify_http_exception, where=where
            )
        return result

    async def upload(self, data: bytes, filename: str) -> str:
        def form() -> aiohttp.FormData:
            f = aiohttp.FormData()
            f.add_field("purpose", "batch")
            f.add_field("file", data, filename=filename, content_type="application/jsonl")
            return f

        answer = await self._call("POST", "/files", form=form)
        return str(answer["id"])

    async def create(self, input_file_id: str) -> dict[str, Any]:
        body = {"input_file_id": input_file_id, "endpoint": ENDPOINT, "completion_window": WINDOW}
        batch: dict[str, Any] = await self._call("POST", "/batches", json_body=body)
        return batch

    async def retrieve(self, batch_id: str) -> dict[str, Any]:
        batch: dict[str, Any] = await self._call("GET", f"/batches/{batch_id}")
        return batch

    async def content(self, file_id: str) -> bytes:
        content: bytes = await self._call("GET", f"/files/{file_id}/content", raw=True)
        return content

    async def aclose(self) -> None:
        session, self._session = self._session, None
        if session is not None and not session.closed:
            await session.close()


LITELLM_BATCH_PROVIDERS = ("openai", "azure", "hosted_vllm")
"""Providers whose batches litellm runs in OpenAI's JSONL format (the others need cloud storage)."""


class LiteLLMBatchAPI:
    """Batches through litellm, for a provider model (``gpt-4o``, ``azure/...``) or an
    OpenAI-compatible server reached through litellm (``--model-args client=litellm``)."""

    def __init__(
        self,
        provider: str,
        *,
        api_base: str | None,
        api_key: str | None,
        retry: RetryPolicy,
        classify: Callable[[BaseException], FailureKind],
        seed: int = 0,
    ):
        self.provider = provider
        self.classify = classify
        self._kw: dict[str, Any] = {"custom_llm_provider": provider}
        if api_base:
            self._kw["api_base"] = api_base
        if api_key:
            self._kw["api_key"] = api_key
        self.retry = retry
        self._rng = random.Random(seed)

    async def _call(self, fn: Any, **kwargs: Any) -> Any:
        where = f"{fn.__name__} at {self._kw.get('api_base') or self.provider}"
        with no_batch_endpoints(self._kw.get("api_base") or self.provider):
            result, _ = await call_with_retries(
                lambda: fn(**kwargs, **self._kw), policy=self.retry, rng=self._rng, classify=self.classify, where=where
            )
        return result

    async def upload(self, data: bytes, filename: str) -> str:
        import litellm

        answer = await self._call(litellm.acreate_file, file=(filename, data), purpose="batch")
        return str(answer.id)

    async def create(self, input_file_id: str) -> dict[str, Any]:
        import litellm

        batch = await self._call(
            litellm.acreate_batch, completion_window=WINDOW, endpoint=ENDPOINT, input_file_id=input_file_id
        )
        return _as_dict(batch)

    async def retrieve(self, batch_id: str) -> dict[str, Any]:
        import litellm

        return _as_dict(await self._call(litellm.aretrieve_batch, batch_id=batch_id))

    async def content(self, file_id: str) -> bytes:
        import litellm

        answer = await self._call(litellm.afile_content, file_id=file_id)
        data = getattr(answer, "content", answer)
        return data if isinstance(data, bytes) else await asyncio.to_thread(answer.read)

    async def aclose(self) -> None:
        pass


def _as_dict(obj: Any) -> dict[str, Any]:
    return obj.model_dump() if hasattr(obj, "model_dump") else dict(obj)
