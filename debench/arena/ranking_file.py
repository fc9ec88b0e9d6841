"""The ranking file written by ``debench arena rank`` (``ranking.json``): pydantic models.

Versioned and documented by ``debench/schema/arena_ranking.schema.json``. The top level holds one
judge's analysis (or, with several judges, the panel's: the majority verdict on each debate) and
the sections that need several judges.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field, SerializerFunctionWrapHandler, model_serializer

from debench.core.json_schema import document_schema, schema_path

ARENA_RANKING_SCHEMA_VERSION = "2.1"
ARENA_RANKING_SCHEMA_PATH = schema_path("arena_ranking.schema.json")

Rule = Literal["strict", "lenient"]
CI = list[float] | None


DRAWS_USED = (
    "topic resamples that gave this statistic a value (of settings.n_boot); the interval "
    "is null when fewer than half did"
)


class Score(BaseModel):
    score: float = Field(description="Elo-like scale: 400/ln(10) points per logit, mean over models 0")
    ci95: CI = Field(description="2.5th and 97.5th percentiles over topic resamples; null without at least 2 topics")
    draws_used: int = Field(description=DRAWS_USED + " (a resample in which the model played no game gives none)")


class PositionBias(BaseModel):
    side1_win_rate: float | None
    ci95: CI = Field(description="Wilson 95% interval")
    n_decided: int
    n_ties: int


class SelfPlayCounts(BaseModel):
    """A model against itself: never ranked. Both legs of a self-play debate count (a judge may
    decide it twice)."""

    side1_wins: int
    side2_wins: int
    ties: int
    n_legs: int


class Coefficient(BaseModel):
    coefficient: float | None = Field(
        description="logits per standard deviation of the covariate; null when it never varies"
    )
    ci95: CI
    raw_mean: float = Field(
        description="mean of the normalised difference (side 1 - side 2) / (side 1 + side 2) before z-scoring"
    )
    raw_sd: float = Field(description="its standard deviation (the unit of the coefficient)")
    draws_used: int = Field(description=DRAWS_USED)


class StyleControlled(BaseModel):
    """Bradley–Terry fitted jointly with style covariates on the debates (ties count half). Each
    covariate is the normalised difference (side 1 - side 2) / (side 1 + side 2), rounded to
    0.01, z-scored over the debates."""

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
    nu: float = Field(
        description="Davidson's tie parameter (0 = draws never happen; e^12 when every topic is drawn: unbounded)"
    )
    nu_ci95: CI
    draw_probability_between_equals: float = Field(description="nu / (2 + nu)")
    draw_probability_ci95: CI
    draws_used: int = Field(description=DRAWS_USED)
    bradley_terry: dict[str, Score]
    ranking: list[str] = Field(description="models by Davidson score")
    n_topics: int = Field(description="complete topics between two different models")
    n_drawn: int


class Design(BaseModel):
    """Who met whom in complete topics (both legs judged) between two different models."""

    balanced: bool = Field(
        description="every model met the same number of opponents in the same number of complete topics"
    )
    opponents: dict[str, int] = Field(description="distinct opponents met in complete topics, per model")
    topics: dict[str, int] = Field(
        description="complete topics (topic, opponent) played, per model: the most topic wins a model can have"
    )


class JudgeRanking(BaseModel):
    """Everything computed from one set of verdicts (one judge, or the panel)."""

    rule: Rule
    models: list[str]
    win_matrix: dict[str, dict[str, int]]
    topic_wins: dict[str, int]
    topics_drawn: int
    incomplete_pairs: int
    ranking: list[str]
    ranking_order: str = Field(
        description="the rule that ordered `ranking`: topic wins first in a balanced design, "
        "Bradley-Terry score first otherwise"
    )
    design: Design
    bradley_terry: dict[str, Score]
    bradley_terry_scale: str
    position_bias: PositionBias
    self_play: dict[str, SelfPlayCounts]
    n_judgments: int
    kendall_tau_distance: float | None = Field(default=None, description="normalized, to --reference")
    reference: list[str] | None = None
    reference_missing: list[str] | None = None
    length_controlled: StyleControlled | None = Field(
        default=None, description="null when the judgments lack the covariates (see notes)"
    )
    davidson: dict[str, DavidsonFit] = Field(default_factory=dict, description="per rule, strict and lenient")


class Alpha(BaseModel):
    alpha: float | None = Field(description="Krippendorff's alpha (nominal: side 1, side 2, tie); null when undefined")
    ci95: CI
    draws_used: int = Field(description=DRAWS_USED)
    n_debates: int
    n_judges: int


class JudgePair(BaseModel):
    judges: list[str] = Field(min_length=2, max_length=2)
    kendall_tau_distance: float | None = Field(
        description="normalized, between the two judges' rankings computed on the n_debates debates both judged (each "
        "ranking by its own rule); null with fewer than 2 models in both"
    )
    n_models: int = Field(description="models in both of those rankings (the distance is over their pairs)")
    shared_rankings: dict[str, list[str]] = Field(description="each judge's ranking on the debates both judged")
    kendall_tau_distance_all_verdicts: float | None = Field(
        description="normalized, between the judges' rankings over all of each one's own verdicts (per_judge), even on "
        "debates the other did not judge"
    )
    verdict_agreement: float | None = Field(description="share of the debates both judged with the same verdict")
    ci95: CI = Field(description="Wilson 95% interval of verdict_agreement")
    n_debates: int = Field(description="debates between two different models both judges decided")


class JudgeAgreement(BaseModel):
    krippendorff_alpha: Alpha
    pairs: list[JudgePair]


class SelfPreferenceEntry(BaseModel):
    judge: str
    debaters: list[str] = Field(description="debaters with the judge's underlying model")
    identity: Literal["model_id", "model_id_as_name", "name"] = Field(
        description="how the match was made, in this order: model_id = the judge's judge_model_id is one of "
        "the debater's side model ids (when both have ids, they alone decide); model_id_as_name = the debater "
        "has no model id and its name equals the judge's judge_model_id; name = the debater has no model id "
        "and its name equals the judge's label"
    )
    n_debates: int = Field(
        description="debates with exactly one own side, judged by this judge (and by another judge when compared)"
    )
    own_judge_rate: float | None = Field(
        default=None, description="own side's points under its own judgment (win 1, tie 0.5)"
    )
    own_judge_ci95: CI = None
    other_judges: list[str] = Field(default_factory=list)
    other_judges_rate: float | None = Field(
        default=None, description="own side's points on the same debates under the other judges (their mean per debate)"
    )
    other_judges_ci95: CI = None
    difference: float | None = Field(
        default=None, description="own_judge_rate - other_judges_rate, paired over debates"
    )
    difference_ci95: CI = None
    draws_used: int = Field(default=0, description=DRAWS_USED + " (a resample without one of these debates gives none)")
    p_value: float | None = Field(
        default=None, description="two-sided permutation p-value: judges' labels exchanged within each debate"
    )
    detected: bool | None = Field(default=None, description="p_value < level and difference > 0")
    note: str | None = None


class SelfPreference(BaseModel):
    level: float
    n_permutations: int
    entries: list[SelfPreferenceEntry]
    note: str | None = None


class ScheduleSummary(BaseModel):
    """How many debates the judgments hold and how they were chosen."""

    how: Literal["round_robin", "adaptive", "other"] = Field(
        description="round_robin: every pair of the ranked models on every topic, both legs; adaptive: the lines carry "
        "the wave of debench's adaptive schedule that chose them (pairs chosen from earlier outcomes); other: neither"
    )
    n_debates: int = Field(description="debates (legs) between two different models with at least one verdict")
    n_possible: int = Field(
        description="debates a round robin of these models on these topics has (every pair, both legs)"
    )
    n_waves: int | None = Field(default=None, description="waves of the adaptive schedule (null for the other designs)")


class RankSettings(BaseModel):
    rule: Rule
    n_boot: int
    seed: int
    bradley_terry_l2: float = Field(
        description="L2 penalty on the Bradley-Terry strengths and covariate coefficients "
        "(logits), not on Davidson's nu"
    )
    score_tolerance: float = Field(
        description="Bradley-Terry scores closer than this (Elo-like points) count as equal when ordering; then by name"
    )
    covariate_rounding: float = Field(
        description="style covariates (normalised differences) are rounded to this before z-scoring"
    )
    controls: list[str] = Field(description="style covariates asked for (length, sources)")
    n_permutations: int
    judgments_files: list[str] = Field(default_factory=list)


class RatedScore(BaseModel):
    score: float = Field(description="on the rating method's own scale (see its description)")
    ci95: CI = Field(description="2.5th and 97.5th percentiles over topic resamples; null without at least 2 topics")
    draws_used: int = Field(description=DRAWS_USED + " (a resample in which the model played no game gives none)")


class Rating(BaseModel):
    """A rating method asked for with ``--rating NAME`` (an entry point of ``debench.arena_ratings``),
    on the top-level verdicts, with the same topic resamples as every other statistic."""

    description: str = Field(description="what the score is, and its scale (the method's own words)")
    higher_is_better: bool
    scores: dict[str, RatedScore]
    ranking: list[str] = Field(description="models by score, best first (equal scores by name)")
    plugin: dict[str, str] | None = Field(
        default=None,
        description="a plug-in's method: its package (distribution), version and the sha256 of its module files; "
        "absent for debench's own",
    )

    @model_serializer(mode="wrap")
    def _plugin_only_when_one(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """``plugin`` is written only for another package's method (debench's own ratings are
        written as before)."""
        out: dict[str, Any] = handler(self)
        if out.get("plugin") is None:
            out.pop("plugin", None)
        return out


class ArenaRanking(JudgeRanking):
    schema_version: str = ARENA_RANKING_SCHEMA_VERSION
    kind: Literal["arena_ranking"] = "arena_ranking"
    judges: list[str]
    verdicts: str = Field(description="whose verdicts the top-level sections use")
    per_judge: dict[str, JudgeRanking] = Field(
        default_factory=dict, description="each judge's own analysis (with several judges)"
    )
    judge_agreement: JudgeAgreement | None = None
    self_preference: SelfPreference
    schedule: ScheduleSummary | None = Field(
        default=None, description="how many debates were run and how they were chosen"
    )
    ratings: dict[str, Rating] = Field(
        default_factory=dict, description="the rating methods asked for with --rating, by name (added in 2.1)"
    )
    settings: RankSettings
    conventions: list[str] = Field(default_factory=list, description="how the numbers above were computed, in words")
    notes: list[str] = Field(
        default_factory=list, description="what could not be computed, and why; what the design implies"
    )


def arena_ranking_json_schema() -> dict[str, Any]:
    return document_schema(
        ArenaRanking, slug="arena_ranking", version=ARENA_RANKING_SCHEMA_VERSION, title="debench arena ranking"
    )
