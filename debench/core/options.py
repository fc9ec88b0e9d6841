"""Run options, typed once for the CLI and the Python API.

Every value a command takes is one of the types below (``Limit``, ``Concurrency``, ``DataSource``…):
the options model of each command (``EvalOptions``, ``ScoreOptions``, ``ProbeOptions``,
``RateOptions``, ``GenerateOptions``, ``ArenaSettings``, and ``JudgeSpec`` below for the model
strings) declares its fields with them, and the CLI's options are checked by the same types
(``debench.cli.common.checked``). A command's options are made once, where it starts (the CLI from
click's values, the API from its arguments), and handed down as one object. So ``debench eval
--limit -3`` and ``debench.evaluate(..., limit=-3)`` are refused by one rule, in one line
(``UserError``; exit code 2 in the CLI) naming the option::

    field '--limit': must be at least 1 (got -3)

An unknown option gets a did-you-mean from both: click's for the CLI, ``Options`` (and
``check_keywords`` for the API's typed keywords) for Python callers.
"""

from __future__ import annotations

import difflib
import functools
from collections.abc import Collection, Iterable
from pathlib import Path, PurePath
from typing import (
    Annotated,
    Any,
    ClassVar,
    Literal,
    NamedTuple,
    Self,
    get_args,
    get_origin,
)

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
)

from debench.core.ceilings import (
    MAX_BATCH_HOURS,
    MAX_BOOTSTRAP,
    MAX_CONCURRENCY,
    MAX_PER_TOPIC,
    MAX_POLL_SECONDS,
    MAX_REPEATS,
    MAX_ROUNDS,
    MAX_SPEECH_TOKENS,
    MAX_WORDS,
)
from debench.core.errors import UserError


class KeyValue(NamedTuple):
    """One part of a ``key=value`` option string: as written, and its key and value (stripped;
    ``value`` None for a part without ``=``)."""

    text: str
    key: str
    value: str | None


def key_value_parts(text: str, sep: str = ",") -> list[KeyValue]:
    """``a=1,b=2`` (or ``a=1;b=2`` after ``model@``) split into its parts at ``sep``, each at its first
    ``=``: the one reader of that syntax. ``models.args`` checks what it finds (blank parts skipped,
    a part without a key or ``=`` refused, a key given twice refused); ``redact`` masks the secret
    ones in whatever a user typed, well formed or not."""
    out = []
    for part in text.split(sep):
        key, eq, value = part.partition("=")
        out.append(KeyValue(part, key.strip(), value.strip() if eq else None))
    return out


def _no_bool(value: Any) -> Any:
    if isinstance(value, bool):
        raise ValueError("expected a number, not true/false")
    return value


def _path_text(value: Any) -> Any:
    return str(value) if isinstance(value, PurePath) else value


Whole = Annotated[int, BeforeValidator(_no_bool)]
Number = Annotated[float, BeforeValidator(_no_bool)]

# -- the types of every command's values (one definition of each range and choice) ----------------
Limit = Annotated[Whole, Field(ge=1)]
"""Only the first N documents (topics for the speech commands)."""
Concurrency = Annotated[Whole, Field(ge=1, le=MAX_CONCURRENCY)]
Seed = Whole
NBootstrap = Annotated[Whole, Field(ge=0, le=MAX_BOOTSTRAP)]
Repeats = Annotated[Whole, Field(ge=1, le=MAX_REPEATS)]
Share = Annotated[Number, Field(ge=0, le=1)]
Seconds = Annotated[Number, Field(ge=0, le=MAX_POLL_SECONDS)]
Rounds = Annotated[Whole, Field(ge=2, le=MAX_ROUNDS)]
SpeechTokens = Annotated[Whole, Field(ge=16, le=MAX_SPEECH_TOKENS)]
Words = Annotated[Whole, Field(ge=10, le=MAX_WORDS)]
PerTopic = Annotated[Whole, Field(ge=1, le=MAX_PER_TOPIC)]
Hours = Annotated[Number, Field(gt=0, le=MAX_BATCH_HOURS)]
Temperature = Annotated[Number, Field(ge=0, le=2)]
DataSource = Literal["auto", "hub", "local", "sample"]


