"""The typed task definition: what a task YAML file may contain.

Task files are data: ``debench.task_files`` reads them with ``yaml.safe_load`` and validates them
against these classes; nothing in them is executed (templates are rendered in a sandboxed Jinja2
environment, regexes are compiled and checked at load time).
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator



class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class HubSource(_Strict):
    """Where the data set lives on the Hugging Face Hub (files in the published format)."""

    repo_id: str
    repo_type: Literal["dataset", "model"] = "dataset"
    revision: str | None = None
    allow_patterns: list[str] = Field(default_factory=list)


class DatasetConfig(_Strict):
    adapter: str
    """Named adapter that reads the published format (see ``debench.data``)."""
    local_dir: str
    """Directory name under ``$DEBENCH_DATA_DIR`` holding a local copy in the published format."""
    hub: HubSource | None = None
    sample: str | None = None
    """Directory (relative to ``debench/data/samples``) of the small sample written for the project."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Keyword options passed to the adapter (e.g. ``dimension: source``)."""


class PromptConfig(_Strict):
    system: str | None = None
    user: str
    variables: dict[str, str] = Field(default_factory=dict)
    """Fixed template variables set by the task file (e.g. the criterion a dimension task judges)."""
    files: dict[str, str] = Field(default_factory=dict)
    """Template variables read from text files next to the task file (e.g. a judging manual);
    their contents are copied into ``variables`` when the task is loaded."""


class GenerationConfig(_Strict):
    """What every request of the task asks for. A model's own settings (``--model-args`` or
    ``model@key=value``) override these field by field (see ``debench.models.args``)."""

    temperature: float = 0.0
    max_tokens: int = 256
    top_p: float | None = None
    top_k: int | None = None
    min_p: float | None = None
    stop: list[str] | None = None
    seed: int | None = None
    presence_penalty: float | None = None
    frequency_penalty: float | None = None
    repetition_penalty: float | None = None
    grammar: str | None = None
    """Name of a static GBNF grammar shipped in ``debench/grammars`` (used by servers that accept it)."""

    def sampling(self) -> dict[str, Any]:
        """The settings a request sends (the grammar goes separately), without unset ones."""
        return self.model_dump(exclude_none=True, exclude={"grammar"})

    @field_validator("grammar")
    @classmethod
    def _grammar_exists(cls, v: str | None) -> str | None:
        from debench.grammars import grammar_names

        if v is not None and v not in grammar_names():
            raise ValueError(f"unknown grammar '{v}' (known: {', '.join(grammar_names())})")
        return v

    @field_validator("max_tokens")
    @classmethod
    def _positive(cls, v: int) -> int:
        if v <= 0:
            raise ValueError("must be a positive integer")
        return v


class ParserConfig(_Strict):
    """How a raw answer becomes a prediction: ordered regexes, first one that matches wins."""

    patterns: list[str]
    match: Literal["first", "last"] = "last"
    """Which occurrence of the winning pattern to take."""
    group: int = 1
    flags: list[Literal["IGNORECASE", "MULTILINE", "DOTALL"]] = Field(default_factory=lambda: ["IGNORECASE"])
    type: Literal["int", "float", "str", "list", "dict"] = "str"
    map: dict[str, Any] = Field(default_factory=dict)
    """Value mapping applied after extraction (keys compared case-insensitively, stripped)."""
    choices: list[Any] | None = None
    """Allowed values after mapping; anything else is a parse failure."""
    transform: str | None = None
    """Named post-processing of the matched groups (see ``debench.parsing.TRANSFORMS``)."""
    transform_args: dict[str, Any] = Field(default_factory=dict)
    length: int | None = None
    """For list answers: the exact number of items."""
    unique: bool = False
    """For list answers: items must be distinct (a ranking is a permutation)."""
    keys: list[str] | None = None
    """For object answers: exactly these keys."""
    value_range: list[float] | None = Field(default=None, min_length=2, max_length=2)
    """For object answers: every value must be a number in [lo, hi]."""

    @field_validator("transform")
    @classmethod
    def _transform_known(cls, v: str | None) -> str | None:
        from debench.transforms import TRANSFORMS

        if v is not None and v not in TRANSFORMS:
            raise ValueError(TRANSFORMS.unknown_message(v))
        return v

    @field_validator("patterns")
    @classmethod
    def _compile(cls, v: list[str]) -> list[str]:
        if not v:
            raise ValueError("at least one pattern is required")
        for i, p in enumerate(v):
            try:
                re.compile(p)
            except re.error as exc:
                raise ValueError(f"pattern {i} is not a valid regular expression: {exc}") from None
        return v


class MetricConfig(_Strict):
    name: str
    args: dict[str, Any] = Field(default_factory=dict)


class ScoringConfig(_Strict):
    parse_failure: Literal["exclude", "value"] = "exclude"
    """``exclude``: metrics use parsed samples only (failures are counted and reported);
    ``value``: a failed parse is scored as ``parse_failure_value`` (the IBM paper's -1)."""
    parse_failure_value: Any = None
    n_bootstrap: int = 1000
    bootstrap_seed: int = 1234


class DimensionConfig(_Strict):
    name: str
    description: str


class DebatrixConfig(_Strict):
    """Settings of the Debatrix judge methods (Liang et al. 2024) for a multi-speech task."""

    dimensions: list[DimensionConfig] = Field(min_length=1)
    """One chronological column per dimension; several are merged by a summary step."""
    verdict_instruction: str
    """The last call's instruction; its answer goes through the task's parser."""
    verdict_grammar: str | None = None
    verdict_max_tokens: int = 32
    comment_max_tokens: int = 200
    score_grammar: str | None = "score_1_10"

    @field_validator("verdict_grammar", "score_grammar")
    @classmethod
    def _grammar_exists(cls, v: str | None) -> str | None:
        from debench.grammars import grammar_names

        if v is not None and v not in grammar_names():
            raise ValueError(f"unknown grammar '{v}' (known: {', '.join(grammar_names())})")
        return v


class TaskConfig(_Strict):
    name: str
    version: int = 1
    description: str
    group: str | None = None
    dataset: DatasetConfig
    prompt: PromptConfig
    generation: GenerationConfig = Field(default_factory=GenerationConfig)
    parser: ParserConfig
    metrics: list[MetricConfig]
    method: Literal["direct", "debatrix-h", "debatrix-f"] = "direct"
    debatrix: DebatrixConfig | None = None
    """Needed by ``--method debatrix-h|debatrix-f`` (multi-speech tasks)."""
    scoring: ScoringConfig = Field(default_factory=ScoringConfig)
    reports: list[str] = Field(default_factory=lambda: ["prediction_distribution"])
    """Descriptive reports stored in the results (see ``debench.metrics.reports``). Metric and
    report names are checked against their registries when a task file is loaded
    (``debench.task_files``): this module only describes the configuration."""
    baselines: list[str] = Field(default_factory=list)
    """Baselines that make sense for this task (used by scripts and the leaderboard)."""

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not re.fullmatch(r"[a-z0-9][a-z0-9_\-]*", v):
            raise ValueError("must be lower-case letters, digits, '_' or '-'")
        return v

    @model_validator(mode="after")
    def _templates_compile(self) -> TaskConfig:
        from debench.templates import check_template

        for key in ("system", "user"):
            text = getattr(self.prompt, key)
            if text is not None:
                err = check_template(text)
                if err:
                    raise ValueError(f"prompt.{key}: {err}")
        return self


def task_json_schema() -> dict[str, Any]:
    return TaskConfig.model_json_schema()
