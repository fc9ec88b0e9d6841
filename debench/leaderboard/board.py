"""``leaderboard.json``: its typed models and its JSON Schema.

The JSON is versioned (``schema_version``) and documented by
``debench/schema/leaderboard.schema.json``, generated from the models below (``python
scripts/write_schemas.py``). Version 2.0 added tiers, judge ids, provenance, the overall task set
and the papers' reported numbers. Version 3.0 ranks only what the leaderboard reproduced: each
task's entries are split into ``verified`` (ranked), ``self_reported`` (never ranked) and
``baselines`` (reference lines); the overview ranks verified judges only, and says what it waits
for. Version 4.0 ranks only the leaderboard's own numbers: a verified entry's metrics are those of
the refresh job's run on every document (``reproduction``), the submitted ones stay beside them
(``submitted_metrics``); entries waiting for the job's run are listed (``waiting``); the overall
task set is the maintainers'.

Version 5.0 ranks canonical judges: a verified entry is the row of an allowlisted model × method
(``canonical``: its judge id, variant and the maintainers' settings the job ran), carrying the
job's own run (its files under ``reproduced/``); every submission is self-reported, and one that
nominates a canonical judge says which (``nominates``) and how its numbers compare with the
judge's run (``comparison``); ``waiting`` lists the judges' runs waiting, with why; paths are
relative to the leaderboard folder. The always-null ``provenance.spot_check`` and always-empty
``removed`` of version 4.0 are gone.

Version 6.0 links each canonical judge's card (``canonical.card``: the path of its ``card.html``
relative to the leaderboard folder, its overall status and why), built by the refresh job from its
own runs and memorization probe (``debench.leaderboard.job_cards``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from debench.card.model import Status
from debench.core.json_schema import document_schema, schema_path, validate_with_schema_file
from debench.leaderboard.provenance import Provenance
from debench.leaderboard.reported import Reported
from debench.scoring.scores import MetricValue

LEADERBOARD_SCHEMA_VERSION = "6.0"
SCHEMA_PATH = schema_path("leaderboard.schema.json")


class MetricColumn(BaseModel):
    name: str
    description: str
    higher_is_better: bool
    kind: Literal["judge", "status"] = Field(
        description="judge: quality of the judge; status: parse failures, completion"
    )
    primary: bool = Field(description="the metric entries are ranked by")


class HumanReference(BaseModel):
    metric: str = Field(description="the judge metric column this reference belongs to, e.g. kappa_loo")
    source_metric: str = Field(description="the results metric holding the human-human figure, e.g. kappa_human")
    description: str
    value: MetricValue


class CardLink(BaseModel):
    path: str = Field(
        description="the judge card's card.html, relative to the leaderboard folder (card.json beside it)"
    )
    status: Status = Field(description="the card's overall status (pass, warn, fail, not_measured)")
    reason: str = Field(description="the card's overall line: why that status")


class Canonical(BaseModel):
    judge: str = Field(description="the canonical judge's id: <model>[+<variant>]/<method>")
    model: str = Field(description="the exact model id of the maintainers' allowlist")
    variant: str | None = Field(description="the canonical variant's name (null: the model's plain judge)")
    method: str
    settings: dict[str, Any] = Field(
        description="the maintainers' settings the job ran (model arguments on top of the task's prompts, parser and "
        "generation settings)"
    )
    endpoints: list[str] = Field(description="the trusted endpoints the job ran it through")
    nominations: list[str] = Field(
        description="ids of the submissions nominating this judge (their numbers are self-reported)"
    )
    card: CardLink | None = Field(
        default=None,
        description="the judge's card, built by the refresh job from its own runs (null: it could not be built, see "
        "not_built)",
    )


class ComparisonInfo(BaseModel):
    metric: str = Field(description="the primary metric compared")
    submitted: float | None
    reproduced: float | None
    difference: float | None = Field(description="submitted - reproduced")
    difference_ci95: list[float] | None = Field(
        description="paired bootstrap 95% interval of the difference over the documents"
    )
    within_noise: bool | None = Field(
        description="the difference's interval holds 0: the submitted number is within the run-to-run noise the job "
        "measured"
    )
    agreement: float = Field(description="share of documents with the same outcome in both runs")
    n_docs: int


class WaitingRun(BaseModel):
    judge: str = Field(description="the canonical judge's id")
    task: str
    nominated_by: str = Field(description="the id of its first nomination")
    reason: str = Field(description="why it waits")


class Entry(BaseModel):
    id: str = Field(
        description="<submission folder>/<results file name>, or reproduced/<judge folder>/<results file name> for a "
        "canonical judge's row; unique"
    )
    judge: str = Field(
        description="the judge: a canonical judge's id (verified rows), else a key of the model identity and method"
    )
    standing: Literal["verified", "self_reported", "baseline"] = Field(
        description="verified: a canonical judge's row, the leaderboard's own run on every document with the "
        "maintainers' settings (only these are ranked); "
        "self_reported: a validated submission, never ranked (a nomination is compared with its judge's row); "
        "baseline: re-run by the leaderboard, a reference line, never ranked"
    )
    standing_reason: str = Field(description="what reproduced it, or why it is self-reported")
    rank: int | None = Field(
        description="1 = best point estimate of the primary metric among the ranked (verified) entries; null: not "
        "ranked"
    )
    tier: int | None = Field(
        description="1 = the leader's tier: entries whose 95% CI overlaps their tier leader's; null: not ranked"
    )
    unranked_reason: str | None = Field(description="why the entry is shown but not ranked (null when ranked)")
    baseline_level: Literal["chance", "heuristic"] | None = Field(
        default=None,
        description="a baseline's kind of reference: chance (random, majority, constant) or heuristic (length, first / "
        "last speaker, longest)",
    )
    model: str
    model_kind: str
    identity: dict[str, Any] = Field(description="the model identity recorded in the results file")
    is_baseline: bool
    method: str
    submission: str | None = Field(description="the submission folder (null: a canonical judge's row)")
    results_file: str = Field(
        description="path relative to the leaderboard folder (submissions/<folder>/… or, for a canonical judge's row, "
        "reproduced/<judge>/…)"
    )
    samples_file: str
    created_at: str
    n_docs: int = Field(description="documents covered by the run")
    partial: bool = Field(description="true when the run covered only the first config.limit documents")
    metrics: dict[str, MetricValue]
    n_samples: int
    n_parse_failures: int
    n_errors: int
    n_not_completed: int
    incomplete_share: float = Field(description="(n_errors + n_not_completed) / n_docs")
    left_out_share: float = Field(
        description="documents the metrics leave out / n_docs: errors, not completed, and parse failures when the task "
        "excludes them; above max_left_out_share an entry is not ranked"
    )
    total_tokens: int
    cost_usd: float | None
    reports: dict[str, Any] = Field(default_factory=dict)
    provenance: Provenance
    canonical: Canonical | None = Field(
        default=None, description="a verified entry: the canonical judge whose row it is, with the settings the job ran"
    )
    nominates: str | None = Field(
        default=None, description="a self-reported entry nominating a canonical judge: the judge's id"
    )
    comparison: ComparisonInfo | None = Field(
        default=None, description="a nomination's numbers against the canonical judge's run (null while the run waits)"
    )
    queue_position: int | None = Field(
        default=None, description="position of the nominated judge's run among the runs waiting (null: not waiting)"
    )


class TaskBoard(BaseModel):
    name: str
    version: int
    description: str
    group: str | None
    config_sha256: str
    dataset_content_hash: str
    n_docs_total: int
    primary_metric: str
    metrics: list[MetricColumn]
    human_reference: list[HumanReference]
    choices: list[Any] | None = Field(default=None, description="the task's answer space, in its own order (for plots)")
    verified: list[Entry] = Field(
        description="entries the leaderboard reproduced: ranked ones by tier then rank, then the unranked ones"
    )
    self_reported: list[Entry] = Field(
        description="validated entries the leaderboard did not reproduce, by model name: never ranked"
    )
    baselines: list[Entry] = Field(
        description="baselines, re-run by the leaderboard: reference lines (chance and heuristic levels), never ranked"
    )

    @property
    def entries(self) -> list[Entry]:
        """Every entry of the task: verified, self-reported, baselines."""
        return [*self.verified, *self.self_reported, *self.baselines]


class OverviewCell(BaseModel):
    entry: str = Field(description="Entry.id")
    metric: str
    value: float | None
    ci95: list[float] | None
    rank: int | None = Field(description="the entry's rank on the task (among its ranked, verified entries)")
    tier: int | None
    n_ranked: int = Field(description="entries ranked on the task")


class OverviewRow(BaseModel):
    judge: str = Field(description="Entry.judge")
    model: str
    variant: str | None = Field(default=None, description="a canonical variant's name")
    method: str
    submission: str | None = Field(default=None, description="a self-reported judge's submission folder")
    standing: Literal["verified", "self_reported"]
    cells: dict[str, OverviewCell] = Field(description="task name -> the judge's primary metric on it")
    n_tasks: int = Field(description="tasks with an entry of this judge")
    overall_rank: int | None = Field(
        description="rank by mean_rank among the judges ranked on every overall task; null: not ranked overall"
    )
    mean_rank: float | None = Field(
        description="mean over the overall tasks of the judge's rank among the judges ranked overall"
    )
    missing_tasks: list[str] = Field(description="overall tasks on which this judge has no ranked entry")


class Leaderboard(BaseModel):
    schema_version: str = LEADERBOARD_SCHEMA_VERSION
    title: str
    generated_at: str | None = Field(description="newest created_at among the entries (deterministic)")
    debench_version: str
    n_submissions: int
    max_incomplete_share: float = Field(description="largest error + not-completed share a submission may have")
    max_left_out_share: float = Field(
        description="largest share of documents the metrics may leave out (errors, not completed, parse failures) for "
        "an entry to be ranked"
    )
    min_overall_judges: int = Field(
        description="verified judges (baselines aside) that must share the overall task set before an overall ranking "
        "is shown"
    )
    overall_tasks: list[str] = Field(description="the task set every overall rank uses: fixed by the maintainers' file")
    overall_waiting: str | None = Field(description="what the overall ranking waits for (null once it is shown)")
    tasks: list[TaskBoard]
    overview: list[OverviewRow] = Field(
        description="verified judges: ranked overall first (by overall rank, once shown), then the others"
    )
    overview_self_reported: list[OverviewRow] = Field(description="self-reported judges, never ranked")
    reported: Reported = Field(description="numbers reported in papers, not verified, never ranked")
    waiting: list[WaitingRun] = Field(
        default_factory=list, description="canonical judges' runs waiting for the leaderboard's job, in queue order"
    )
    not_built: list[str] = Field(
        default_factory=list, description="submission files the job could not read, build or run, each with its reason"
    )


def leaderboard_json_schema() -> dict[str, Any]:
    return document_schema(
        Leaderboard, slug="leaderboard", version=LEADERBOARD_SCHEMA_VERSION, title="debench leaderboard"
    )


def validate_leaderboard_dict(data: dict[str, Any]) -> None:
    validate_with_schema_file(data, SCHEMA_PATH)
