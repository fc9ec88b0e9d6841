"""``debench validate --spot-check N``: re-judge a seeded sample of a submission's documents with the
submission's own model and compare.

Validation alone proves that a submission is consistent with the data, the task and its recorded
responses; it cannot prove the responses came from the named model (anyone can write answer text).
A spot check asks the model again: ``N`` documents drawn with a seed from the answered documents
of the submission (ok or parse failure) are judged once more by the model rebuilt from
``model.identity`` (its name, api base, generation settings; an ensemble's members; for ``vllm/``
and ``gguf/`` the Hub weights, which the check serves itself), with the submission's method,
through the normal runner and **without the response cache**. The share of
re-judged documents whose outcome (the parsed prediction, or a parse failure) equals the submitted
one is the agreement; below ``MIN_AGREEMENT`` the submission is refused.

``MIN_AGREEMENT`` is 0.8: a judge at temperature 0 repeats itself almost always (providers are not
perfectly deterministic, so not always); a submission whose answers were written by hand or by
another model agrees far less often on labels and scores.

Open weights (``vllm/<org>/<name>``, ``gguf/hf:…``): the leaderboard's own machine downloads and
serves them (``--spot-check-model-args`` gives it its own ``tensor_parallel_size``,
``vllm_command``, … — settings outside the identity; one that would change the identity is
refused, like any other rebuild that does not come out the same). Two things a submitter writes
are never acted on without the operator: ``server_args`` (flags for ``vllm serve`` on the
leaderboard's machine; some load code) are used only when the operator gives the same ones, and
weights named by a local path (the submitter's disk) are not re-served at all.
"""

from __future__ import annotations

import asyncio
import json
import random
import shlex
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from debench.errors import UserError
from debench.leaderboard.provenance import SpotCheck
from debench.leaderboard.validate import ValidatedSubmission
from debench.models.args import (
    KIND_KEYS,
    ClientArgs,
    GenerationArgs,
    ModelArgs,
    ServerArgs,
)
from debench.models.base import Model
from debench.samples import SampleRecord, read_records

MIN_AGREEMENT = 0.8


@dataclass(frozen=True)
class SpotCheckSettings:
    n: int
    seed: int = 0
    api_key: str | None = None
    concurrency: int | None = None
    model_args: ModelArgs | None = None
    """The operator's settings for the rebuilt models (``--spot-check-model-args``): each model
    takes the keys its kind uses."""


def _args_of(identity: dict[str, Any], kind: str, operator: ModelArgs | None) -> ModelArgs:
    """The model arguments an identity records, with the operator's (those the kind uses) on top."""
    client: dict[str, Any] = {}
    server: dict[str, Any] = {}
    recorded_weights = identity.get("weights")
    weights: dict[str, Any] = recorded_weights if isinstance(recorded_weights, dict) else {}
    if kind == "server" and identity.get("send_grammar"):
        client["grammar"] = True
    if kind in ("local", "gguf"):
        client.update({k: identity[k] for k in ("n_parallel", "n_ctx") if k in identity})
    if kind in ("vllm", "gguf"):
        if weights.get("source") == "path":
            raise UserError(
                f"{identity.get('name')} names weights on the submitter's disk: a spot check serves Hub weights only (vllm/<org>/<name>@revision=…, gguf/hf:…)",
                field="model.identity.weights",
            )
        if weights.get("revision") is not None:
            server["revision"] = weights["revision"]
        recorded = dict(identity.get("server") or {})
        server_args = recorded.pop("server_args", None)
        server.update(recorded)
        if server_args is not None:
            given = operator.server.server_args if operator is not None else None
            if given is None or shlex.split(given) != list(server_args):
                raise UserError(
                    f"{identity.get('name')} was served with server_args {shlex.join(server_args)}: flags for vllm serve on this machine are used only "
                    "when the operator gives the same ones (--spot-check-model-args server_args=…)",
                    field="model.identity.server",
                )
            server["server_args"] = given
    try:
        args = ModelArgs(generation=GenerationArgs(**identity.get("generation", {})), client=ClientArgs(**client), server=ServerArgs(**server))
    except ValidationError as exc:
        raise UserError(f"not a model identity debench writes ({exc.errors()[0]['msg']})", field="model.identity") from None
    if operator is None:
        return args
    return args.merged(operator.restricted(KIND_KEYS[kind]))


