"""The probe report file (``probes_<task>_<fingerprint>.json``) and its per-pair log rows.

Versioned and documented by ``debench/schema/probe_report.schema.json``.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from debench.core.json_schema import document_schema, schema_path, validate_with_schema_file
from debench.scoring.results import DatasetInfo, ModelInfo, TaskInfo, UsageInfo

PROBE_SCHEMA_VERSION = "1.0"
PROBE_SCHEMA_PATH = schema_path("probe_report.schema.json")


class Rate(BaseModel):
    """A share with its Wilson 95% interval: ``k`` of ``n``."""

    value: float | None = Field(description="k / n; null when n = 0")
    ci95: list[float] | None = Field(default=None, min_length=2, max_length=2)
    n: int
    k: int


class StatusCounts(BaseModel):
    ok: int = 0
    parse_failure: int = 0
    error: int = 0
    not_completed: int = 0
    missing: int = Field(default=0, description="no record (the run was interrupted)")


class SideShares(BaseModel):
    """Where the decided verdicts went, on one set of presented documents (true side labels)."""

    first_speaker: Rate = Field(description="share of decided verdicts for the side that spoke first")
    last_speaker: Rate = Field(description="share of decided verdicts for the side that spoke last")
    longest_side: Rate = Field(
        description="share of decided verdicts for the side with the most words (documents with "
        "a tie for most words left out)"
    )
    n_undecided: int = Field(description="parsed verdicts naming no side (a tie)")


class ProbeEffect(BaseModel):
    name: str
    description: str
    rate: Rate


class ProbeSummary(BaseModel):
    probe: str = Field(description="probe name, with its argument if not the default (pad_length:1.5)")
    description: str
    n_docs: int = Field(description="documents the probe applied to (pairs of original and probed copy)")
    n_not_applicable: int
    original: StatusCounts
    probed: StatusCounts
    flip_rate: Rate = Field(
        description="pairs whose verdict changed after mapping back, among pairs with both verdicts parsed"
    )
    original_shares: SideShares
    probed_shares: SideShares
    chance_share: float | None = Field(description="1 / number of sides, when every document has the same number")
    effect: ProbeEffect | None = None


class ProbeReport(BaseModel):
    schema_version: str = PROBE_SCHEMA_VERSION
    kind: str = "probe_report"
    task: TaskInfo
    model: ModelInfo
    dataset: DatasetInfo
    probes: dict[str, ProbeSummary]
    usage: UsageInfo
    config: dict[str, Any]
    samples_file: str = Field(
        description="the runner's per-sample log (originals and probed copies), relative to this file"
    )
    pairs_file: str = Field(description="one line per (probe, document) pair, relative to this file")
    versions: dict[str, str | None]
    created_at: str


class VerdictView(BaseModel):
    doc_id: str
    status: str
    raw_prediction: Any = None
    verdict: Any = Field(default=None, description="the predicted winner in true side labels (first of a ranking)")
    first_speaker: str | None = None
    last_speaker: str | None = None
    longest_side: str | None = None


class ProbePair(BaseModel):
    """One line of the pairs log."""

    probe: str
    source_id: str
    original: VerdictView
    probed: VerdictView
    flipped: bool | None = Field(description="null unless both verdicts parsed")
    target_side: str | None = None
    label_map: dict[str, str] = Field(default_factory=dict)
    note: str = ""


def probe_report_json_schema() -> dict[str, Any]:
    return document_schema(
        ProbeReport, slug="probe-report", version=PROBE_SCHEMA_VERSION, title="debench bias-probe report"
    )


def validate_probe_report(data: dict[str, Any]) -> None:
    validate_with_schema_file(data, PROBE_SCHEMA_PATH)
