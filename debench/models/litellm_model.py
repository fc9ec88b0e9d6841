"""Any litellm model string, including OpenAI-compatible servers via ``--api-base``.

Several api bases are load-balanced with a litellm Router. Retries are ours (litellm's are turned
off) so that every sample's attempts are counted, capped and logged.
"""

from __future__ import annotations

import logging
import os
import random
import warnings
from types import ModuleType
from typing import Any

from debench.core.errors import UserError
from debench.data.prompts import Message
from debench.models.base import Model, ModelResponse, Request, Usage
from debench.models.retry import (
    TRANSIENT_EXCEPTIONS,
    FailureKind,
    RetryPolicy,
    TransientModelError,
    call_with_retries,
    classify_status,
    unreachable,
)
from debench.task.config import GenerationConfig

log = logging.getLogger(__name__)

__all__ = ["LiteLLMModel", "TransientModelError", "classify_exception"]
_UNKNOWN = object()


def _litellm() -> ModuleType:  # imported lazily: it is slow to import and baselines never need it
    import litellm

    # litellm.acompletion runs the provider's setup in a thread and awaits the coroutine it returns;
    # a call cancelled in between (the run stopping on an endpoint that cannot work, or Ctrl-C)
    # drops that coroutine unawaited. Python's warning about it is noise on a user's terminal,
    # printed above debench's one-line error.
    warnings.filterwarnings(
        "ignore", message=r"coroutine '\w+ChatCompletion\.acompletion' was never awaited", category=RuntimeWarning
    )
    litellm.suppress_debug_info = True
    litellm.drop_params = False  # what a provider does not accept is dropped by us, and recorded
    return litellm


OPENAI_PARAMS = ("temperature", "top_p", "max_tokens", "stop", "seed", "presence_penalty", "frequency_penalty")
"""Generation settings in OpenAI's request format; the others (top_k, min_p, repetition_penalty)
go to OpenAI-compatible servers in the request body and to providers as their own parameters."""


def classify_exception(exc: BaseException) -> FailureKind:
    """'context' | 'transient' | 'permanent' | 'unreachable' | 'fatal' | 'refused' (``debench.models.retry``).

    An error answer with a status is what ``retry.classify_status`` says (as for debench's own HTTP
    client): rate limits (429), timeouts (408), conflicts (409) and server errors (5xx) are
    retried; a prompt too long is not completed; a content filter's 400 fails its sample; a
    malformed request (400, 422) is refused (fatal before the endpoint has answered any request of
    the run, else that document's error); an endpoint no retry can fix stops the run at the first
    answer, with one line naming the URL and the status (exit code 2, finished samples kept): a
    missing or rejected key (401, 403: litellm's ``AuthenticationError``), no credit (402,
    ``insufficient_quota``), no such path or model (404: ``NotFoundError``, 405), 501. A refused
    connection (litellm reports it as a 500) is retried only for the grace period; the provider
    classes for dropped connections and timeouts are retried. Anything else (another 4xx, an
    exception without a status: a bug) fails its sample at once: retrying it would only cost time."""
    litellm = _litellm()
    if isinstance(exc, litellm.ContextWindowExceededError):
        return "context"
    if unreachable(exc):
        return "unreachable"
    if isinstance(exc, litellm.NotFoundError):
        return "fatal"
    status = getattr(exc, "status_code", None)
    if isinstance(status, int) and not isinstance(status, bool):
        kind = classify_status(status, str(exc))
        if kind != "permanent":
            return kind
    transient = (
        litellm.RateLimitError,
        litellm.Timeout,
        litellm.APIConnectionError,
        litellm.InternalServerError,
        litellm.ServiceUnavailableError,
        litellm.BadGatewayError,
        *TRANSIENT_EXCEPTIONS,
    )
    return "transient" if isinstance(exc, transient) else "permanent"


def env_endpoint(litellm_name: str) -> str | None:
    """The api base litellm sends ``litellm_name`` to when no api base is given and the environment
    sets one (the provider's variable, in litellm's order), else None: the provider's own default
    endpoint (a fixed base of litellm's routing table is that default, not recorded)."""
    try:
        provider = _litellm().get_llm_provider(litellm_name)[1]
    except Exception:  # noqa: BLE001 - unknown to litellm: check_ready refuses it
        return None
    prefix = str(provider).upper().replace("-", "_")
    names = (
        ("OPENAI_BASE_URL", "OPENAI_API_BASE") if prefix == "OPENAI" else (f"{prefix}_API_BASE", f"{prefix}_BASE_URL")
    )
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value.rstrip("/")
    return None