def model_from_identity(identity: dict[str, Any], api_key: str | None, operator: ModelArgs | None = None) -> Model:
    """The model a results file's ``model.identity`` names, rebuilt (its identity must come out the same)."""
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
        model = make_model(name, api_bases=list(bases) if bases else None, api_key=api_key, model_args=args, seed=seed)
    rebuilt = model.identity()
    if rebuilt != identity:
        differs = sorted(k for k in {*rebuilt, *identity} if rebuilt.get(k) != identity.get(k))
        raise UserError(
            f"the model rebuilt from this identity differs in {', '.join(differs)} (recorded {json.dumps({k: identity.get(k) for k in differs})}, "
            f"rebuilt {json.dumps({k: rebuilt.get(k) for k in differs})}): other weights, settings or debench version",
            field="model.identity",
        )
    return model


def draw(records: list[SampleRecord], n: int, seed: int) -> list[str]:
    """The doc_ids to re-judge: ``n`` of the answered documents, drawn with ``seed``, in document order."""
    answered = [r.doc_id for r in records if r.status in ("ok", "parse_failure")]
    chosen = set(random.Random(seed).sample(answered, min(n, len(answered))))
    return [d for d in answered if d in chosen]


def _outcome(r: SampleRecord) -> str:
    return json.dumps(r.prediction, sort_keys=True) if r.status == "ok" else r.status


async def spot_check(sub: ValidatedSubmission, settings: SpotCheckSettings) -> SpotCheck | None:
    """Re-judge and compare; ``None`` for a baseline (its every prediction was already re-derived).
    Raises ``UserError`` when the documents cannot be re-judged or agree too rarely."""
    from debench.runner import RunSettings, run_samples

    results = sub.results
    if results.model.kind == "baseline":
        return None
    submitted = {r.doc_id: r for r in read_records(sub.samples_path)}
    ids = draw(list(submitted.values()), settings.n, settings.seed)
    if not ids:
        raise UserError("no answered document to re-judge", path=str(sub.results_path), field="spot_check")
    by_id = {d.doc_id: d for d in sub.docs}
    docs = [by_id[d] for d in ids]
    model = model_from_identity(sub.identity, settings.api_key, settings.model_args)
    run = RunSettings(concurrency=settings.concurrency or model.default_concurrency, use_cache=False, progress=False, method=results.task.method)
    with tempfile.TemporaryDirectory(prefix="debench-spot-") as tmp:
        records, _ = await run_samples(sub.task, docs, model, Path(tmp) / "spot.jsonl", run)
    failed = [r for r in records if r.status in ("error", "not_completed")]
    if failed:
        raise UserError(
            f"the spot check could not re-judge {len(failed)} of {len(records)} documents with {results.model.name} ({failed[0].error})",
            path=str(sub.results_path),
            field="spot_check",
        )
    agree = sum(_outcome(r) == _outcome(submitted[r.doc_id]) for r in records) / len(records)
    check = SpotCheck(n_docs=len(records), seed=settings.seed, agreement=agree, threshold=MIN_AGREEMENT)
    if agree < MIN_AGREEMENT:
        raise UserError(
            f"spot check: re-judging {len(records)} documents (seed {settings.seed}) with {results.model.name} agreed with the submitted "
            f"predictions on {agree:.0%}, below the {MIN_AGREEMENT:.0%} a submission needs",
            path=str(sub.results_path),
            field="spot_check",
        )
    return check


def run_spot_checks(subs: list[ValidatedSubmission], settings: SpotCheckSettings) -> list[UserError]:
    """Spot-check every submission (in place: ``provenance.spot_check``); returns the refusals.

    Submissions of one model are checked one after another, and a server started for them
    (``vllm/``) stops before the next model's starts: two models' weights need not fit at once."""
    from debench.models.managed_server import server_scope

    def model_of(sub: ValidatedSubmission) -> str:
        return json.dumps({k: v for k, v in sub.identity.items() if k != "generation"}, sort_keys=True)

    errors: dict[int, UserError] = {}
    order = sorted(range(len(subs)), key=lambda i: model_of(subs[i]))
    groups: dict[str, list[int]] = {}
    for i in order:
        groups.setdefault(model_of(subs[i]), []).append(i)
    for members in groups.values():
        with server_scope():
            for i in members:
                try:
                    subs[i].provenance.spot_check = asyncio.run(spot_check(subs[i], settings))
                except UserError as exc:
                    errors[i] = exc
    return [errors[i] for i in sorted(errors)]
