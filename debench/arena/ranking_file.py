"""The ranking file written by ``debench arena rank`` (``ranking.json``): pydantic models.

Versioned and documented by ``debench/schema/arena_ranking.schema.json``. The top level holds one
judge's analysis (or, with several judges, the panel's: the majority verdict on each debate) and
the sections that need several judges.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from debench.json_schema import document_schema

ARENA_RANKING_SCHEMA_VERSION = "1.0"
ARENA_RANKING_SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schema" / "arena_ranking.schema.json"

Rule = Literal["strict", "lenient"]
CI = list[float] | None


class Score(BaseModel):
    score: float = Field(description="Elo-like scale: 400/ln(10) points per logit, mean over models 0")
    ci95: CI = Field(description="2.5th and 97.5th percentiles over topic resamples; null without at least 2 topics")


class PositionBias(BaseModel):
    side1_win_rate: float | None
    ci95: CI = Field(description="Wilson 95% interval")
    n_decided: int
    n_ties: int


class SelfPlayCounts(BaseModel):
    side1_wins: int
    side2_wins: int
    ties: int


class Coefficient(BaseModel):
    coefficient: float | None = Field(description="logits per standard deviation of the covariate; null when it never varies")
    ci95: CI
    raw_mean: float = Field(description="mean of the normalised difference (side 1 - side 2) / (side 1 + side 2) before z-scoring")
    raw_sd: float = Field(description="its standard deviation (the unit of the coefficient)")


class StyleControlled(BaseModel):
    """Bradley–Terry fitted jointly with style covariates on the debates (ties count half)."""

    controls: list[str]
    covariates: dict[str, Coefficient]
    bradley_terry: dict[str, Score]
    ranking: list[str] = Field(description="models by controlled score")
    plain_ranking: list[str] = Field(description="models by the plain Bradley–Terry score, for comparison")
    kendall_tau_distance_to_plain: float | None
    n_debates: int


class DavidsonFit(BaseModel):
    """Bradley–Terry with Davidson's tie parameter on topic outcomes under one rule (draws as draws)."""

    rule: Rule
    nu: float = Field(description="Davidson's tie parameter (0 = draws never happen; e^12 when every topic is drawn: unbounded)")
    nu_ci95: CI
    draw_probability_between_equals: float = Field(description="nu / (2 + nu)")
    draw_probability_ci95: CI
    bradley_terry: dict[str, Score]
    ranking: list[str] = Field(description="models by Davidson score")
    n_topics: int = Field(description="complete topics between two different models")
    n_drawn: int


class JudgeRanking(BaseModel):
    """Everything computed from one set of verdicts (one judge, or the panel)."""

    rule: Rule
    models: list[str]
    win_matrix: dict[str, dict[str, int]]
    topic_wins: dict[str, int]
    topics_drawn: int
    incomplete_pairs: int
    ranking: list[str]
    ranking_order: str
    bradley_terry: dict[str, Score]
    bradley_terry_scale: str
    position_bias: PositionBias
    self_play: dict[str, SelfPlayCounts]
    n_judgments: int
    kendall_tau_distance: float | None = Field(default=None, description="normalized, to --reference")
    reference: list[str] | None = None
    reference_missing: list[str] | None = None
    length_controlled: StyleControlled | None = Field(default=None, description="null when the judgments lack the covariates (see notes)")
    davidson: dict[str, DavidsonFit] = Field(default_factory=dict, description="per rule, strict and lenient")


class Alpha(BaseModel):
    alpha: float | None = Field(description="Krippendorff's alpha (nominal: side 1, side 2, tie); null when undefined")
    ci95: CI
    n_debates: int
    n_judges: int


class JudgePair(BaseModel):
    judges: list[str] = Field(min_length=2, max_length=2)
    kendall_tau_distance: float | None = Field(description="normalized, between the two judges' rankings")
    verdict_agreement: float | None = Field(description="share of the debates both judged with the same verdict")
    ci95: CI = Field(description="Wilson 95% interval of verdict_agreement")
    n_debates: int


class JudgeAgreement(BaseModel):
    krippendorff_alpha: Alpha
    pairs: list[JudgePair]


class SelfPreferenceEntry(BaseModel):
    judge: str
    debaters: list[str] = Field(description="debaters with the judge's underlying model")
    identity: Literal["model_id", "name"] = Field(description="how the match was made")
    n_debates: int = Field(description="debates with exactly one own side, judged by this judge (and by another judge when compared)")
    own_judge_rate: float | None = Field(default=None, description="own side's points under its own judgment (win 1, tie 0.5)")
    own_judge_ci95: CI = None
    other_judges: list[str] = Field(default_factory=list)
    other_judges_rate: float | None = Field(default=None, description="own side's points on the same debates under the other judges (their mean per debate)")
    other_judges_ci95: CI = None
    difference: float | None = Field(default=None, description="own_judge_rate - other_judges_rate, paired over debates")
    difference_ci95: CI = None
    p_value: float | None = Field(default=None, description="two-sided permutation p-value: judges' labels exchanged within each debate")
    detected: bool | None = Field(default=None, description="p_value < level and difference > 0")
    note: str | None = None


class SelfPreference(BaseModel):
    level: float
    n_permutations: int
    entries: list[SelfPreferenceEntry]
    note: str | None = None


class RankSettings(BaseModel):
    rule: Rule
    n_boot: int
    seed: int
    controls: list[str] = Field(description="style covariates asked for (length, sources)")
    n_permutations: int
    judgments_files: list[str] = Field(default_factory=list)


class ArenaRanking(JudgeRanking):
    schema_version: str = ARENA_RANKING_SCHEMA_VERSION
    kind: Literal["arena_ranking"] = "arena_ranking"
    judges: list[str]
    verdicts: str = Field(description="whose verdicts the top-level sections use")
    per_judge: dict[str, JudgeRanking] = Field(default_factory=dict, description="each judge's own analysis (with several judges)")
    judge_agreement: JudgeAgreement | None = None
    self_preference: SelfPreference
    settings: RankSettings
    notes: list[str] = Field(default_factory=list, description="what could not be computed, and why")


def arena_ranking_json_schema() -> dict[str, Any]:
    return document_schema(ArenaRanking, slug="arena_ranking", version=ARENA_RANKING_SCHEMA_VERSION, title="debench arena ranking")
