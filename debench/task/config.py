"""The typed task definition: what a task YAML file may contain.

Task files are data: ``debench.run.task_files`` reads them as YAML (``debench.core.user_files``) and validates them
against these classes; nothing in them is executed (templates are rendered in a sandboxed Jinja2
environment, regexes are compiled and checked at load time).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

import regex
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    StringConstraints,
    field_validator,
    model_serializer,
    model_validator,
)

from debench.core.errors import UserError
from debench.core.options import Method, NBootstrap

RegexFlag = Literal["IGNORECASE", "MULTILINE", "DOTALL"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _unset(value: Any) -> bool:
    """Generic-adapter settings are left out of a task's serialization when unset, so that the
    identity of every other task (``config_sha256``, run fingerprints) is what it was before them."""
    return value is None


GENERIC_ADAPTER = "generic"
"""The adapter that reads any table of records (a JSONL, CSV or Parquet file, a ``save_to_disk``
folder, or a Hub data set through ``datasets.load_dataset``) with the field mapping of ``dataset.fields``."""


class HubSource(_Strict):
    """Where the data set lives on the Hugging Face Hub."""

    repo_id: str
    """A Hub id (``org/name``); for the generic adapter also a local folder in the Hub layout."""
    repo_type: Literal["dataset", "model"] = "dataset"
    revision: str | None = None
    """A commit, tag or branch; pin a commit so that a rerun reads the same data."""
    allow_patterns: list[str] = Field(default_factory=list)
    """Published-format adapters: the files to download."""
    config: str | None = Field(default=None, exclude_if=_unset)
    """Generic adapter: the data set's configuration (``datasets.load_dataset(repo_id, config)``)."""


class SpeechListFields(_Strict):
    """A column holding the debate as a list of speeches, each a mapping."""

    field: str
    """The column (in a CSV file: a JSON list in the cell)."""
    text: str = "text"
    """Key of a speech's text."""
    side: str | None = None
    """Key of the speaker's side (e.g. ``pro`` / ``con``); None: speeches have no side."""
    speaker: str | None = None
    """Key of the speaker's name."""
    side_map: dict[str, str] = Field(default_factory=dict)
    """Raw side value -> the side the task's answers use (e.g. ``{A: pro, B: con}``)."""

    @field_validator("side_map", mode="before")
    @classmethod
    def _keys(cls, v: Any) -> Any:
        return {value_key(k): x for k, x in v.items()} if isinstance(v, dict) else v


class FieldMap(_Strict):
    """Generic adapter: which column is what. Exactly one of ``text``, ``texts``, ``speeches``."""

    doc_id: str | None = None
    """Column with a unique id per record; None: the record's position (``"0"``, ``"1"``, ...)."""
    variables: dict[str, str] = Field(default_factory=dict)
    """Prompt template variable -> column (e.g. ``{motion: topic}``)."""
    text: str | None = None
    """Column with the one text to judge (a speech, or a whole debate as one text)."""
    texts: dict[str, str] = Field(default_factory=dict)
    """Side -> column: one speech per side, in this order (e.g. ``{pro: argument_a, con: argument_b}``)."""
    speeches: SpeechListFields | None = None
    gold: str
    """Column with the gold answer."""
    label_map: dict[str, Any] = Field(default_factory=dict)
    """Raw gold value -> the value the metrics compare with (e.g. ``{0: pro, 1: con, 0.5: tie}``);
    empty: gold values as they are. A gold value missing from a non-empty map is an error."""
    meta: list[str] = Field(default_factory=list)
    """Columns kept in each document's metadata (e.g. a source, for reports)."""

    @field_validator("label_map", mode="before")
    @classmethod
    def _keys(cls, v: Any) -> Any:
        return {value_key(k): x for k, x in v.items()} if isinstance(v, dict) else v

    @model_validator(mode="after")
    def _one_text_source(self) -> FieldMap:
        given = [k for k, v in (("text", self.text), ("texts", self.texts), ("speeches", self.speeches)) if v]
        if len(given) != 1:
            raise ValueError(f"give exactly one of text, texts, speeches (got {', '.join(given) or 'none'})")
        if "transcript" in self.variables:
            raise ValueError("'transcript' is set by the adapter from the text or speeches; use another variable name")
        return self


