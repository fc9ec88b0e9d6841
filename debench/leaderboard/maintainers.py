"""The maintainers' file: ``leaderboard/maintainers.yaml`` — which judges the leaderboard runs, with
which settings, and what its own runs may cost.

The file is data (``yaml.safe_load``, checked against
``debench/schema/leaderboard_maintainers.schema.json`` and the models below). It holds:

* ``allowlist``: the **canonical judges**. Each entry is an exact model id (no pattern: ``gpt-4o*``
  would admit every future, dearer model), the judge ``methods`` it is ranked with, and the
  ``settings`` the leaderboard's own run uses — any model argument (``temperature``, ``max_tokens``,
  ``n_ctx``, …: the keys of ``--model-args``), on top of the task's own prompts, parser and
  generation settings. A canonical judge is one entry × one of its methods; a **variant** (a
  ``variant`` name) is a second entry of the same model with other settings, a judge of its own.
  A submission only *nominates* a canonical judge (``debench.leaderboard.canonical``): the job runs
  the maintainers' settings, never the submitter's.
* ``budgets``: what the job may spend with the maintainers' key, counted by the job itself
  (``debench.leaderboard.estimate``, ``allowance``): ``per_entry`` (one canonical judge on one task,
  over every refresh its run takes), ``per_refresh`` (with ``wall_minutes``, the refresh's time for
  runs, inside GitHub's 6-hour job limit) and ``per_month`` (the cumulative cap, kept in the ledger
  ``leaderboard/ledger.json``). Each budget is at most the next one, so the oldest waiting run
  always fits a refresh that starts afresh: the queue never starves.
* ``overall_tasks``: the fixed task set of the overall ranking (never decided by whoever submitted
  last).

Changing this file is a maintainers' pull request (a submission pull request may not touch it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from debench.core.errors import UserError
from debench.core.json_schema import document_schema, schema_path
from debench.leaderboard.maintainer_files import load_maintainer_file

MAINTAINERS_SCHEMA_VERSION = "2.0"
MAINTAINERS_SCHEMA_PATH = schema_path("leaderboard_maintainers.schema.json")
DEFAULT_MAINTAINERS = Path("leaderboard") / "maintainers.yaml"
GITHUB_JOB_MINUTES = 360
"""GitHub's limit on one job of a hosted runner: a refresh's wall-time budget leaves room below it."""

_PATTERN_CHARS = set("*?[]{}")

Setting = str | int | float | bool | list[str]


class Budget(BaseModel):
    model_config = ConfigDict(extra="forbid")
    requests: int = Field(ge=0, description="model requests (a Debatrix document makes about a hundred)")
    tokens: int = Field(ge=0, description="prompt + completion tokens, as the job counts them")

    def fits_in(self, other: Budget) -> bool:
        return self.requests <= other.requests and self.tokens <= other.tokens


class RefreshBudget(Budget):
    wall_minutes: int = Field(
        gt=0,
        le=GITHUB_JOB_MINUTES - 30,
        description="minutes one refresh may spend running models: a run still going then stops between two "
        "requests and is resumed by the next refresh (what it judged is kept); at most 330, inside GitHub's "
        "360-minute job limit",
    )


class Budgets(BaseModel):
    model_config = ConfigDict(extra="forbid")
    per_entry: Budget = Field(
        description="one canonical judge's run on one task, over every refresh it takes: a run estimated above it is "
        "never started; a run that reaches it stops, and what it did not judge is recorded as not completed"
    )
    per_refresh: RefreshBudget = Field(
        description="one refresh, over every run it makes: what does not fit waits, in queue order, and is resumed"
    )
    per_month: Budget = Field(
        description="every refresh of a calendar month (UTC) together, counted in the ledger (leaderboard/ledger.json)"
    )

    @model_validator(mode="after")
    def _nested(self) -> Budgets:
        if not self.per_entry.fits_in(self.per_refresh):
            raise ValueError("per_entry must fit in per_refresh (else the oldest waiting run could never start)")
        if not self.per_refresh.fits_in(self.per_month):
            raise ValueError("per_refresh must fit in per_month")
        return self


class AllowedModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._/:-]*$",
        description="an exact model id as a results file names it (no pattern)",
    )
    variant: str | None = Field(
        default=None,
        pattern=r"^[a-z0-9][a-z0-9-]*$",
        description="the name of a canonical variant (other settings of the same model, a judge of its own); "
        "none for the model's plain canonical judge",
    )
    methods: list[str] = Field(min_length=1, description="the judge methods this model is ranked with")
    settings: dict[str, Setting] = Field(
        default_factory=dict,
        description="the model arguments of the leaderboard's own run (--model-args keys), on top of the task's "
        "prompts, parser and generation settings; a nomination whose settings differ is self-reported",
    )
    description: str = ""

    @field_validator("model")
    @classmethod
    def _exact(cls, v: str) -> str:
        if _PATTERN_CHARS & set(v):
            raise ValueError(f"{v!r}: the allowlist names exact model ids, not patterns")
        return v

    @property
    def label(self) -> str:
        """The model with its variant: ``gpt-4o-mini-2024-07-18`` or ``gpt-4o-mini-2024-07-18+warm``."""
        return self.model + (f"+{self.variant}" if self.variant else "")


class Maintainers(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: Literal["2.0"] = "2.0"
    budgets: Budgets
    allowlist: list[AllowedModel] = Field(default_factory=list)
    overall_tasks: list[str] = Field(
        default_factory=list, description="the task set of the overall ranking, fixed by the maintainers"
    )

    def entries_of(self, model: str) -> list[AllowedModel]:
        """The allowlist's entries of an exact model id (its plain judge first, then its variants)."""
        return sorted((a for a in self.allowlist if a.model == model), key=lambda a: a.variant or "")


