"""``debench validate --spot-check N``: re-judge a seeded sample of a submission's documents with the
submission's own model and compare.

Validation alone proves that a submission is consistent with the data, the task and its recorded
responses; it cannot prove the responses came from the named model (anyone can write answer text).
A spot check asks the model again: ``N`` documents drawn with a seed from the answered documents
of the submission (ok or parse failure) are judged once more by the model rebuilt from
``model.identity`` (its name, api base, generation settings; an ensemble's members), with the
submission's method, through the normal runner and **without the response cache**. The share of
re-judged documents whose outcome (the parsed prediction, or a parse failure) equals the submitted
one is the agreement; below ``MIN_AGREEMENT`` the submission is refused.

``MIN_AGREEMENT`` is 0.8: a judge at temperature 0 repeats itself almost always (providers are not
perfectly deterministic, so not always); a submission whose answers were written by hand or by
another model agrees far less often on labels and scores.
"""

from __future__ import annotations

import asyncio
import json
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debench.errors import UserError
from debench.leaderboard.provenance import SpotCheck
from debench.leaderboard.validate import ValidatedSubmission
from debench.models.args import ClientArgs, GenerationArgs, ModelArgs
from debench.models.base import Model
from debench.models.retry import EndpointError
from debench.samples import SampleRecord, read_records

MIN_AGREEMENT = 0.8


@dataclass(frozen=True)
class SpotCheckSettings:
    n: int
    seed: int = 0
    api_key: str | None = None
    concurrency: int | None = None


def model_from_identity(identity: dict[str, Any], api_key: str | None) -> Model:
    """The model a results file's ``model.identity`` names, rebuilt (its identity must come out the same)."""
    from debench.models.ensemble import EnsembleModel
    from debench.models.factory import make_model

    if "members" in identity:
        members = [model_from_identity(m, api_key) for m in identity["members"]]
        model: Model = EnsembleModel(members, str(identity.get("aggregate")))
    else:
        name = str(identity.get("name", ""))
        seed = int(identity.get("seed", 0)) if name.startswith("baseline/") else 0
        client: dict[str, Any] = {}
        if not name.startswith(("baseline/", "local/")) and identity.get("send_grammar"):
            client["grammar"] = True
        if name.startswith("local/"):
            client.update({k: identity[k] for k in ("n_parallel", "n_ctx") if k in identity})
        args = ModelArgs(generation=GenerationArgs(**identity.get("generation", {})), client=ClientArgs(**client))
        bases = identity.get("api_base") or None
        model = make_model(name, api_bases=list(bases) if bases else None, api_key=api_key, model_args=args, seed=seed)
    if model.identity() != identity:
        raise UserError("cannot rebuild the model this identity names (another debench version wrote it?)", field="model.identity")
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
    model = model_from_identity(sub.identity, settings.api_key)
    run = RunSettings(concurrency=settings.concurrency or model.default_concurrency, use_cache=False, progress=False, method=results.task.method)
    with tempfile.TemporaryDirectory(prefix="debench-spot-") as tmp:
        try:
            records, _ = await run_samples(sub.task, docs, model, Path(tmp) / "spot.jsonl", run)
        except EndpointError as exc:  # the endpoint cannot work (nothing listening, a 404): nothing was re-judged
            raise UserError(f"the spot check could not re-judge the {len(docs)} documents with {results.model.name}: {exc}", path=str(sub.results_path), field="spot_check") from None
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
    """Spot-check every submission (in place: ``provenance.spot_check``); returns the refusals."""
    errors = []
    for sub in subs:
        try:
            sub.provenance.spot_check = asyncio.run(spot_check(sub, settings))
        except UserError as exc:
            errors.append(exc)
    return errors
