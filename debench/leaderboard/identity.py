"""Who judged: the results file's model identity, judge method and run fingerprint must agree.

* ``task.method`` is one of debench's judge methods (``debench.judging.base.METHODS``), the one
  the run recorded in ``config.method``, and one the task supports (Debatrix needs the task's
  ``debatrix`` section);
* ``model.identity`` is present (older results without it cannot enter the leaderboard), its
  ``name`` is ``model.name`` (without the ``@settings`` a model string may carry), and the model's kind matches its
  name: ``baseline/…`` names are baselines, ``local/…`` names the embedded model, ``gguf/…`` and ``vllm/…`` their kinds,
  ``ensemble-…`` names ensembles. A baseline's identity (also as an ensemble member) must be exactly the one debench
  gives that baseline, and an ensemble's names its rule and its members;
* ``config.fingerprint`` equals ``run_fingerprint(task, model.identity, dataset.content_hash,
  task.method)``, recomputed here with the installed task.

A kind that wrote no raw answers (``predictions``: scored from a predictions file) is refused:
its predictions cannot be traced to any response.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from debench.core.errors import UserError
from debench.scoring.results import Results
from debench.task.config import TaskConfig

SERVER_MODEL_KINDS = ("litellm", "openai-http")
"""What a model of the ``server`` kind records as its kind (the client that asked it)."""


def _name_prefixes() -> dict[str, str]:
    """Recorded kind -> the start of its models' names: each model kind of ``debench.models``
    (``baseline/``, ``local/``, ``gguf/``, ``vllm/``, a plug-in's ``acme/``) and ensembles."""
    from debench.core.entry_points import declared
    from debench.models.kinds import FALLBACK

    return {**{k: f"{k}/" for k in declared("debench.models") if k != FALLBACK}, "ensemble": "ensemble-"}


def model_kinds() -> tuple[str, ...]:
    """Kinds of model whose runs can enter the leaderboard."""
    return (*SERVER_MODEL_KINDS, *_name_prefixes())


def _err(path: Path, field: str, message: str) -> UserError:
    return UserError(message, path=str(path), field=field)


def check_method(results: Results, task: TaskConfig, path: Path) -> str:
    """The judge method, known and consistent; returns it."""
    from debench.judging.base import METHODS

    method = results.task.method
    if method not in METHODS:
        raise _err(
            path, "task.method", f"{json.dumps(method)} is not a judge method (known: {', '.join(METHODS.names())})"
        )
    recorded = results.config.get("method", method)
    if recorded != method:
        raise _err(path, "config.method", f"{json.dumps(recorded)} differs from task.method {json.dumps(method)}")
    if method.startswith("debatrix") and task.debatrix is None:
        raise _err(
            path,
            "task.method",
            f"task {task.name} has no debatrix section, so it cannot have been judged with {method}",
        )
    return method


def _check_kind(results: Results, path: Path) -> None:
    kind, name = results.model.kind, results.model.name
    if kind == "predictions":
        raise _err(
            path,
            "model.kind",
            "scored from a predictions file: no raw model answers to trace the predictions to; "
            "run `debench eval` with the model",
        )
    if kind not in model_kinds():
        raise _err(path, "model.kind", f"unknown model kind {json.dumps(kind)} (known: {', '.join(model_kinds())})")
    for other, prefix in _name_prefixes().items():
        if name.startswith(prefix) and kind != other:
            raise _err(
                path,
                "model.kind",
                f"model '{name}' has kind '{kind}', but debench makes a name starting with '{prefix}' a {other} model",
            )
        if kind == other and not name.startswith(prefix):
            raise _err(path, "model.name", f"'{name}' is not a {other} model's name (they start with '{prefix}')")


def check_identity(results: Results, task: TaskConfig, path: Path) -> dict[str, Any]:
    """The model identity, consistent with the name, kind and fingerprint; returns it."""
    from debench.run.runner import run_fingerprint

    identity = results.model.identity
    if identity is None:
        raise _err(
            path,
            "model.identity",
            "missing: results written before debench recorded model identities cannot enter the "
            "leaderboard; rerun with this debench",
        )
    _check_kind(results, path)
    base, own = _split_name(results.model.name, path)  # a model string's own settings (model@k=v) are in its identity
    if identity.get("name") != base:
        raise _err(
            path,
            "model.name",
            f"'{results.model.name}' differs from the name in model.identity ({json.dumps(identity.get('name'))})",
        )
    recorded = identity.get("generation", {})
    _check_generation(recorded, path)
    if any(recorded.get(k) != v for k, v in own.items()):
        raise _err(
            path,
            "model.name",
            f"the settings in '{results.model.name}' differ from model.identity's generation ({json.dumps(recorded)})",
        )
    if results.model.kind == "baseline":
        _check_baseline_identity(identity, path, "model.identity")
    elif results.model.kind == "ensemble":
        _check_ensemble_identity(identity, path)
    recorded = results.config.get("fingerprint")
    expected = run_fingerprint(task, identity, results.dataset.content_hash, results.task.method)
    if recorded != expected:
        raise _err(
            path,
            "config.fingerprint",
            f"{json.dumps(recorded)} is not the fingerprint of this task, model identity, data and method ({expected})",
        )
    return identity


def _check_generation(recorded: Any, path: Path) -> None:
    """An identity's generation settings are a mapping of settings debench knows."""
    from pydantic import ValidationError

    from debench.core.errors import first_problem
    from debench.models.args import GenerationArgs

    if not isinstance(recorded, dict):
        raise _err(
            path,
            "model.identity.generation",
            f"must be a mapping of generation settings, got {json.dumps(recorded)[:60]}",
        )
    try:
        GenerationArgs(**recorded)
    except (ValidationError, TypeError) as exc:
        msg = first_problem(exc)[1] if isinstance(exc, ValidationError) else type(exc).__name__
        raise _err(path, "model.identity.generation", f"not generation settings debench writes ({msg})") from None


def _check_baseline_identity(identity: dict[str, Any], path: Path, field: str) -> None:
    """Exactly the identity debench gives that baseline (name and seed)."""
    from debench.models.baselines import make_baseline

    seed = identity.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise _err(path, f"{field}.seed", f"a baseline's seed must be an integer, got {json.dumps(seed)}")
    try:
        genuine = make_baseline(str(identity["name"]).removeprefix("baseline/"), seed).identity()
    except UserError as exc:
        raise _err(path, f"{field}.name", str(exc)) from None
    if genuine != identity:
        raise _err(
            path,
            field,
            f"{json.dumps(identity, sort_keys=True)} is not the identity of {identity['name']} "
            f"({json.dumps(genuine, sort_keys=True)})",
        )


def _check_ensemble_identity(identity: dict[str, Any], path: Path) -> None:
    """A known rule, two or more named members (a baseline member's identity its own), and the
    name debench gives that ensemble."""
    from debench.models.aggregate import AGGREGATES

    rule, members = identity.get("aggregate"), identity.get("members")
    if rule not in AGGREGATES:
        raise _err(
            path,
            "model.identity.aggregate",
            f"{json.dumps(rule)} is not an ensemble rule (known: {', '.join(AGGREGATES)})",
        )
    if (
        not isinstance(members, list)
        or len(members) < 2
        or not all(isinstance(m, dict) and isinstance(m.get("name"), str) for m in members)
    ):
        raise _err(
            path, "model.identity.members", "an ensemble's identity lists two or more members, each with its name"
        )
    for i, m in enumerate(members):
        if m["name"].startswith("baseline/"):
            _check_baseline_identity(m, path, f"model.identity.members.{i}")
    expected = f"ensemble-{rule}({','.join(m['name'] for m in members)})"
    if identity.get("name") != expected:
        raise _err(
            path,
            "model.name",
            f"{json.dumps(identity.get('name'))} is not the name of an ensemble of these members ({expected})",
        )


def judge_key(identity: dict[str, Any], method: str) -> str:
    """A short stable id of a judge: a model identity with a judge method."""
    payload = json.dumps({"identity": identity, "method": method}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


def _split_name(name: str, path: Path) -> tuple[str, dict[str, Any]]:
    from debench.models.args import split_model_spec

    try:
        base, args = split_model_spec(name)
    except UserError as exc:
        raise _err(path, "model.name", str(exc)) from None
    return base, args.generation_overrides