class LiteLLMModel(Model):
    kind = "litellm"

    def __init__(
        self,
        name: str,
        *,
        api_bases: list[str] | None = None,
        api_key: str | None = None,
        retry: RetryPolicy | None = None,
        send_grammar: bool = False,
        context_window: int | None = None,
        extra: dict[str, Any] | None = None,
        generation: dict[str, Any] | None = None,
        seed: int = 0,
    ):
        self.name = name
        self.base_name = name
        """The model string without ``@settings``: what identifies it (``name`` is the label)."""
        self.litellm_name = name
        self.generation_overrides = dict(generation or {})
        self.api_bases = [b.rstrip("/") for b in (api_bases or [])]
        self.api_key = api_key
        self.retry = retry or RetryPolicy()
        self.send_grammar = send_grammar
        self._context_window = context_window
        self._window_lookup: object = _UNKNOWN
        self.extra = dict(extra or {})
        self._rng = random.Random(seed)
        self._router: Any = None
        self._checked = False
        self._where: str | None = None
        self._env_endpoint: object = _UNKNOWN

    # identity: everything that can change an answer, nothing that cannot (keys, timeouts)
    def identity(self) -> dict[str, Any]:
        ident: dict[str, Any] = {"name": self.base_name, "send_grammar": self.send_grammar}
        bases = self.endpoints()
        if bases:
            ident["api_base"] = bases
        if self.extra:
            ident["extra"] = self.extra
        return self.with_generation(ident)

    def endpoints(self) -> list[str]:
        """The api base(s) a request actually reaches, whatever set them: ``--api-base`` (or the
        model args), else the provider's variable in the environment (``OPENAI_BASE_URL`` /
        ``OPENAI_API_BASE`` for OpenAI, ``<PROVIDER>_API_BASE`` / ``<PROVIDER>_BASE_URL`` for the
        others, as litellm reads them). Empty for the provider's own default endpoint. It is part of the identity (the
        cache key and the results' ``model.identity``): answers from one endpoint are never served for another."""
        if self.api_bases:
            return sorted(self.api_bases)
        if self._env_endpoint is _UNKNOWN:
            self._env_endpoint = env_endpoint(self.litellm_name)
        return [self._env_endpoint] if isinstance(self._env_endpoint, str) else []

    @property
    def openai_compatible(self) -> bool:
        """An OpenAI-compatible server of the user's (``openai/<name>`` with ``--api-base``): it
        receives every generation setting in the request body."""
        return bool(self.api_bases) and self.litellm_name.startswith("openai/")

    def _supported(self) -> set[str] | None:
        if self.openai_compatible:
            return None
        try:
            provider = _litellm().get_llm_provider(self.litellm_name)[1]
            params = _litellm().get_supported_openai_params(model=self.litellm_name, custom_llm_provider=provider)
        except Exception:  # noqa: BLE001 - unknown to litellm's tables: let the provider decide
            return None
        return set(params) if params else None

    def not_sent(self, generation: GenerationConfig) -> list[str]:
        supported = self._supported()
        if supported is None:
            return []
        return sorted(k for k in generation.sampling() if k in OPENAI_PARAMS and k not in supported)

    def _key(self) -> str | None:
        if self.api_key:
            return self.api_key
        if self.api_bases and self.litellm_name.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
            return "sk-no-key-needed"  # OpenAI-compatible local servers ignore it; the client insists
        return None

    def context_window(self) -> int | None:
        """The input token limit from litellm's model table (looked up once per model)."""
        if self._context_window is not None:
            return self._context_window
        if self._window_lookup is _UNKNOWN:
            try:
                info = _litellm().get_model_info(self.litellm_name)
                self._window_lookup = info.get("max_input_tokens") or info.get("max_tokens")
            except Exception:  # noqa: BLE001 - unknown model: no limit known
                self._window_lookup = None
        window = self._window_lookup
        return window if isinstance(window, int) else None

    def count_tokens(self, messages: list[Message]) -> int | None:
        try:
            return int(_litellm().token_counter(model=self.litellm_name, messages=messages))
        except Exception:  # noqa: BLE001 - a model litellm cannot count for: the context check is skipped
            return None

    def _params(self, request: Request) -> dict[str, Any]:
        settings = request.generation.sampling()
        dropped = set(self.not_sent(request.generation))
        params: dict[str, Any] = {
            "messages": request.messages,
            "timeout": self.retry.timeout,
            "num_retries": 0,
            "max_retries": 0,
        }
        extra_body = dict(self.extra.get("extra_body", {}))
        for k, v in settings.items():
            if k in dropped:
                continue
            if k in OPENAI_PARAMS or not self.openai_compatible:
                params[k] = v  # litellm passes non-OpenAI settings (top_k, ...) to providers as their own
            else:
                extra_body[k] = v
        if self.send_grammar and request.grammar_text:
            extra_body["grammar"] = request.grammar_text
        if extra_body:
            params["extra_body"] = extra_body
        key = self._key()
        if key:
            params["api_key"] = key
        return params

    def batch_api(self) -> Any:
        from debench.models.batch_api import LITELLM_BATCH_PROVIDERS, LiteLLMBatchAPI

        if len(self.api_bases) > 1:
            raise UserError("--batch sends a run to one server: give one --api-base", field="--batch")
        provider = "openai" if self.openai_compatible else self._provider()
        if provider not in LITELLM_BATCH_PROVIDERS:
            raise UserError(
                f"--batch: litellm runs OpenAI-format batches for {', '.join(LITELLM_BATCH_PROVIDERS)}, "
                f"not for {provider} ({self.name})",
                field="--batch",
            )
        return LiteLLMBatchAPI(
            provider,
            api_base=self.api_bases[0] if self.api_bases else None,
            api_key=self._key(),
            retry=self.retry,
            classify=classify_exception,
        )

    def _provider(self) -> str:
        try:
            return str(_litellm().get_llm_provider(self.litellm_name)[1])
        except Exception:  # noqa: BLE001 - unknown to litellm
            return "unknown"

    def batch_body(self, request: Request) -> dict[str, Any]:
        params = self._params(request)
        body: dict[str, Any] = {
            "model": self.litellm_name.split("/", 1)[1] if "/" in self.litellm_name else self.litellm_name,
            "messages": request.messages,
        }
        body.update(
            {
                k: v
                for k, v in params.items()
                if k not in ("messages", "timeout", "num_retries", "max_retries", "api_key", "extra_body")
            }
        )
        body.update(params.get("extra_body", {}))
        return body

    def batch_cost(self, usage: Usage) -> float | None:
        """An answer's price through the batch API (the batch rates of litellm's table)."""
        from debench.models.price_table import price_of

        try:
            price = price_of(_litellm().get_model_info(self.litellm_name))
        except Exception:  # noqa: BLE001 - a model litellm's table does not know: no price
            return None
        return price.cost(usage, batch=True) if price else None

    def _get_router(self) -> Any:
        if self._router is None:
            litellm = _litellm()
            key = self._key()
            model_list = [
                {
                    "model_name": "debench-target",
                    "litellm_params": {"model": self.litellm_name, "api_base": b, **({"api_key": key} if key else {})},
                }
                for b in self.api_bases
            ]
            self._router = litellm.Router(model_list=model_list, num_retries=0, routing_strategy="simple-shuffle")
        return self._router

    async def _call_once(self, request: Request) -> Any:
        params = self._params(request)
        if len(self.api_bases) > 1:
            params.pop("api_key", None)
            params.pop("max_retries", None)
            return await self._get_router().acompletion(model="debench-target", **params)
        if self.api_bases:
            params["api_base"] = self.api_bases[0]
        return await _litellm().acompletion(model=self.litellm_name, **params)

    def where(self) -> str:
        """What a request calls, for messages: the chat URL(s) of the api base(s), or the model."""
        if self._where is None:
            bases = ", ".join(f"{b}/chat/completions" for b in self.endpoints())
            self._where = bases or f"model '{self.name}' ({self._provider()})"
        return self._where

    def check_ready(self) -> None:
        """Before the first request (cached answers still serve without it): an unknown provider
        or a missing API key is a user error (one line, exit 2), not a run of failed samples.

        Only keys named ``*_API_KEY`` count as required: providers with other ways to
        authenticate (cloud credentials, a local Ollama) are left to the provider's answer.
        """
        if self._checked:
            return
        if not self.openai_compatible:
            try:
                _litellm().get_llm_provider(self.litellm_name)
            except Exception:  # noqa: BLE001 - litellm raises BadRequestError for an unknown provider
                raise UserError(
                    f"unknown model or provider '{self.name}' (litellm cannot route it); an OpenAI-compatible server "
                    "is openai/<name> with --api-base"
                ) from None
        missing = self._missing_api_keys()
        if missing:
            raise UserError(f"model '{self.name}' needs {' or '.join(missing)} in the environment (or --api-key)")
        self._checked = True

    def _missing_api_keys(self) -> list[str]:
        if self._key() or (self.api_bases and self._provider() != "openai"):
            # an OpenAI model at another api base still needs its key: the OpenAI client refuses to send without one
            return []
        try:
            env = _litellm().validate_environment(model=self.litellm_name)
        except Exception:  # noqa: BLE001 - a provider litellm cannot check: let the request tell
            return []
        missing = list(env.get("missing_keys") or [])
        if env.get("keys_in_environment", True) or not all(k.endswith("_API_KEY") for k in missing):
            return []
        return missing

    async def generate(self, request: Request) -> ModelResponse:
        self.check_ready()
        response, attempts = await call_with_retries(
            lambda: self._call_once(request),
            policy=self.retry,
            rng=self._rng,
            classify=classify_exception,
            where=self.where(),
        )
        return self._to_response(response, attempts)

    def _to_response(self, response: Any, attempts: int) -> ModelResponse:
        choice = response.choices[0]
        text = getattr(choice.message, "content", None)
        u = Usage.of(getattr(response, "usage", None))
        cost: float | None
        try:
            cost = float(_litellm().completion_cost(completion_response=response))
        except Exception:  # noqa: BLE001 - unknown price (local servers): report None, not 0
            cost = None
        return ModelResponse(text=text, usage=u, cost_usd=cost, attempts=attempts)
