"""The judge card file, ``card.json``: versioned, documented by ``debench/schema/card.schema.json``.

One section per criterion (``Criterion``): what it asks, the thresholds it holds the judge to with
their sources, a status and the reason, what to do about it, and one row per task (or per task and
probe) with the numbers — each a value with its 95% CI and n (``Number``). ``overall`` is the worst
status of the sections and what to do. ``runs`` names the files every number was read from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Generic, Literal, TypeVar

from pydantic import BaseModel, Field

from debench.core.json_schema import document_schema, read_json_model, schema_path, validate_with_schema_file
from debench.scoring.results import ModelInfo

CARD_SCHEMA_VERSION = "1.0"
CARD_SCHEMA_PATH = schema_path("card.schema.json")

Status = Literal["pass", "warn", "fail", "not_measured", "info"]
"""``pass``/``warn``/``fail`` against the thresholds; ``not_measured``: the criterion does not apply or
its run is missing (the reason says which); ``info``: reported without a threshold (cost)."""

RANK: dict[Status, int] = {"info": -1, "not_measured": 0, "pass": 1, "warn": 2, "fail": 3}
"""How bad a status is: the overall line is the worst of the sections."""


class Number(BaseModel):
    """A measured value with its 95% confidence interval and n; a null value is undefined (``note``: why)."""

    value: float | None
    ci95: list[float] | None = Field(default=None, min_length=2, max_length=2)
    n: int
    note: str | None = None

    @classmethod
    def of(cls, measured: Any) -> Number:
        """From anything measured with ``value``, ``ci95``, ``n`` (and perhaps ``note``): a metric of a
        results file, a rate of a probe report."""
        return cls(value=measured.value, ci95=measured.ci95, n=measured.n, note=getattr(measured, "note", None))


class Named(BaseModel):
    """A metric by name, with its value."""

    name: str
    number: Number
    higher_is_better: bool = True


class Threshold(BaseModel):
    rule: str = Field(description="what gives pass, warn and fail")
    source: str = Field(description="where the threshold comes from")


class Row(BaseModel):
    task: str
    status: Status
    reason: str


class AgreementRow(Row):
    primary: Named = Field(description="the task's primary metric (its first metric that is not a status rate)")
    chance_corrected: Named | None = Field(description="agreement corrected for chance: kappa_loo or cohen_kappa")
    human_level: Named | None = Field(description="the human annotators' agreement among themselves (kappa_human)")
    baselines: dict[str, list[Named]] = Field(
        description="each baseline's primary and chance-corrected metric on the same documents"
    )


class AltTest(BaseModel):
    epsilon: float
    winning_rate: float | None = Field(description="omega: share of annotators the judge beats (no CI: test decisions)")
    advantage_probability: Number = Field(description="rho, with its bootstrap CI over documents")
    passed: bool | None
    n_annotators: int
    note: str | None = None


class Epsilon(BaseModel):
    value: float = Field(description="the epsilon the card's verdict uses")
    task_value: float = Field(description="the epsilon of the task file (the annotators' profile)")
    agreement: Named | None = Field(description="the annotators' agreement the choice rests on (kappa_human)")
    why: str


class ReplaceabilityRow(Row):
    epsilon: Epsilon
    at_task_epsilon: AltTest = Field(description="the alt-test as eval reports it (the task's epsilon)")
    at_card_epsilon: AltTest = Field(description="the alt-test at the card's epsilon")
    constant_baseline: str | None = Field(description="the constant baseline tested beside the judge")
    constant_at_card_epsilon: AltTest | None


class ConsistencyRow(Row):
    repeats: int | None
    temperature: float | None
    agreement: Number | None = Field(
        description="test-retest agreement: per document, the share of pairs of repeats giving the same parsed "
        "answer, averaged over documents (bootstrap CI over documents)"
    )


class BiasRow(Row):
    probe: str = Field(description="swap_sides, relabel_teams, pad_length, trim_length, or verbosity")
    measure: str
    value: Number
    reference: Named | None = Field(default=None, description="what the value is read against (verbosity: humans)")
    effect: Named | None = Field(default=None, description="the probe's own effect statistic")


class MemorizationRow(Row):
    accuracy: Number = Field(description="accuracy from the metadata only (no speech), Wilson CI")
    majority_label: Any
    majority_accuracy: Number = Field(description="the majority label's accuracy on the same documents")
    full_transcript_accuracy: Number | None = Field(description="the judge's accuracy with the speeches (eval)")
    p_value: float | None = Field(description="one-sided exact binomial test of accuracy > majority_accuracy")


class CostRow(Row):
    n_samples: int
    prompt_tokens_per_doc: float | None
    completion_tokens_per_doc: float | None
    usd_per_doc: float | None = Field(description="null when a price is unknown (local models, custom servers)")


R = TypeVar("R", bound=Row)


class Criterion(BaseModel, Generic[R]):
    name: str
    question: str
    thresholds: list[Threshold]
    status: Status
    reason: str
    advice: str = Field(description="what to do about this status")
    rows: list[R]


class Overall(BaseModel):
    status: Status
    reason: str
    advice: str


class Criteria(BaseModel):
    agreement: Criterion[AgreementRow]
    replaceability: Criterion[ReplaceabilityRow]
    consistency: Criterion[ConsistencyRow]
    bias: Criterion[BiasRow]
    memorization: Criterion[MemorizationRow]
    cost: Criterion[CostRow]


class JudgeCard(BaseModel):
    schema_version: str = CARD_SCHEMA_VERSION
    kind: str = "judge_card"
    model: ModelInfo
    tasks: list[str]
    methods: dict[str, str] = Field(description="task -> the judge method of its eval run")
    limit: int | None = Field(description="the first N documents of each task; null: all of them")
    is_sample: bool = Field(description="some run used debench's small sample data, not the real data set")
    criteria: Criteria
    overall: Overall
    runs: dict[str, list[str]] = Field(description="task -> the files its numbers were read from")
    versions: dict[str, str | None]
    created_at: str


def load_card(path: str | Path) -> JudgeCard:
    """A ``card.json`` (or a folder holding one), validated; a bad one is a one-line ``UserError``."""
    file = Path(path) / "card.json" if Path(path).is_dir() else Path(path)
    return read_json_model(file, JudgeCard, "judge card")


def card_json_schema() -> dict[str, Any]:
    return document_schema(JudgeCard, slug="card", version=CARD_SCHEMA_VERSION, title="debench judge card")


def validate_card(data: dict[str, Any]) -> None:
    validate_with_schema_file(data, CARD_SCHEMA_PATH)
