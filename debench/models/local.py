"""``local/smollm2``: the embedded default judge, served by llama.cpp (xllamacpp) on 127.0.0.1
and called through litellm like any other OpenAI-compatible server. Needs no network, no key.
``LlamaCppModel`` is what it shares with ``gguf/<file>`` (``debench.models.gguf``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from debench.core.errors import UserError
from debench.models.base import ModelResponse, Request
from debench.models.litellm_model import LiteLLMModel
from debench.models.local_server import DEFAULT_THREADS
from debench.models.retry import RetryPolicy

LOCAL_MODELS = {"smollm2": "SmolLM2-135M-Instruct.Q4_1.gguf"}
DEFAULT_N_PARALLEL = 1
"""llama.cpp slots (and requests in flight). Measured by ``python -m benchmarks`` on 2 cores with
real IBM speeches: 4 slots at concurrency 4 judge no faster than 1 slot at concurrency 1 (prompt
processing, ~1,000 tokens a speech, is compute-bound and already batched within one request;
parallel slots only batch the few generated tokens) and cost 4x the KV-cache memory, so 1 stays
the default; ``--model-args n_parallel=4`` (with ``--concurrency 4``) is there for more cores."""


class LlamaCppModel(LiteLLMModel):
    """A GGUF file served in-process by the embedded llama.cpp server (``local_server``), with the
    task's static GBNF grammar in every request. ``gguf`` None: SmolLM2's file from its wheel."""

    default_concurrency = 1

    def __init__(
        self,
        name: str,
        *,
        gguf: Path | None = None,
        served_name: str,
        n_parallel: int = DEFAULT_N_PARALLEL,
        n_ctx: int | None = None,
        cache_prompt: bool = False,
        n_threads: int = DEFAULT_THREADS,
        retry: RetryPolicy | None = None,
        generation: dict[str, Any] | None = None,
        seed: int = 0,
    ):
        super().__init__(
            name,
            retry=retry or RetryPolicy(max_retries=2, timeout=600.0),
            send_grammar=True,
            generation=generation,
            seed=seed,
        )
        self.litellm_name = f"openai/{served_name}"
        self.gguf = gguf
        self.n_parallel = n_parallel
        self.default_concurrency = n_parallel
        self.n_ctx = n_ctx
        self.cache_prompt = cache_prompt
        self.n_threads = n_threads
        self._server: Any = None

    def slot_settings(self) -> dict[str, Any]:
        # Parallel slots batch decoding, which can change greedy answers, the context size decides
        # what fits, the prompt cache makes an answer depend on the request before, and the thread
        # count changes the sums an answer comes from: all four count (in identities) when they
        # differ from the defaults.
        out: dict[str, Any] = {}
        if self.n_parallel != DEFAULT_N_PARALLEL:
            out["n_parallel"] = self.n_parallel
        if self.n_ctx:
            out["n_ctx"] = self.n_ctx
        if self.cache_prompt:
            out["cache_prompt"] = True
        if self.n_threads != DEFAULT_THREADS:
            out["n_threads"] = self.n_threads
        return out

    @property
    def openai_compatible(self) -> bool:
        return True

    def check_ready(self) -> None:
        """The weights and llama.cpp's server are there (else one line saying what to install)."""
        self._ensure_server()

    def _ensure_server(self) -> Any:
        if self._server is None:
            from debench.models.local_server import get_local_server

            kwargs: dict[str, Any] = {"gguf": self.gguf, "n_parallel": self.n_parallel, "threads": self.n_threads}
            if self.n_ctx:
                kwargs["n_ctx"] = self.n_ctx
            self._server = get_local_server(**kwargs)
            self.api_bases = [self._server.base_url]
        return self._server

    def context_window(self) -> int | None:
        server = self._ensure_server()
        return int(getattr(server, "slot_ctx", None) or server.n_ctx // max(1, server.n_parallel))

    def count_tokens(self, messages: list[dict[str, str]]) -> int | None:
        # Not the model's own tokenizer: ~10% high for English with SmolLM2's (larger vocabularies
        # give fewer tokens still), so a prompt judged too long is one that would not have fitted.
        text = "".join(m["content"] for m in messages)
        return int(len(text) / 3.6) + 8 * len(messages)

    async def generate(self, request: Request) -> ModelResponse:
        self._ensure_server()
        return await super().generate(request)

    def _params(self, request: Request) -> dict[str, Any]:
        # llama.cpp reuses the previous prompt's cached prefix and computes only the rest, so a
        # greedy answer depended on which requests came before (docs/leaderboard.md). Without the
        # prompt cache (the default) every request is computed whole: the same answer in any
        # order. ``cache_prompt=true`` trades that for speed on chains that share long prefixes.
        params = super()._params(request)
        params["extra_body"] = {**params.get("extra_body", {}), "cache_prompt": self.cache_prompt}
        return params

    def batch_api(self) -> Any:
        # litellm's batch path would send the requests to OpenAI's own API, not to this server
        raise UserError(f"{self.name}: the embedded llama.cpp server has no batch API; drop --batch", field="--batch")


class LocalModel(LlamaCppModel):
    kind = "local"

    def __init__(
        self,
        short: str,
        *,
        n_parallel: int = DEFAULT_N_PARALLEL,
        n_ctx: int | None = None,
        cache_prompt: bool = False,
        n_threads: int = DEFAULT_THREADS,
        retry: RetryPolicy | None = None,
        generation: dict[str, Any] | None = None,
        seed: int = 0,
    ):
        if short not in LOCAL_MODELS:
            raise UserError(
                f"unknown local model 'local/{short}' (known: {', '.join('local/' + k for k in LOCAL_MODELS)})"
            )
        super().__init__(
            f"local/{short}",
            served_name=short,
            n_parallel=n_parallel,
            n_ctx=n_ctx,
            cache_prompt=cache_prompt,
            n_threads=n_threads,
            retry=retry,
            generation=generation,
            seed=seed,
        )
        self.short = short

    def identity(self) -> dict[str, Any]:
        # The weights file, not the port, identifies the model.
        ident: dict[str, Any] = {
            "name": self.base_name,
            "weights": LOCAL_MODELS[self.short],
            "send_grammar": True,
            **self.slot_settings(),
        }
        return self.with_generation(ident)

    def describe(self) -> dict[str, Any]:
        ident = self.identity()
        return {
            "name": self.name,
            "kind": self.kind,
            "weights": LOCAL_MODELS[self.short],
            "n_parallel": self.n_parallel,
            "n_threads": self.n_threads,
            "identity": ident,
        }