def _known_method(value: str) -> str:
    from debench.core.entry_points import clashes, declared

    names = declared("debench.methods")
    clash = clashes("debench.methods").get(value)
    if value not in names and clash is not None:
        raise ValueError(clash.message)
    if value not in names:
        close = difflib.get_close_matches(value, list(names), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        raise ValueError(f"not a judge method (known: {', '.join(names)}){hint}")
    return value


Method = Annotated[str, AfterValidator(_known_method)]
"""A judge method: an entry point of ``debench.methods`` (``debench.judging``; docs/plugins.md),
debench's own or an installed package's."""
Ensemble = Literal["mean", "median", "majority"]
ArenaEnsemble = Literal["majority"]
"""The arena's judges vote on the winner."""
ModelString = Annotated[str, Field(min_length=1)]
FolderText = Annotated[str, BeforeValidator(_path_text)]
"""A folder or file named as text or as a ``Path`` (kept as text)."""

TYPES: dict[str, Any] = {
    "Limit": Limit,
    "Concurrency": Concurrency,
    "Seed": Seed,
    "NBootstrap": NBootstrap,
    "Repeats": Repeats,
    "Share": Share,
    "Seconds": Seconds,
    "Rounds": Rounds,
    "SpeechTokens": SpeechTokens,
    "Words": Words,
    "PerTopic": PerTopic,
    "Hours": Hours,
    "Temperature": Temperature,
    "DataSource": DataSource,
    "Method": Method,
    "Ensemble": Ensemble,
    "ArenaEnsemble": ArenaEnsemble,
}
"""The types above by name, for the CLI's ``checked("Limit")``."""

DEFAULT_MAX_ERROR_RATE = 0.05


# -- messages ---------------------------------------------------------------------------------------
_EXPECTED = {
    "int_parsing": "expected a whole number",
    "int_type": "expected a whole number",
    "int_from_float": "expected a whole number",
    "float_parsing": "expected a number",
    "float_type": "expected a number",
    "bool_parsing": "expected true or false",
    "bool_type": "expected true or false",
    "string_type": "expected text",
    "list_type": "expected a list",
    "dict_type": "expected a mapping",
    "path_type": "expected a path",
}


def _shown(value: Any) -> str:
    """A value as a message shows it: numbers and text as written (the CLI's ``-3`` and the API's
    ``-3`` read the same), anything else as Python shows it."""
    plain = (
        isinstance(value, (str, int, float))
        and not isinstance(value, bool)
        and str(value).strip() == str(value)
        and str(value) != ""
    )
    text = str(value) if plain else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def explain(err: Any, value: Any, *, expects: str | None = None) -> str:
    """One pydantic error as a short phrase: ``must be at least 1 (got -3)``."""
    kind = err.get("type", "")
    ctx = err.get("ctx") or {}
    got = f" (got {_shown(value)})"
    if kind in ("greater_than_equal", "greater_than", "less_than_equal", "less_than"):
        words = {
            "greater_than_equal": "at least",
            "greater_than": "more than",
            "less_than_equal": "at most",
            "less_than": "less than",
        }[kind]
        bound = next(iter(ctx.values()), "?")
        return f"must be {words} {bound}{got}"
    if kind == "literal_error":
        choices = [
            c.strip().strip("'") for c in str(ctx.get("expected", "")).replace(" or ", ", ").split(",") if c.strip()
        ]
        close = difflib.get_close_matches(str(value), choices, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        return f"{value!r} is not one of {', '.join(choices)}{hint}"
    if kind == "string_too_short":
        return f"must not be empty{got}"
    if kind == "value_error":
        return f"{str(err.get('msg', '')).removeprefix('Value error, ')}{got}"
    if expects is not None:
        return f"expected {expects}{got}"
    return f"{_EXPECTED.get(kind, str(err.get('msg', 'invalid value')).lower())}{got}"


def unknown_name(name: str, known: Iterable[str], what: str = "option") -> str:
    names = sorted(known)
    close = difflib.get_close_matches(name, names, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else f" (known: {', '.join(names)})"
    return f"unknown {what} '{name}'{hint}"


def check_value(type_name: str, value: Any, flag: str) -> Any:
    """``value`` checked by the type ``type_name`` (for a CLI option ``flag``); a one-line
    ``UserError`` naming the option when it does not fit."""
    try:
        return _adapter(type_name).validate_python(value)
    except ValidationError as exc:
        raise UserError(explain(exc.errors()[0], value), field=flag) from None


@functools.cache
def _adapter(type_name: str) -> TypeAdapter[Any]:
    return TypeAdapter(TYPES[type_name])


def metavar(type_name: str) -> str:
    """How ``--help`` shows a value of the type: its choices, or its kind and range."""
    tp = TYPES[type_name]
    if get_origin(tp) is Literal:
        return "[" + "|".join(get_args(tp)) + "]"
    base, *meta = get_args(tp)
    bounds = [c for m in meta for c in getattr(m, "metadata", [])]
    text = {int: "INTEGER", float: "NUMBER"}.get(base, "TEXT")
    low = next((f">={c.ge}" for c in bounds if hasattr(c, "ge")), "")
    high = next((f"<={c.le}" for c in bounds if hasattr(c, "le")), "")
    return f"{text} {low[2:]}..{high[2:]}" if low and high else text + low + high


# -- the models -------------------------------------------------------------------------------------
class Options(BaseModel):
    """Base of every command's options: unknown names and bad values are a one-line
    ``UserError`` naming the CLI option, raised when the options are made (by the CLI, the API
    or any caller)."""

    model_config = ConfigDict(extra="forbid", validate_default=False, arbitrary_types_allowed=True)

    FLAGS: ClassVar[dict[str, str]] = {}
    """Field -> its CLI option, where it is not ``--<field with dashes>``."""

    def __init__(self, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise self.error(exc, data) from None

    @classmethod
    def of(cls, **values: Any) -> Self:
        """The options from values as a caller hands them in (of any type): checked here."""
        return cls(**values)

    def updated(self, **values: Any) -> Self:
        """These options with ``values`` on top, checked as when they were made."""
        return self.of(**{**{name: getattr(self, name) for name in self.model_fields_set}, **values})

    @classmethod
    def flag(cls, name: str) -> str:
        for klass in cls.__mro__:
            flags = klass.__dict__.get("FLAGS") or {}
            if name in flags:
                return str(flags[name])
        return "--" + name.replace("_", "-")

    @classmethod
    def label(cls, name: str) -> str:
        """How a message names a field: its CLI option, and the keyword when that differs."""
        flag = cls.flag(name)
        return flag if flag == "--" + name.replace("_", "-") else f"{flag} ({name})"

    @classmethod
    def error(cls, exc: ValidationError, data: dict[str, Any]) -> UserError:
        err = exc.errors()[0]
        name = str(err["loc"][0]) if err.get("loc") else "?"
        if err.get("type") == "extra_forbidden":
            return UserError(unknown_name(name, cls.model_fields))
        field = cls.model_fields.get(name)
        extra = field.json_schema_extra if field is not None and isinstance(field.json_schema_extra, dict) else {}
        wrong_type = len(err.get("loc", ())) > 1 or str(err.get("type", "")).endswith(("_type", "_parsing"))
        expects = str(extra["expects"]) if "expects" in extra and wrong_type else None
        return UserError(explain(err, data.get(name), expects=expects), field=cls.label(name))


class JobOptions(Options):
    """What every command that runs a model over jobs takes (eval, probe, rate-speeches,
    generate-speeches, arena)."""

    FLAGS: ClassVar[dict[str, str]] = {"use_cache": "--no-cache", "progress": "--no-progress"}

    concurrency: Concurrency | None = None
    """Requests (debates) in flight; None: the model's default."""
    seed: Seed = 0
    use_cache: bool = True
    cache_path: Path | None = None
    progress: bool = True
    max_error_rate: Share = DEFAULT_MAX_ERROR_RATE
    """The CLI exits 1 (after writing everything) when more than this share of the samples ended in
    errors; the API returns the errors for its caller to judge."""
    command: list[str] = Field(default_factory=list)


class JudgeSpec(Options):
    """The model a command (or ``debench.evaluate``) names: its model string (several, comma-separated,
    with ``ensemble``), how they are combined and how they are reached. Built once where a command
    starts (the CLI, the API) and handed down; ``debench.models.factory.make_judge`` makes the model
    from it with the run's seed."""

    model: ModelString = Field(json_schema_extra={"expects": "a model string such as 'gpt-4o' or 'baseline/random'"})
    ensemble: Ensemble | None = None
    api_base: str | None = Field(
        default=None, json_schema_extra={"expects": "a server URL, or several comma-separated"}
    )
    api_key: str | None = Field(default=None, repr=False)
    model_args: str | dict[str, Any] | None = Field(
        default=None, json_schema_extra={"expects": "'key=value,...' or a mapping of settings"}
    )


class DataOptions(Options):
    """Which documents: the first ``limit`` of the task's data set, from ``data_source``."""

    limit: Limit | None = None
    data_source: DataSource = "auto"
    data_dir: FolderText | None = None


def check_keywords(function: str, keywords: Iterable[str], known: Collection[str]) -> None:
    """An unknown keyword given to ``function`` refused with a did-you-mean (a one-line ``UserError``),
    as the CLI refuses an unknown option, before any work; ``known``: the keys of the TypedDict its
    ``**keywords`` are typed with (PEP 692), which Python itself does not check at run time."""
    for key in keywords:
        if key not in known:
            raise UserError(f"{function}(): {unknown_name(key, known, 'keyword')}")
