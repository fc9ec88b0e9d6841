"""The speech-rating report (``speech_rating_<task>_<fingerprint>.json``): mean judge score per
source — the speeches file's sources and the human-annotated IBM sources, rated by the same
judge with the same prompt — beside the human annotators' means. Versioned, documented by
``debench/schema/speech_rating.schema.json``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from debench.core.json_schema import document_schema, schema_path
from debench.scoring.results import DatasetInfo, ModelInfo, TaskInfo, UsageInfo

SPEECH_RATING_SCHEMA_VERSION = "1.0"
SPEECH_RATING_SCHEMA_PATH = schema_path("speech_rating.schema.json")


class Estimate(BaseModel):
    value: float | None
    ci95: list[float] | None = Field(
        default=None, min_length=2, max_length=2, description="seeded percentile bootstrap over speeches"
    )
    n: int


class SourceRating(BaseModel):
    origin: Literal["speeches_file", "annotated"] = Field(
        description="speeches_file: the rated file; annotated: the IBM speeches with 15 human ratings each"
    )
    n_speeches: int
    n_ok: int
    n_parse_failures: int
    n_errors: int
    n_not_completed: int
    judge_mean: Estimate = Field(description="the judge's mean score over its parsed answers")
    human_mean: Estimate | None = Field(
        default=None, description="mean of the speeches' mean human rating (annotated sources only)"
    )
    judge_distribution: dict[str, int] = Field(default_factory=dict)


class Comparison(BaseModel):
    source: str = Field(description="a source of the speeches file")
    reference: str = Field(description="an annotated source")
    diff: Estimate = Field(
        description="judge mean of source minus judge mean of reference; groups resampled independently"
    )


class SpeechesFileInfo(BaseModel):
    path: str
    content_hash: str
    n_speeches: int
    sources: list[str]


class SpeechRatingReport(BaseModel):
    schema_version: str = SPEECH_RATING_SCHEMA_VERSION
    kind: str = "speech_rating_report"
    task: TaskInfo
    model: ModelInfo
    speeches_file: SpeechesFileInfo
    human_data: DatasetInfo
    topics: list[str]
    sources: dict[str, SourceRating]
    comparisons: list[Comparison]
    usage: UsageInfo
    config: dict[str, Any]
    samples_file: str
    plots: list[str] = Field(default_factory=list)
    versions: dict[str, str | None]
    created_at: str


def speech_rating_json_schema() -> dict[str, Any]:
    return document_schema(
        SpeechRatingReport,
        slug="speech-rating",
        version=SPEECH_RATING_SCHEMA_VERSION,
        title="debench speech-rating report",
    )
