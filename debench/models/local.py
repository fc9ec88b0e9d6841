"""``local/smollm2``: the embedded default judge, served by llama.cpp (xllamacpp) on 127.0.0.1
and called through litellm like any other OpenAI-compatible server. Needs no network, no key.
``LlamaCppModel`` is what it shares with ``gguf/<file>`` (``debench.models.gguf``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from debench.core.errors import UserError
from debench.models.base import ModelResponse, Request
from debench.models.litellm_model import LiteLLMModel
from debench.models.llama_cpp_settings import DEFAULT_SETTINGS, LlamaCppSettings
from debench.models.retry import RetryPolicy

LOCAL_MODELS = {"smollm2": "SmolLM2-135M-Instruct.Q4_1.gguf"}


class LlamaCppModel(LiteLLMModel):
    """A GGUF file served in-process by the embedded llama.cpp server (``local_server``) with
    ``settings``, the task's static GBNF grammar in every request. ``gguf`` None: SmolLM2's file
    from its wheel."""

    default_concurrency = 1

    def __init__(
        self,
        name: str,
        *,
        gguf: Path | None = None,
        served_name: str,
        settings: LlamaCppSettings = DEFAULT_SETTINGS,
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
        self.settings = settings
        self.default_concurrency = settings.n_parallel
        self._server: Any = None

    def llama_cpp_identity(self, weights: Any) -> dict[str, Any]:
        """The identity of these weights with these settings (those that differ from the defaults)."""
        ident: dict[str, Any] = {"name": self.base_name, "weights": weights, "send_grammar": True}
        return self.with_generation({**ident, **self.settings.identity()})

    @property
    def openai_compatible(self) -> bool:
        return True

    def check_ready(self) -> None:
        """The weights and llama.cpp's server are there (else one line saying what to install)."""
        self._ensure_server()

    def _ensure_server(self) -> Any:
        if self._server is None:
            from debench.models.local_server import get_local_server

            self._server = get_local_server(gguf=self.gguf, settings=self.settings)
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
        params["extra_body"] = {**params.get("extra_body", {}), "cache_prompt": self.settings.cache_prompt}
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
        settings: LlamaCppSettings = DEFAULT_SETTINGS,
        retry: RetryPolicy | None = None,
        generation: dict[str, Any] | None = None,
        seed: int = 0,
    ):
        if short not in LOCAL_MODELS:
            raise UserError(
                f"unknown local model 'local/{short}' (known: {', '.join('local/' + k for k in LOCAL_MODELS)})"
            )
        super().__init__(
            f"local/{short}", served_name=short, settings=settings, retry=retry, generation=generation, seed=seed
        )
        self.short = short

    def identity(self) -> dict[str, Any]:
        # The weights file, not the port, identifies the model.
        return self.llama_cpp_identity(LOCAL_MODELS[self.short])

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "weights": LOCAL_MODELS[self.short],
            "n_parallel": self.settings.n_parallel,
            "n_threads": self.settings.n_threads,
            "identity": self.identity(),
        }