def value_key(value: Any) -> str:
    """How a raw value is looked up in ``label_map`` / ``side_map``: ``1``, ``1.0`` and ``"1"`` are
    the same key, booleans are ``true`` / ``false``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()


Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
"""A sha256 as 64 lower-case hex digits."""
ContentHash = Annotated[str, StringConstraints(pattern=r"^sha256:[0-9a-f]{64}$")]
"""A content hash as results record it: ``sha256:`` and 64 lower-case hex digits."""


class FetchConfig(_Strict):
    """How ``debench data fetch`` downloads the published data set into the cache
    (``$DEBENCH_CACHE_DIR/data/<local_dir>``) and checks it."""

    url: str | None = None
    """An archive (``.tar.gz``, ``.tgz``, ``.tar``, ``.zip``) to download and unpack; None: the files
    in ``files``, from ``dataset.hub``."""
    sha256: Sha256 | None = None
    """sha256 of the archive at ``url``; None when it could not be known when the task was written."""
    member: str | None = None
    """A nested archive inside the archive to unpack instead (``data/DebateArt.tar.gz``)."""
    files: dict[str, Sha256 | None] = Field(default_factory=dict)
    """Hub files to download -> their sha256 (None: unknown)."""
    content_hash: ContentHash | None = None
    """The content hash (``sha256:…``, as results record it in ``dataset.content_hash``) of the
    adapter's files once unpacked: checked when an archive's own hash cannot be."""
    note: str | None = None

    @model_validator(mode="after")
    def _one_source(self) -> FetchConfig:
        if (self.url is None) == (not self.files):
            raise ValueError("give either url (an archive) or files (from dataset.hub)")
        if self.member is not None and self.url is None:
            raise ValueError("member needs url")
        return self

    @property
    def verified_by(self) -> list[str]:
        """What a fetch checks: the archive's or files' sha256, the unpacked content hash."""
        out = []
        if self.sha256 or (self.files and all(self.files.values())):
            out.append("sha256")
        if self.content_hash:
            out.append("content_hash")
        return out


class DatasetConfig(_Strict):
    adapter: str
    """Named adapter that reads the published format (see ``debench.data``), or ``generic``."""
    local_dir: str | None = None
    """Directory name under ``$DEBENCH_DATA_DIR`` holding a local copy in the published format
    (required by every adapter but ``generic``)."""
    hub: HubSource | None = None
    sample: str | None = None
    """Directory (relative to ``debench/data/samples``) of the small sample written for the project."""
    options: dict[str, Any] = Field(default_factory=dict)
    """Keyword options passed to the adapter (e.g. ``dimension: source``)."""
    file: str | None = Field(default=None, exclude_if=_unset)
    """Generic adapter: a JSONL, CSV or Parquet file or a ``save_to_disk`` folder, relative to the task file."""
    split: str | None = Field(default=None, exclude_if=_unset)
    """Generic adapter: the split to read from the Hub or a ``save_to_disk`` folder (default ``test``)."""
    fields: FieldMap | None = Field(default=None, exclude_if=_unset)
    """Generic adapter: the field mapping."""
    fetch: FetchConfig | None = Field(default=None, exclude=True)
    """Where ``debench data fetch`` gets the published data set, and how it is checked. Not part of
    the task's identity (``config_sha256``, run fingerprints): where the files come from does not
    change them, the data's content hash does."""

    _base_dir: Path | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _adapter_needs(self) -> DatasetConfig:
        generic = self.adapter == GENERIC_ADAPTER
        if generic:
            if self.fields is None:
                raise ValueError("the generic adapter needs dataset.fields (the field mapping)")
            if self.file is None and self.hub is None:
                raise ValueError("the generic adapter needs dataset.file or dataset.hub")
        else:
            extra = [k for k in ("file", "split", "fields") if getattr(self, k) is not None]
            if self.hub is not None and self.hub.config:
                extra.append("hub.config")
            if extra:
                raise ValueError(f"{', '.join(extra)}: only for adapter '{GENERIC_ADAPTER}'")
            if self.local_dir is None:
                raise ValueError(f"adapter '{self.adapter}' needs local_dir")
        return self

    def file_path(self) -> Path:
        """The generic adapter's ``file``, resolved against the task file's folder."""
        if self.file is None:
            raise UserError("the task names no dataset.file", field="dataset.file")
        path = Path(self.file).expanduser()
        return path if path.is_absolute() or self._base_dir is None else self._base_dir / path


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
        from debench.task.grammars import grammar_names

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
    flags: list[RegexFlag] = Field(default_factory=lambda: list[RegexFlag](["IGNORECASE"]))
    type: Literal["int", "float", "str", "list", "dict"] = "str"
    map: dict[str, Any] = Field(default_factory=dict)
    """Value mapping applied after extraction (keys compared case-insensitively, stripped)."""
    choices: list[Any] | None = None
    """Allowed values after mapping; anything else is a parse failure."""
    transform: str | None = None
    """Named post-processing of the matched groups (see ``debench.task.parsing.TRANSFORMS``)."""
    transform_args: dict[str, Any] = Field(default_factory=dict)
    length: int | None = None
    """For list answers: the exact number of items."""
    unique: bool = False
    """For list answers: items must be distinct (a ranking is a permutation)."""
    keys: list[str] | None = None
    """For object answers: exactly these keys."""
    value_range: list[float] | None = Field(default=None, min_length=2, max_length=2)
    """For object answers: every value must be a number in [lo, hi]."""

    @field_validator("choices")
    @classmethod
    def _some_choices(cls, v: list[Any] | None) -> list[Any] | None:
        if v is not None and not v:
            raise ValueError(
                "an empty list allows no answer (every answer would be a parse failure); leave it out to allow any"
            )
        return v

    @field_validator("transform")
    @classmethod
    def _transform_known(cls, v: str | None) -> str | None:
        from debench.task.transforms import TRANSFORMS

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
                regex.compile(p, regex.VERSION0)  # what debench.task.parsing matches with
            except (re.error, regex.error) as exc:
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
    n_bootstrap: NBootstrap = 1000
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
    verdict: Literal["summary", "scores"] = "summary"
    """Which Debatrix verdict is the prediction: ``summary`` (the last call, read by the task's
    parser) or ``scores`` (the paper's score comparison: the side whose final debater score — the
    mean over the columns — is highest, ties within the task's ``compare_scores`` tie band, else
    0). Both are kept in every sample and scored in the results (``reports.debatrix_verdicts``);
    ``--method debatrix-h-scores`` / ``debatrix-f-scores`` choose ``scores`` for any task."""
    score_tie_band: float | None = Field(default=None, ge=0)
    """The tie band of the ``scores`` verdict when the task's parser is not ``compare_scores``
    (whose ``tie_band`` then rules): final scores this close or closer are a tie. Debatrix (Liang et
    al. 2024, §4.1) treats differences within ±3 as ties for the sources and language dimensions."""

    @field_validator("verdict_grammar", "score_grammar")
    @classmethod
    def _grammar_exists(cls, v: str | None) -> str | None:
        from debench.task.grammars import grammar_names

        if v is not None and v not in grammar_names():
            raise ValueError(f"unknown grammar '{v}' (known: {', '.join(grammar_names())})")
        return v

    @model_serializer(mode="wrap")
    def _without_default_verdict(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """``verdict: summary`` (the default) is left out, so tasks written before the setting
        existed keep their fingerprints (and their leaderboard runs stay valid)."""
        data: dict[str, Any] = handler(self)
        if data.get("verdict") == "summary":
            data.pop("verdict", None)
        if data.get("score_tie_band") is None:
            data.pop("score_tie_band", None)  # likewise for tasks without a band of their own
        return data


JudgeMethodName = Method

SCORING_SIDE = frozenset({"description", "metrics", "scoring", "baselines"})
"""The task fields that say how answers are scored or described, not what is asked: left out of the
task's identity (``task_identity``) and of run fingerprints, so adding or changing a metric keeps
every stored run valid (it is re-scored from its samples). Every other field is the identity."""


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
    method: JudgeMethodName = "direct"
    debatrix: DebatrixConfig | None = None
    """Needed by ``--method debatrix-h|debatrix-f`` (and their ``-scores`` variants; multi-speech tasks)."""
    scoring: ScoringConfig = Field(default_factory=ScoringConfig)
    reports: list[str] = Field(default_factory=lambda: ["prediction_distribution"])
    """Descriptive reports stored in the results (see ``debench.metrics.reports``). Metric and
    report names are checked against their registries when a task file is loaded
    (``debench.run.task_files``): this module only describes the configuration."""
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
        from debench.task.prompt_sandbox import check_template

        for key in ("system", "user"):
            text = getattr(self.prompt, key)
            if text is not None:
                err = check_template(text)
                if err:
                    raise ValueError(f"prompt.{key}: {err}")
        return self


def task_json_schema() -> dict[str, Any]:
    return TaskConfig.model_json_schema()
