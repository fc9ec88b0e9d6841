"""Re-judging a seeded sample of a submission's documents and comparing with what was submitted.

Validation proves a submission is consistent with the data, the task and its recorded responses;
it cannot prove the responses came from the named model (anyone can write answer text). A spot
check asks a model again: ``N`` documents drawn with a seed from the answered documents of the
submission (ok or parse failure) are judged once more by the model rebuilt from
``model.identity`` (its name, api base, generation settings; an ensemble's members), with the
submission's method, through the normal runner and **without the response cache**. The share of
re-judged documents whose outcome (the parsed prediction, or a parse failure) equals the submitted
one is the agreement; ``MIN_AGREEMENT`` is 0.8 — a judge at temperature 0 repeats itself almost
always (providers are not perfectly deterministic, so not always), while answers written by hand
or by another model agree far less often.

Two uses of the one re-judging:

* ``debench validate --spot-check N`` (``self_check``): the submitter's own check, through the
  endpoint the identity names. It verifies nothing — that endpoint may be the submitter's — and it
  never reaches the leaderboard.
* the leaderboard's check (``debench.leaderboard.verify``), run by the refresh job after a submission is
  merged: through the trusted endpoint (``debench.leaderboard.trusted``) with the maintainers' key,
  ``SPOT_CHECK_DOCS`` documents drawn with a seed derived from a commit made after the merge
  (``seed_from_commit``), written as a spot-check record (``debench.leaderboard.spot_record``).

Open weights (``vllm/<org>/<name>``, ``gguf/hf:…``): the machine that re-judges downloads and
serves them (``--spot-check-model-args`` gives it its own ``tensor_parallel_size``,
``vllm_command``, … — settings outside the identity; one that would change the identity is
refused, like any other rebuild that does not come out the same). Two things a submitter writes
are never acted on without the operator: ``server_args`` (flags for ``vllm serve`` on that
machine; some load code) are used only when the operator gives the same ones, and weights named
by a local path (the submitter's disk) are not re-served at all.
"""

from __future__ import annotations

import asyncio
import json
import random
import shlex
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from debench.core.errors import UserError
from debench.data.samples import SampleRecord
from debench.leaderboard.validate import ValidatedSubmission
from debench.models.args import LLAMA_CPP_KEYS, ClientArgs, GenerationArgs, ModelArgs, ServerArgs
from debench.models.base import Model

MIN_AGREEMENT = 0.8
SPOT_CHECK_DOCS = 8
"""Documents the leaderboard's spot check re-judges (the embedded model takes ~42 s for 8 IBM speeches on 2 cores)."""


def _args_of(identity: dict[str, Any], kind: str, operator: ModelArgs | None) -> ModelArgs:
    """The model arguments an identity records, with the operator's (those the kind uses) on top."""
    client: dict[str, Any] = {}
    server: dict[str, Any] = {}
    recorded_weights = identity.get("weights")
    weights: dict[str, Any] = recorded_weights if isinstance(recorded_weights, dict) else {}
    if kind == "server" and identity.get("send_grammar"):
        client["grammar"] = True
    if kind in ("local", "gguf"):
        client.update({k: identity[k] for k in LLAMA_CPP_KEYS if k in identity})
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
    own_endpoint: bool = False,
) -> Model:
    """The model a results file's ``model.identity`` names, rebuilt (its identity must come out the
    same). ``api_key``: one key, or a function giving each (member) identity its key; ``operator``:
    the re-judging machine's own settings (``--spot-check-model-args``). ``own_endpoint``: the
    leaderboard's own run never goes where the submitter's requests went: the recorded ``api_base``
    is dropped, the model reaches the endpoint of the job's environment, and the identities are
    compared without it (the endpoint the job reached is recorded with its run)."""
    from debench.models.ensemble import EnsembleModel
    from debench.models.factory import make_model, model_kind

    if "members" in identity:
        members = [model_from_identity(m, api_key, operator, own_endpoint) for m in identity["members"]]
        model: Model = EnsembleModel(members, str(identity.get("aggregate")))
    else:
        name = str(identity.get("name", ""))
        kind = model_kind(name)
        seed = int(identity.get("seed", 0)) if kind == "baseline" else 0
        args = _args_of(identity, kind, operator) if kind != "baseline" else ModelArgs()
        bases = None if own_endpoint else identity.get("api_base") or None
        key = api_key(identity) if callable(api_key) else api_key
        model = make_model(name, api_bases=list(bases) if bases else None, api_key=key, model_args=args, seed=seed)
    rebuilt = model.identity()
    if own_endpoint:
        rebuilt, identity = ({k: v for k, v in d.items() if k != "api_base"} for d in (rebuilt, identity))
    if rebuilt != identity:
        differs = sorted(k for k in {*rebuilt, *identity} if rebuilt.get(k) != identity.get(k))
        raise UserError(
            f"the model rebuilt from this identity differs in {', '.join(differs)} (recorded {json.dumps({k: identity.get(k) for k in differs})}, "
            f"rebuilt {json.dumps({k: rebuilt.get(k) for k in differs})}): other weights, settings or debench version",
            field="model.identity",
        )
    return model