def no_maintainers() -> Maintainers:
    """No maintainers' file: zero budgets, an empty allowlist, no overall task set (nothing is run)."""
    zero = Budget(requests=0, tokens=0)
    return Maintainers(
        budgets=Budgets(per_entry=zero, per_refresh=RefreshBudget(requests=0, tokens=0, wall_minutes=1), per_month=zero)
    )


def maintainers_json_schema() -> dict[str, Any]:
    return document_schema(
        Maintainers,
        slug="leaderboard-maintainers",
        version=MAINTAINERS_SCHEMA_VERSION,
        title="debench leaderboard: the maintainers' file",
    )


def load_maintainers(path: Path) -> Maintainers:
    """The maintainers' file, checked; a bad file is a one-line ``UserError`` naming the field."""
    got = load_maintainer_file(path, "maintainers' file", MAINTAINERS_SCHEMA_PATH, Maintainers)
    labels = [a.label for a in got.allowlist]
    dup = next((n for n in labels if labels.count(n) > 1), None)
    if dup:
        raise UserError(f"the canonical judge '{dup}' is listed twice", path=str(path), field="allowlist")
    for i, a in enumerate(got.allowlist):
        _check_entry(a, path, f"allowlist.{i}")
    from debench.run.task_lookup import installed_task

    unknown = next((t for t in got.overall_tasks if installed_task(t) is None), None)
    if unknown:
        raise UserError(f"'{unknown}' is not a debench task", path=str(path), field="overall_tasks")
    return got


def _check_entry(a: AllowedModel, path: Path, where: str) -> None:
    """Known methods, and settings that make the model (no key among them: the file is public)."""
    from debench.core.redact import is_secret_name
    from debench.judging.base import METHODS
    from debench.models.factory import make_model

    unknown = next((m for m in a.methods if m not in METHODS), None)
    if unknown:
        raise UserError(
            f"'{unknown}' is not a judge method (known: {', '.join(METHODS.names())})", path=str(path), field=where
        )
    secret = next((k for k in a.settings if is_secret_name(k)), None)
    if secret:
        raise UserError(f"'{secret}' is a secret: keys come from the CI secrets", path=str(path), field=where)
    try:
        make_model(a.model, model_args=dict(a.settings))
    except UserError as exc:
        raise UserError(f"{a.label}: {exc}", path=str(path), field=f"{where}.settings") from None
