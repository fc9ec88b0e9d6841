"""The maintainers' file: ``leaderboard/maintainers.yaml`` — what the leaderboard's own runs may cost.

The file is data (``yaml.safe_load``, checked against
``debench/schema/leaderboard_maintainers.schema.json`` and the models below). It holds:

* ``budgets``: what one entry's reproduction and one refresh may spend with the maintainers' key,
  in requests and in tokens (prompt + completion). An entry whose estimate exceeds the per-entry
  budget is never run; entries run in queue order while the refresh's budget allows, the others
  wait; a run that reaches its budget stops, and what it did not judge is scored as not completed
  (a run once started is final).
* ``allowlist``: the **exact** model ids the leaderboard reproduces (no pattern: ``gpt-4o*`` would
  admit every future, more expensive model), each with the model's published context window and a
  ``max_tokens`` ceiling. An identity asking for more, or whose settings make prompts overflow the
  published window (a smaller ``n_ctx``, a ``max_tokens`` that leaves no room), is refused at the
  gate of its pull request.
* ``overall_tasks``: the fixed task set of the overall ranking (never decided by whoever submitted
  last).

Changing this file is a maintainers' pull request (a submission pull request may not touch it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from debench.core.errors import UserError
from debench.core.json_schema import document_schema, schema_path
from debench.leaderboard.maintainer_files import load_maintainer_file

MAINTAINERS_SCHEMA_VERSION = "1.0"
MAINTAINERS_SCHEMA_PATH = schema_path("leaderboard_maintainers.schema.json")
DEFAULT_MAINTAINERS = Path("leaderboard") / "maintainers.yaml"

_PATTERN_CHARS = set("*?[]{}")


class Budget(BaseModel):
    model_config = ConfigDict(extra="forbid")
    requests: int = Field(ge=0, description="model requests (a Debatrix document makes several)")
    tokens: int = Field(ge=0, description="prompt + completion tokens")


class Budgets(BaseModel):
    model_config = ConfigDict(extra="forbid")
    per_entry: Budget = Field(
        description="what one entry's reproduction may spend: an entry estimated above it is never run"
    )
    per_refresh: Budget = Field(
        description="what one refresh may spend over all the entries it runs: the others wait in the queue"
    )


class AllowedModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._/:-]*$",
        description="an exact model id as a results file names it (no pattern)",
    )
    context_window: int = Field(gt=0, description="the model's published context window, in tokens (prompt + answer)")
    max_tokens: int = Field(gt=0, description="the largest max_tokens an identity of this model may ask for")
    description: str = ""

    @field_validator("model")
    @classmethod
    def _exact(cls, v: str) -> str:
        if _PATTERN_CHARS & set(v):
            raise ValueError(f"{v!r}: the allowlist names exact model ids, not patterns")
        return v


class Maintainers(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: Literal["1.0"] = "1.0"
    budgets: Budgets
    allowlist: list[AllowedModel] = Field(default_factory=list)
    overall_tasks: list[str] = Field(
        default_factory=list, description="the task set of the overall ranking, fixed by the maintainers"
    )

    def allowed(self, name: str) -> AllowedModel | None:
        return next((a for a in self.allowlist if a.model == name), None)


def no_maintainers() -> Maintainers:
    """No maintainers' file: zero budgets, an empty allowlist, no overall task set (nothing is run)."""
    zero = Budget(requests=0, tokens=0)
    return Maintainers(budgets=Budgets(per_entry=zero, per_refresh=zero))


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
    names = [a.model for a in got.allowlist]
    dup = next((n for n in names if names.count(n) > 1), None)
    if dup:
        raise UserError(f"the model '{dup}' is listed twice", path=str(path), field="allowlist")
    from debench.run.task_lookup import installed_task

    unknown = next((t for t in got.overall_tasks if installed_task(t) is None), None)
    if unknown:
        raise UserError(f"'{unknown}' is not a debench task", path=str(path), field="overall_tasks")
    return got
