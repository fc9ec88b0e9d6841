"""The spot-check record: what the leaderboard's own spot check of one results file found.

The refresh job writes ``spotcheck_<task>_<fingerprint>.json`` beside the results file it checked
and commits it (schema ``debench/schema/spot_check.schema.json``). It holds the seed and the commit
it was derived from, every re-judged document with its submitted and re-judged outcome (and the
re-judged raw answer), the agreement and the threshold, the trusted endpoint, the model identity,
the debench version, the date, and the sha256 of the results and samples files it checked.

Every build checks the record against the files (``check_record``): the hashes, the seed (derived
from the commit again), the draw of documents (drawn again from the samples with that seed), each
submitted outcome (read again from the samples), the agreement (counted again) and the threshold.
What it cannot re-derive is the re-judged answers themselves: they are the job's, which is why a
pull request may neither add nor change a record (``debench.leaderboard.pull_request``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

import jsonschema
from pydantic import BaseModel, Field, ValidationError

from debench.core.errors import UserError, first_problem
from debench.core.json_schema import document_schema, schema_path, validate_with_schema_file
from debench.core.numeric import close
from debench.leaderboard.files import (
    MAX_RESULTS_BYTES,
    read_json_object,
    record_name,
    sha256_file,
)
from debench.leaderboard.provenance import SpotCheck
from debench.leaderboard.spot_check import (
    MIN_AGREEMENT,
    SPOT_CHECK_DOCS,
    Rejudged,
    draw,
    outcome,
    seed_from_commit,
)
from debench.leaderboard.trusted import Endpoint
from debench.leaderboard.validate import ValidatedSubmission

SPOT_RECORD_SCHEMA_VERSION = "1.0"
SPOT_RECORD_SCHEMA_PATH = schema_path("spot_check.schema.json")


class RejudgedDocument(BaseModel):
    doc_id: str
    submitted: str = Field(description="the submitted outcome: the prediction as JSON, or 'parse_failure'")
    rejudged: str = Field(description="the re-judged outcome, the same way")
    agree: bool
    response: str | None = Field(description="the re-judged raw answer (redacted)")


class EndpointInfo(BaseModel):
    id: str = Field(description="the entry of leaderboard/trusted_endpoints.yaml")
    kind: Literal["provider", "served"]
    model: str
    api_bases: list[str]


class SpotCheckRecord(BaseModel):
    schema_version: Literal["1.0"] = "1.0"
    results_file: str
    results_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    samples_file: str
    samples_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    task: str
    method: str
    model_identity: dict[str, Any]
    endpoints: list[EndpointInfo] = Field(
        min_length=1,
        description="the trusted endpoints the documents were re-judged through (an ensemble: one per member)",
    )
    seed_commit: str = Field(
        pattern=r"^[0-9a-f]{40}$", description="the commit, made after the submission was merged, the seed comes from"
    )
    seed: int = Field(description="int(seed_commit[:16], 16)")
    n_requested: int = Field(description="documents asked for; the draw gives min(n_requested, answered documents)")
    documents: list[RejudgedDocument] = Field(min_length=1)
    agreement: float
    threshold: float
    passed: bool = Field(description="agreement >= threshold")
    debench_version: str
    checked_at: str


def spot_record_json_schema() -> dict[str, Any]:
    return document_schema(
        SpotCheckRecord,
        slug="spot-check",
        version=SPOT_RECORD_SCHEMA_VERSION,
        title="debench leaderboard: spot-check record",
    )


def record_path(sub: ValidatedSubmission) -> Path:
    return sub.results_path.parent / record_name(sub.results_path.name)


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def make_record(
    sub: ValidatedSubmission, got: Rejudged, endpoints: tuple[Endpoint, ...], commit: str, n: int
) -> SpotCheckRecord:
    from debench.core.version import debench_version

    docs = []
    for r in got.records:
        mine, theirs = outcome(r), outcome(got.submitted[r.doc_id])
        docs.append(
            RejudgedDocument(
                doc_id=r.doc_id, submitted=theirs, rejudged=mine, agree=mine == theirs, response=r.response
            )
        )
    agreement = sum(d.agree for d in docs) / len(docs)
    return SpotCheckRecord(
        results_file=sub.results_path.name,
        results_sha256=sha256_file(sub.results_path),
        samples_file=sub.samples_path.name,
        samples_sha256=sha256_file(sub.samples_path),
        task=sub.task.name,
        method=sub.results.task.method,
        model_identity=sub.identity,
        endpoints=[EndpointInfo(id=e.id, kind=e.kind, model=e.model, api_bases=list(e.api_bases)) for e in endpoints],
        seed_commit=commit,
        seed=seed_from_commit(commit),
        n_requested=n,
        documents=docs,
        agreement=agreement,
        threshold=MIN_AGREEMENT,
        passed=agreement >= MIN_AGREEMENT,
        debench_version=debench_version(),
        checked_at=_now(),
    )


def write_record(sub: ValidatedSubmission, record: SpotCheckRecord) -> Path:
    from debench.core.atomic import write_json_record

    return write_json_record(record_path(sub), record)


def summary(record: SpotCheckRecord, name: str) -> SpotCheck:
    return SpotCheck(
        record=name,
        n_docs=len(record.documents),
        seed=record.seed,
        seed_commit=record.seed_commit,
        agreement=record.agreement,
        threshold=record.threshold,
        endpoint=", ".join(e.id for e in record.endpoints),
        checked_at=record.checked_at,
    )


def _err(path: Path, field: str | None, message: str) -> UserError:
    return UserError(message, path=str(path), field=field)


def read_record(path: Path) -> SpotCheckRecord:
    obj = read_json_object(path, MAX_RESULTS_BYTES, "spot-check record")
    try:
        validate_with_schema_file(obj, SPOT_RECORD_SCHEMA_PATH)
    except jsonschema.ValidationError as exc:
        where = ".".join(str(p) for p in exc.absolute_path) or None
        raise _err(
            path, where, f"does not follow the spot-check record schema: {' '.join(exc.message.split())[:160]}"
        ) from None
    try:
        return SpotCheckRecord.model_validate(obj)
    except ValidationError as exc:
        where, msg = first_problem(exc)
        raise _err(path, where, f"does not follow the spot-check record schema: {msg}") from None


def check_record(sub: ValidatedSubmission, path: Path) -> SpotCheckRecord:
    """The record, checked against the submission's files (see the module docstring)."""
    rec = read_record(path)
    stale = "the submission's files changed after the leaderboard's spot check: remove the record so the refresh job checks again"
    if rec.results_file != sub.results_path.name or rec.samples_file != sub.samples_path.name:
        raise _err(
            path,
            "results_file",
            f"names {rec.results_file} / {rec.samples_file}, not the files beside it ({sub.results_path.name} / {sub.samples_path.name})",
        )
    if rec.results_sha256 != sha256_file(sub.results_path):
        raise _err(path, "results_sha256", f"does not match {sub.results_path.name}: {stale}")
    if rec.samples_sha256 != sha256_file(sub.samples_path):
        raise _err(path, "samples_sha256", f"does not match {sub.samples_path.name}: {stale}")
    if rec.task != sub.task.name or rec.method != sub.results.task.method or rec.model_identity != sub.identity:
        raise _err(path, "model_identity", "its task, method or model identity differs from the results file's")
    if rec.seed != seed_from_commit(rec.seed_commit):
        raise _err(
            path,
            "seed",
            f"{rec.seed} is not the seed of commit {rec.seed_commit} ({seed_from_commit(rec.seed_commit)})",
        )
    if rec.n_requested < SPOT_CHECK_DOCS:
        raise _err(
            path,
            "n_requested",
            f"{rec.n_requested} documents is fewer than the {SPOT_CHECK_DOCS} a spot check re-judges",
        )
    drawn = draw(sub.records, rec.n_requested, rec.seed)
    if [d.doc_id for d in rec.documents] != drawn:
        raise _err(path, "documents", f"are not the {len(drawn)} documents the seed {rec.seed} draws from the samples")
    submitted = {r.doc_id: r for r in sub.records}
    for i, d in enumerate(rec.documents):
        if d.submitted != outcome(submitted[d.doc_id]):
            raise _err(
                path,
                f"documents.{i}.submitted",
                f"{d.submitted} is not the submitted outcome of '{d.doc_id}' ({outcome(submitted[d.doc_id])})",
            )
        if d.agree != (d.submitted == d.rejudged):
            raise _err(
                path, f"documents.{i}.agree", f"says {str(d.agree).lower()} for outcomes {d.submitted} and {d.rejudged}"
            )
    agreement = sum(d.agree for d in rec.documents) / len(rec.documents)
    if not close(rec.agreement, agreement):
        raise _err(path, "agreement", f"{rec.agreement} is not the share of agreeing documents ({agreement})")
    if not close(rec.threshold, MIN_AGREEMENT) or rec.passed != (agreement >= MIN_AGREEMENT):
        raise _err(
            path,
            "passed",
            f"the threshold is {MIN_AGREEMENT} and the agreement {agreement}: passed is {str(agreement >= MIN_AGREEMENT).lower()}",
        )
    try:
        checked = datetime.fromisoformat(rec.checked_at)
        created = datetime.fromisoformat(sub.results.created_at)
    except ValueError:
        raise _err(path, "checked_at", f"{json.dumps(rec.checked_at)} is not an ISO 8601 time") from None
    if checked.tzinfo is None:
        checked = checked.replace(tzinfo=UTC)
    if created.tzinfo is None:
        created = created.replace(tzinfo=UTC)
    if checked > datetime.now(UTC) or checked < created:
        raise _err(path, "checked_at", f"{rec.checked_at} is not between the run ({sub.results.created_at}) and now")
    return rec
