"""Model strings -> Model objects: ``baseline/<name>``, ``local/<name>``, ``gguf/<file>``,
``vllm/<model or path>``, or any litellm string, each optionally followed by ``@key=value;...``
(see ``debench.models.args``; the reference is docs/models.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from debench.core.errors import UserError
from debench.core.options import JudgeSpec
from debench.core.redact import remember_secret
from debench.models.args import (
    RETRY_KEYS,
    ModelArgs,
    check_api_base,
    check_kind,
    kind_args,
    parse_model_args,
    split_model_spec,
)
from debench.models.base import Model
from debench.models.retry import RetryPolicy

__all__ = ["make_judge", "make_model", "parse_model_args"]

ArgsLike = ModelArgs | Mapping[str, Any] | str | None


def as_model_args(args: ArgsLike, own: frozenset[str] = frozenset()) -> ModelArgs:
    """Model arguments as given (text, a mapping, or already parsed); ``own``: the keys the model
    kind declares itself."""
    if args is None:
        return ModelArgs()
    if isinstance(args, ModelArgs):
        return args
    if isinstance(args, str):
        return parse_model_args(args, own=own)
    text = ",".join(f"{k}={'|'.join(v) if isinstance(v, list) else v}" for k, v in args.items())
    return parse_model_args(text, own=own)


def model_kind(spec: str) -> str:
    """The kind (``debench.models`` entry point) a model string names: its prefix, or ``server``."""
    from debench.models.kinds import kind_of

    return kind_of(spec)


def make_model(
    spec: str,
    *,
    api_bases: list[str] | None = None,
    api_key: str | None = None,
    model_args: ArgsLike = None,
    seed: int = 0,
) -> Model:
    """One model from its string, made by the model kind its prefix names (``debench.models.kinds``);
    ``model_args`` (``--model-args``) apply under the string's own ``@key=value`` settings. Unknown
    or inapplicable arguments are a ``UserError``."""
    from debench.models.kinds import MODEL_KINDS, ModelRequest, own_args

    api_bases = [check_api_base(b) for b in api_bases] if api_bases else None
    kind = MODEL_KINDS.get(model_kind(spec.partition("@")[0].strip()))
    declared = own_args(kind)
    own_keys = frozenset(declared.model_fields) if declared is not None else frozenset()
    base, own = split_model_spec(spec, own_keys)
    args = as_model_args(model_args, own_keys).merged(own)
    check_kind(args, kind.keys, base)
    checked_own = kind_args(declared, args.own, base)
    client = args.client
    key = client.api_key or api_key
    remember_secret(key)
    retry_kwargs = {k: getattr(client, k) for k in RETRY_KEYS if getattr(client, k) is not None}
    retry = RetryPolicy(**retry_kwargs) if retry_kwargs else None
    return kind.make(
        ModelRequest(
            name=spec.strip(),
            base=base,
            args=args,
            api_bases=api_bases,
            api_key=key,
            retry=retry,
            seed=seed,
            kind_args=checked_own,
        )
    )


def split_bases(api_base: str | None) -> list[str] | None:
    return [b.strip() for b in api_base.split(",") if b.strip()] if api_base else None


def make_judge(spec: JudgeSpec, *, seed: int = 0) -> Model:
    """The judge ``spec`` names: one model, or with ``spec.ensemble`` several comma-separated models
    combined into one; ``seed`` is the run's (``--seed``)."""
    bases = split_bases(spec.api_base)
    specs = [m.strip() for m in spec.model.split(",") if m.strip()]
    args = spec.model_args  # parsed for each model, with the keys its kind declares itself
    if spec.ensemble is None:
        if len(specs) != 1:
            raise UserError(
                f"--model names {len(specs)} models: combine them with --ensemble mean|median|majority", field="--model"
            )
        if bases and model_kind(specs[0].partition("@")[0].strip()) == "baseline":
            raise UserError(f"{specs[0]} calls no endpoint: --api-base does not apply to it", field="--api-base")
        return make_model(specs[0], api_bases=bases, api_key=spec.api_key, model_args=args, seed=seed)
    from debench.models.ensemble import EnsembleModel

    return EnsembleModel(
        [make_model(s, api_bases=bases, api_key=spec.api_key, model_args=args, seed=seed) for s in specs],
        spec.ensemble,
    )
