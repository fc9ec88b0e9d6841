"""Model strings -> Model objects: ``baseline/<name>``, ``local/<name>``, or any litellm string."""

from __future__ import annotations

from typing import Any

from debench.errors import UserError
from debench.models.base import Model
from debench.models.retry import RetryPolicy


def parse_model_args(text: str | None) -> dict[str, Any]:
    """``key=value,key=value`` (values as int/float/bool when they look like one)."""
    out: dict[str, Any] = {}
    if not text:
        return out
    for part in text.split(","):
        if not part.strip():
            continue
        key, sep, value = part.partition("=")
        if not sep:
            raise UserError(f"--model-args: expected key=value, got '{part}'")
        v: Any = value.strip()
        if v.lower() in ("true", "false"):
            v = v.lower() == "true"
        else:
            for cast in (int, float):
                try:
                    v = cast(v)
                    break
                except ValueError:
                    pass
        out[key.strip()] = v
    return out


_RETRY_KEYS = {"max_retries", "base_delay", "max_delay", "timeout"}


def make_model(spec: str, *, api_bases: list[str] | None = None, api_key: str | None = None, model_args: dict[str, Any] | None = None, seed: int = 0) -> Model:
    args = dict(model_args or {})
    retry_kwargs = {k: args.pop(k) for k in list(args) if k in _RETRY_KEYS}
    retry = RetryPolicy(**retry_kwargs) if retry_kwargs else None
    if spec.startswith("baseline/"):
        from debench.models.baselines import make_baseline

        return make_baseline(spec.removeprefix("baseline/"), seed)
    if spec.startswith("local/"):
        from debench.models.local import DEFAULT_N_PARALLEL, LocalModel

        return LocalModel(
            spec.removeprefix("local/"),
            n_parallel=int(args.pop("n_parallel", DEFAULT_N_PARALLEL)),
            n_ctx=args.pop("n_ctx", None),
            retry=retry,
            seed=seed,
        )
    if not spec or "/" not in spec and not spec[0].isalpha():
        raise UserError(f"'{spec}' is not a model string")
    common: dict[str, Any] = {
        "api_key": api_key,
        "retry": retry,
        "send_grammar": bool(args.pop("grammar", False)),
        "context_window": args.pop("context_window", None),
        "seed": seed,
    }
    if _use_http_client(spec, api_bases, str(args.pop("client", "auto"))):
        from debench.models.openai_http import OpenAIHTTPModel

        assert api_bases is not None
        return OpenAIHTTPModel(spec, api_base=api_bases[0], extra=args or None, **common)
    from debench.models.litellm_model import LiteLLMModel

    return LiteLLMModel(spec, api_bases=api_bases, extra=args or None, **common)


def _use_http_client(spec: str, api_bases: list[str] | None, client: str) -> bool:
    """``client=auto`` (default): the direct HTTP client for ``openai/<name>`` with one ``--api-base``;
    litellm for everything else (providers, several load-balanced bases). ``client=http|litellm`` forces."""
    if client not in ("auto", "http", "litellm"):
        raise UserError(f"--model-args client={client}: expected auto, http or litellm")
    eligible = spec.startswith("openai/") and api_bases is not None and len(api_bases) == 1
    if client == "http" and not eligible:
        raise UserError("--model-args client=http needs an openai/<name> model and exactly one --api-base")
    return eligible and client != "litellm"


def make_judge(model_spec: str, ensemble: str | None, *, api_base: str | None, api_key: str | None, model_args: str | None, seed: int, use_cache: bool):  # type: ignore[no-untyped-def]
    """One model, or with ``--ensemble`` several comma-separated models combined into one judge."""
    bases = [b.strip() for b in api_base.split(",")] if api_base else None
    specs = [m.strip() for m in model_spec.split(",") if m.strip()]
    if ensemble is None:
        if len(specs) != 1:
            raise UserError(f"--model names {len(specs)} models: combine them with --ensemble mean|median|majority", field="--model")
        return make_model(specs[0], api_bases=bases, api_key=api_key, model_args=parse_model_args(model_args), seed=seed)
    from debench.models.ensemble import make_ensemble

    return make_ensemble(
        specs,
        ensemble,
        lambda spec: make_model(spec, api_bases=bases, api_key=api_key, model_args=parse_model_args(model_args), seed=seed),
        use_cache=use_cache,
    )
