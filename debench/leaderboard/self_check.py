"""``debench validate --spot-check N``: the submitter's self-check, re-judging a seeded sample.

Validation proves a submission is consistent with the data, the task and its recorded responses;
it cannot prove the responses came from the named model. The self-check tells a submitter whether
their run repeats: ``N`` documents drawn with a seed from the answered documents of the submission
(ok or parse failure) are judged once more by the model rebuilt from ``model.identity``
(``debench.leaderboard.rebuild``), with the submission's method, through the normal runner,
**without the response cache**, and through the endpoint the identity names — the submitter's own.
The share of re-judged documents whose outcome (the parsed prediction, or a parse failure) equals
the submitted one is the agreement; below ``MIN_AGREEMENT`` (0.8) the submission is refused — a
judge at temperature 0 repeats itself almost always (providers are not perfectly deterministic, so
not always), while answers written by hand or by another model agree far less often.

It verifies nothing (that endpoint may be the submitter's) and never reaches the leaderboard: a
rank is the leaderboard's own run of every document (``debench.leaderboard.reproduce``).
"""

from __future__ import annotations

import asyncio
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path

from debench.core.errors import UserError
from debench.data.samples import SampleRecord
from debench.leaderboard.compare import outcome
from debench.leaderboard.rebuild import model_from_identity
from debench.leaderboard.validate import ValidatedSubmission
from debench.models.args import ModelArgs

MIN_AGREEMENT = 0.8


def draw(records: list[SampleRecord], n: int, seed: int) -> list[str]:
    """The doc_ids to re-judge: ``n`` of the answered documents, drawn with ``seed``, in document order."""
    answered = [r.doc_id for r in records if r.status in ("ok", "parse_failure")]
    chosen = set(random.Random(seed).sample(answered, min(n, len(answered))))
    return [d for d in answered if d in chosen]


@dataclass(frozen=True)
class Rejudged:
    doc_ids: list[str]
    submitted: dict[str, SampleRecord]
    records: list[SampleRecord]
    """The re-judged records, in the order of ``doc_ids``."""

    @property
    def agreement(self) -> float:
        return sum(outcome(r) == outcome(self.submitted[r.doc_id]) for r in self.records) / len(self.records)


def _refusal(sub: ValidatedSubmission, message: str) -> UserError:
    return UserError(message, path=str(sub.results_path), field="spot_check")


def rejudge(sub: ValidatedSubmission, n: int, seed: int, api_key: str | None, operator: ModelArgs | None) -> Rejudged:
    """Re-judge ``n`` documents drawn with ``seed`` with the model the identity names (no cache).
    ``UserError`` when the model cannot be built or a document cannot be re-judged."""
    from debench.run.runner import RunSettings, run_samples

    ids = draw(sub.records, n, seed)
    if not ids:
        raise _refusal(sub, "no answered document to re-judge")
    by_id = {d.doc_id: d for d in sub.docs}
    name = sub.results.model.name
    try:
        model = model_from_identity(sub.identity, api_key, operator)
    except UserError as exc:
        raise _refusal(sub, f"the self-check cannot build the model {name}: {exc}") from None
    run = RunSettings(
        concurrency=model.default_concurrency, use_cache=False, progress=False, method=sub.results.task.method
    )
    try:
        with tempfile.TemporaryDirectory(prefix="debench-self-check-") as tmp:
            records, _ = asyncio.run(
                run_samples(sub.task, [by_id[d] for d in ids], model, Path(tmp) / "self_check.jsonl", run)
            )
    except UserError as exc:
        raise _refusal(sub, f"the self-check could not re-judge the {len(ids)} documents with {name}: {exc}") from None
    failed = [r for r in records if r.status in ("error", "not_completed")]
    if failed:
        raise _refusal(
            sub,
            f"the self-check could not re-judge {len(failed)} of {len(records)} documents "
            f"with {name} ({failed[0].error})",
        )
    got = {r.doc_id: r for r in records}
    return Rejudged(ids, {r.doc_id: r for r in sub.records}, [got[d] for d in ids])


def self_check(
    sub: ValidatedSubmission, n: int, seed: int, api_key: str | None, operator: ModelArgs | None = None
) -> float:
    """Re-judge through the identity's own endpoint; returns the agreement, ``UserError`` below
    ``MIN_AGREEMENT`` (a baseline: 1.0, its predictions were re-derived)."""
    if sub.results.model.kind == "baseline":
        return 1.0
    got = rejudge(sub, n, seed, api_key, operator)
    if got.agreement < MIN_AGREEMENT:
        raise _refusal(
            sub,
            f"self-check: re-judging {len(got.records)} documents (seed {seed}) with "
            f"{sub.results.model.name} agreed with the submitted predictions on {got.agreement:.0%}, below "
            f"the {MIN_AGREEMENT:.0%} the self-check asks for",
        )
    return got.agreement
