"""debench's own model kinds, registered as entry points of ``debench.models`` like a plug-in's:
``baseline/``, ``local/``, ``gguf/``, ``vllm/`` and the ``server`` kind every other model string
goes to (litellm, or the direct HTTP client for ``openai/<name>`` with one ``--api-base``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from debench.core.errors import UserError
from debench.models.args import CLIENT_KEYS, GENERATION_KEYS, LLAMA_CPP_KEYS, RETRY_KEYS, SERVER_KEYS
from debench.models.base import Model
from debench.models.kinds import ModelRequest
from debench.models.llama_cpp_settings import LlamaCppSettings


@dataclass(frozen=True)
class Baseline:
    description: str = "baseline/<name>[:<arg>]: a reference judge that calls no model (random, majority, ...)"
    keys: frozenset[str] = frozenset((*GENERATION_KEYS, *CLIENT_KEYS, *SERVER_KEYS))
    """Client and server settings are accepted and unused (no request is made); generation settings
    are refused by ``make`` with the reason."""

    def make(self, request: ModelRequest) -> Model:
        from debench.models.baselines import make_baseline

        generation = sorted(request.args.generation.model_fields_set)
        if generation:
            raise UserError(
                f"{request.base} calls no model, so it takes no generation settings (got {', '.join(generation)})"
            )
        return make_baseline(request.base.removeprefix("baseline/"), request.seed)


def _llama_cpp(request: ModelRequest) -> dict[str, Any]:
    """What a ``local/`` or ``gguf/`` model is made with: its llama.cpp settings (those given, the
    defaults for the others), retries, generation settings and seed."""
    given = request.args.client.model_dump(include=set(LLAMA_CPP_KEYS), exclude_none=True)
    return {
        "settings": LlamaCppSettings(**given),
        "retry": request.retry,
        "generation": request.args.generation_overrides,
        "seed": request.seed,
    }


@dataclass(frozen=True)
class Local:
    description: str = "local/<name>: a model of debench's embedded llama.cpp server (the [local] extra)"
    keys: frozenset[str] = frozenset((*GENERATION_KEYS, *RETRY_KEYS, *LLAMA_CPP_KEYS))

    def make(self, request: ModelRequest) -> Model:
        from debench.models.local import LocalModel

        model = LocalModel(request.base.removeprefix("local/"), **_llama_cpp(request))
        model.name = request.name
        return model


@dataclass(frozen=True)
class GGUF:
    description: str = "gguf/<file or hf:repo/file>: GGUF weights on the embedded llama.cpp server"
    keys: frozenset[str] = frozenset((*GENERATION_KEYS, *RETRY_KEYS, *LLAMA_CPP_KEYS, "revision"))

    def make(self, request: ModelRequest) -> Model:
        from debench.models.gguf import GGUFModel

        model = GGUFModel(request.base, revision=request.args.server.revision, **_llama_cpp(request))
        model.name = request.name.replace(
            request.base, model.base_name, 1
        )  # an absolute path is named by its file and digest
        return model


@dataclass(frozen=True)
class VLLM:
    description: str = "vllm/<model or path>: a vLLM server debench starts (or the one at --api-base)"
    keys: frozenset[str] = frozenset((*GENERATION_KEYS, *RETRY_KEYS, "context_window", "api_key", *SERVER_KEYS))

    def make(self, request: ModelRequest) -> Model:
        from debench.models.vllm import VLLMModel

        bases = request.api_bases
        if bases is not None and len(bases) > 1:
            raise UserError(
                f"{request.base} with --api-base takes one URL; several servers of one model are openai/<name> "
                "--api-base URL1,URL2 (load-balanced by litellm's Router)",
                field="--api-base",
            )
        model = VLLMModel(
            request.base,
            server=request.args.server,
            api_base=bases[0] if bases else None,
            api_key=request.api_key,
            retry=request.retry,
            context_window=request.args.client.context_window,
            generation=request.args.generation_overrides,
            seed=request.seed,
        )
        model.name = request.name.replace(
            request.base, model.base_name, 1
        )  # an absolute path is named by its folder and digest
        return model


@dataclass(frozen=True)
class Server:
    description: str = (
        "any other model string: a litellm model (provider/name), or openai/<name> on an OpenAI-compatible --api-base"
    )
    keys: frozenset[str] = frozenset((*GENERATION_KEYS, *RETRY_KEYS, "client", "grammar", "context_window", "api_key"))

    def make(self, request: ModelRequest) -> Model:
        base, bases, client = request.base, request.api_bases, request.args.client
        if not base or ("/" not in base and not base[0].isalpha()):
            raise UserError(f"'{request.name}' is not a model string")
        common: dict[str, Any] = {
            "api_key": request.api_key,
            "retry": request.retry,
            "send_grammar": client.grammar,
            "context_window": client.context_window,
            "generation": request.args.generation_overrides,
            "seed": request.seed,
        }
        model: Model
        if _use_http_client(base, bases, client.client):
            from debench.models.openai_http import OpenAIHTTPModel

            assert bases is not None
            model = OpenAIHTTPModel(base, api_base=bases[0], **common)
        else:
            from debench.models.litellm_model import LiteLLMModel

            model = LiteLLMModel(base, api_bases=bases, **common)
        model.name = request.name
        return model


def _use_http_client(spec: str, api_bases: list[str] | None, client: str) -> bool:
    """``client=auto`` (default): the direct HTTP client for ``openai/<name>`` with one ``--api-base``;
    litellm for everything else (providers, several load-balanced bases). ``client=http|litellm`` forces."""
    if client not in ("auto", "http", "litellm"):
        raise UserError(f"--model-args client={client}: expected auto, http or litellm")
    eligible = spec.startswith("openai/") and api_bases is not None and len(api_bases) == 1
    if client == "http" and not eligible:
        raise UserError("--model-args client=http needs an openai/<name> model and exactly one --api-base")
    return eligible and client != "litellm"


BASELINE = Baseline()
LOCAL = Local()
GGUF_FILE = GGUF()
VLLM_SERVER = VLLM()
SERVER = Server()
