"""The model a results file's ``model.identity`` names, rebuilt: the identity must come out the same.

The submitter's self-check (``debench.leaderboard.self_check``) rebuilds a recorded model, through
the endpoint the identity names. (The leaderboard's own run never rebuilds a submitted identity: it
runs the canonical judge the maintainers' settings make, ``debench.leaderboard.reproduce``.) The
model is made from the identity's name, api base, generation settings (an ensemble: its members)
and the operator's own settings on top — those outside the identity (``tensor_parallel_size``,
``vllm_command``, …); a setting that would change the identity is refused, like any other rebuild
that does not come out the same.

Open weights (``vllm/<org>/<name>``, ``gguf/hf:…``): the machine that rebuilds downloads and serves
them. Two things a submitter writes are never acted on without the operator: ``server_args``
(flags for ``vllm serve`` on that machine; some load code) are used only when the operator gives
the same ones, and weights named by a local path (the submitter's disk) are not re-served at all.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable
from typing import Any

from pydantic import ValidationError

from debench.core.errors import UserError
from debench.models.args import LLAMA_CPP_KEYS, ClientArgs, GenerationArgs, ModelArgs, ServerArgs
from debench.models.base import Model


def _server_settings(identity: dict[str, Any], operator: ModelArgs | None) -> dict[str, Any]:
    """The server settings of open weights the rebuilding machine serves itself: Hub weights only, at
    the recorded revision, and recorded ``server_args`` only when the operator gives the same ones."""
    recorded_weights = identity.get("weights")
    weights: dict[str, Any] = recorded_weights if isinstance(recorded_weights, dict) else {}
    if weights.get("source") == "path":
        raise UserError(
            f"{identity.get('name')} names weights on the submitter's disk: a recorded model is served from Hub "
            "weights only (vllm/<org>/<name>@revision=…, gguf/hf:…)",
            field="model.identity.weights",
        )
    server: dict[str, Any] = {}
    if weights.get("revision") is not None:
        server["revision"] = weights["revision"]
    recorded = dict(identity.get("server") or {})
    server_args = recorded.pop("server_args", None)
    server.update(recorded)
    if server_args is not None:
        given = operator.server.server_args if operator is not None else None
        if given is None or shlex.split(given) != list(server_args):
            raise UserError(
                f"{identity.get('name')} was served with server_args {shlex.join(server_args)}: flags for vllm serve "
                "on this machine are used only when the operator gives the same ones (server_args=… in "
                "--spot-check-model-args)",
                field="model.identity.server",
            )
        server["server_args"] = given
    return server


def _args_of(identity: dict[str, Any], kind: str, operator: ModelArgs | None) -> ModelArgs:
    """The model arguments an identity records, with the operator's (those the kind uses) on top."""
    client: dict[str, Any] = {}
    if kind == "server" and identity.get("send_grammar"):
        client["grammar"] = True
    if kind in ("local", "gguf"):
        client.update({k: identity[k] for k in LLAMA_CPP_KEYS if k in identity})
    server = _server_settings(identity, operator) if kind in ("vllm", "gguf") else {}
    try:
        args = ModelArgs(
            generation=GenerationArgs(**identity.get("generation", {})),
            client=ClientArgs(**client),
            server=ServerArgs(**server),
        )
    except ValidationError as exc:
        raise UserError(
            f"not a model identity debench writes ({exc.errors()[0]['msg']})", field="model.identity"
        ) from None
    if operator is None:
        return args
    from debench.models.kinds import kind_keys

    return args.merged(operator.restricted(kind_keys(kind)))


def model_from_identity(
    identity: dict[str, Any],
    api_key: str | Callable[[dict[str, Any]], str | None] | None,
    operator: ModelArgs | None = None,
) -> Model:
    """The model a results file's ``model.identity`` names, rebuilt (its identity must come out the
    same). ``api_key``: one key, or a function giving each (member) identity its key; ``operator``:
    the rebuilding machine's own settings (the self-check's ``--spot-check-model-args``)."""
    from debench.models.ensemble import EnsembleModel
    from debench.models.factory import make_model, model_kind

    if "members" in identity:
        members = [model_from_identity(m, api_key, operator) for m in identity["members"]]
        model: Model = EnsembleModel(members, str(identity.get("aggregate")))
    else:
        name = str(identity.get("name", ""))
        kind = model_kind(name)
        seed = int(identity.get("seed", 0)) if kind == "baseline" else 0
        args = _args_of(identity, kind, operator) if kind != "baseline" else ModelArgs()
        bases = identity.get("api_base") or None
        key = api_key(identity) if callable(api_key) else api_key
        model = make_model(name, api_bases=list(bases) if bases else None, api_key=key, model_args=args, seed=seed)
    _refuse_other_identity(model.identity(), identity)
    return model


def _refuse_other_identity(rebuilt: dict[str, Any], recorded: dict[str, Any]) -> None:
    """``UserError`` naming the fields in which the rebuilt model's identity differs from the recorded one."""
    if rebuilt != recorded:
        differs = sorted(k for k in {*rebuilt, *recorded} if rebuilt.get(k) != recorded.get(k))
        raise UserError(
            f"the model rebuilt from this identity differs in {', '.join(differs)} (recorded "
            f"{json.dumps({k: recorded.get(k) for k in differs})}, rebuilt "
            f"{json.dumps({k: rebuilt.get(k) for k in differs})}): other weights, settings or debench version",
            field="model.identity",
        )
