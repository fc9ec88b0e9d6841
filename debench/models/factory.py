"""Model strings -> Model objects: ``baseline/<name>``, ``local/<name>``, ``gguf/<file>``,
``vllm/<model or path>``, or any litellm string, each optionally followed by ``@key=value;...``
(see ``debench.models.args``; the reference is docs/models.md)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import Field

from debench.errors import UserError
from debench.models.args import RETRY_KEYS, ModelArgs, check_api_base, check_kind, parse_model_args, split_model_spec
from debench.models.base import Model
from debench.models.retry import RetryPolicy
from debench.options import Ensemble, ModelString, Options, Seed
from debench.redact import remember_secret

__all__ = ["JudgeOptions", "make_judge", "make_model", "parse_model_args"]

ArgsLike = ModelArgs | Mapping[str, Any] | str | None


def as_model_args(args: ArgsLike) -> ModelArgs:
    if args is None:
        return ModelArgs()
    if isinstance(args, ModelArgs):
        return args
    if isinstance(args, str):
        return parse_model_args(args)
    return parse_model_args(",".join(f"{k}={'|'.join(v) if isinstance(v, list) else v}" for k, v in args.items()))


def model_kind(spec: str) -> str:
    if spec.startswith("baseline/"):
        return "baseline"
    for kind in ("local", "gguf", "vllm"):
        if spec.startswith(kind + "/"):
            return kind
    return "server"


def make_model(
    spec: str,
    *,
    api_bases: list[str] | None = None,
    api_key: str | None = None,
    model_args: ArgsLike = None,
    seed: int = 0,
) -> Model:
    """One model from its string; ``model_args`` (``--model-args``) apply under the string's own
    ``@key=value`` settings. Unknown or inapplicable arguments are a ``UserError``."""
    api_bases = [check_api_base(b) for b in api_bases] if api_bases else None
    base, own = split_model_spec(spec)
    args = as_model_args(model_args).merged(own)
    kind = model_kind(base)
    check_kind(args, kind, base)
    client = args.client
    key = client.api_key or api_key
    remember_secret(key)
    retry_kwargs = {k: getattr(client, k) for k in RETRY_KEYS if getattr(client, k) is not None}
    retry = RetryPolicy(**retry_kwargs) if retry_kwargs else None
    generation = args.generation_overrides
    name = spec.strip()
    if kind == "baseline":
        from debench.models.baselines import make_baseline

        return make_baseline(base.removeprefix("baseline/"), seed)
    if kind in ("local", "gguf"):  # the embedded llama.cpp server
        from debench.models.local import DEFAULT_N_PARALLEL, LocalModel

        slots: dict[str, Any] = {"n_parallel": client.n_parallel or DEFAULT_N_PARALLEL, "n_ctx": client.n_ctx, "retry": retry, "generation": generation, "seed": seed}
        if kind == "local":
            model: Model = LocalModel(base.removeprefix("local/"), **slots)
        else:
            from debench.models.gguf import GGUFModel

            model = GGUFModel(base, revision=args.server.revision, **slots)
            name = name.replace(base, model.base_name, 1)  # an absolute path is named by its file and digest
        model.name = name
        return model
    if kind == "vllm":
        from debench.models.vllm import VLLMModel

        if api_bases is not None and len(api_bases) > 1:
            raise UserError(
                f"{base} with --api-base takes one URL; several servers of one model are openai/<name> --api-base URL1,URL2 (load-balanced by litellm's Router)",
                field="--api-base",
            )
        model = VLLMModel(
            base, server=args.server, api_base=api_bases[0] if api_bases else None, api_key=key, retry=retry,
            context_window=client.context_window, generation=generation, seed=seed,
        )
        model.name = name.replace(base, model.base_name, 1)  # an absolute path is named by its folder and digest
        return model
    if not base or ("/" not in base and not base[0].isalpha()):
        raise UserError(f"'{spec}' is not a model string")
    common: dict[str, Any] = {
        "api_key": key,
        "retry": retry,
        "send_grammar": client.grammar,
        "context_window": client.context_window,
        "generation": generation,
        "seed": seed,
    }
    if _use_http_client(base, api_bases, client.client):
        from debench.models.openai_http import OpenAIHTTPModel

        assert api_bases is not None
        model = OpenAIHTTPModel(base, api_base=api_bases[0], **common)
    else:
        from debench.models.litellm_model import LiteLLMModel

        model = LiteLLMModel(base, api_bases=api_bases, **common)
    model.name = name
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


def split_bases(api_base: str | None) -> list[str] | None:
    return [b.strip() for b in api_base.split(",") if b.strip()] if api_base else None


class JudgeOptions(Options):
    """The judge a command (or ``debench.evaluate``) names: its model string(s), how they are
    combined and reached. Checked before any model is made."""

    model: ModelString = Field(json_schema_extra={"expects": "a model string such as 'gpt-4o' or 'baseline/random'"})
    ensemble: Ensemble | None = None
    api_base: str | None = Field(default=None, json_schema_extra={"expects": "a server URL, or several comma-separated"})
    api_key: str | None = None
    model_args: str | dict[str, Any] | None = Field(default=None, json_schema_extra={"expects": "'key=value,...' or a mapping of settings"})
    seed: Seed = 0


def make_judge(
    model_spec: str,
    ensemble: str | None,
    *,
    api_base: str | None = None,
    api_key: str | None = None,
    model_args: ArgsLike = None,
    seed: int = 0,
    cache_path: Path | None = None,
) -> Model:
    """One model, or with ``ensemble`` several comma-separated models combined into one judge."""
    if not isinstance(model_args, ModelArgs):
        JudgeOptions.of(model=model_spec, ensemble=ensemble, api_base=api_base, api_key=api_key, model_args=model_args, seed=seed)
    bases = split_bases(api_base)
    specs = [m.strip() for m in model_spec.split(",") if m.strip()]
    args = as_model_args(model_args)
    if ensemble is None:
        if len(specs) != 1:
            raise UserError(f"--model names {len(specs)} models: combine them with --ensemble mean|median|majority", field="--model")
        if bases and model_kind(split_model_spec(specs[0])[0]) == "baseline":
            raise UserError(f"{specs[0]} calls no endpoint: --api-base does not apply to it", field="--api-base")
        return make_model(specs[0], api_bases=bases, api_key=api_key, model_args=args, seed=seed)
    from debench.models.ensemble import EnsembleModel

    return EnsembleModel([make_model(s, api_bases=bases, api_key=api_key, model_args=args, seed=seed) for s in specs], ensemble)