def seed_from_commit(sha: str) -> int:
    """The spot-check seed of a commit: its first 16 hex digits as an integer."""
    return int(sha[:16], 16)


def draw(records: list[SampleRecord], n: int, seed: int) -> list[str]:
    """The doc_ids to re-judge: ``n`` of the answered documents, drawn with ``seed``, in document order."""
    answered = [r.doc_id for r in records if r.status in ("ok", "parse_failure")]
    chosen = set(random.Random(seed).sample(answered, min(n, len(answered))))
    return [d for d in answered if d in chosen]


def outcome(r: SampleRecord) -> str:
    """What is compared: the prediction (as JSON), or the status when nothing was predicted."""
    return json.dumps(r.prediction, sort_keys=True) if r.status == "ok" else r.status


@dataclass(frozen=True)
class Rejudged:
    doc_ids: list[str]
    submitted: dict[str, SampleRecord]
    records: list[SampleRecord]
    """The re-judged records, in the order of ``doc_ids``."""

    @property
    def agreement(self) -> float:
        return sum(outcome(r) == outcome(self.submitted[r.doc_id]) for r in self.records) / len(self.records)


def rejudge(
    sub: ValidatedSubmission,
    n: int,
    seed: int,
    api_key: str | Callable[[dict[str, Any]], str | None] | None,
    concurrency: int | None = None,
    operator: ModelArgs | None = None,
) -> Rejudged:
    """Re-judge ``n`` documents drawn with ``seed`` with the model the identity names (no cache).
    ``UserError`` when the model cannot be built or a document cannot be re-judged."""
    from debench.run.runner import RunSettings, run_samples

    submitted = {r.doc_id: r for r in sub.records}
    ids = draw(sub.records, n, seed)
    if not ids:
        raise UserError("no answered document to re-judge", path=str(sub.results_path), field="spot_check")
    by_id = {d.doc_id: d for d in sub.docs}
    try:
        model = model_from_identity(sub.identity, api_key, operator)
    except UserError as exc:
        raise UserError(
            f"the spot check cannot build the model {sub.results.model.name}: {exc}",
            path=str(sub.results_path),
            field="spot_check",
        ) from None
    run = RunSettings(
        concurrency=concurrency or model.default_concurrency,
        use_cache=False,
        progress=False,
        method=sub.results.task.method,
    )
    try:
        with tempfile.TemporaryDirectory(prefix="debench-spot-") as tmp:
            records, _ = asyncio.run(
                run_samples(sub.task, [by_id[d] for d in ids], model, Path(tmp) / "spot.jsonl", run)
            )
    except UserError as exc:
        raise UserError(
            f"the spot check could not re-judge the {len(ids)} documents with {sub.results.model.name}: {exc}",
            path=str(sub.results_path),
            field="spot_check",
        ) from None
    failed = [r for r in records if r.status in ("error", "not_completed")]
    if failed:
        raise UserError(
            f"the spot check could not re-judge {len(failed)} of {len(records)} documents with {sub.results.model.name} ({failed[0].error})",
            path=str(sub.results_path),
            field="spot_check",
        )
    got = {r.doc_id: r for r in records}
    return Rejudged(ids, submitted, [got[d] for d in ids])


def self_check(
    sub: ValidatedSubmission, n: int, seed: int, api_key: str | None, operator: ModelArgs | None = None
) -> float:
    """``debench validate --spot-check N``: re-judge through the identity's own endpoint; returns the
    agreement, ``UserError`` below ``MIN_AGREEMENT`` (a baseline: 1.0, its predictions were re-derived)."""
    if sub.results.model.kind == "baseline":
        return 1.0
    got = rejudge(sub, n, seed, api_key, operator=operator)
    if got.agreement < MIN_AGREEMENT:
        raise UserError(
            f"spot check: re-judging {len(got.records)} documents (seed {seed}) with {sub.results.model.name} agreed with the submitted "
            f"predictions on {got.agreement:.0%}, below the {MIN_AGREEMENT:.0%} a submission needs",
            path=str(sub.results_path),
            field="spot_check",
        )
    return got.agreement
