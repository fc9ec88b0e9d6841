"""Judgment lines: one verdict on one debate (one leg) per JSONL line, the input of ``debench arena rank``.

Several judges' verdicts on the same debates may share a file or come in several files; the pair
(judge, debate) is unique, a debate being (topic, side 1, side 2) — except self-play, whose two
legs have the same sides: a judge may decide it twice. Lines are read strictly: ``winner`` is
required (``null`` for a tie), unknown keys are refused, and numbers and strings are not converted
into each other (``"winner": true`` or ``"side1_words": "300"`` is an error).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NotRequired, Required

import jiter
from pydantic import BaseModel, ConfigDict, Field, StrictInt, TypeAdapter, with_config
from typing_extensions import TypedDict  # pydantic needs this one before Python 3.12

from debench.core.errors import UserError
from debench.core.json_schema import document_schema, schema_path
from debench.core.user_files import REFERENCE_RANKING, read_text

UNNAMED_JUDGE = "(unnamed judge)"
JUDGMENT_SCHEMA_VERSION = "2.1"
JUDGMENT_SCHEMA_PATH = schema_path("judgment.schema.json")

Count = Annotated[StrictInt, Field(ge=0)]


class Judgment(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    topic: str = Field(min_length=1)
    side1: str = Field(min_length=1, description="side 1's debater (it spoke first)")
    side2: str = Field(min_length=1)
    winner: Annotated[StrictInt, Field(ge=1, le=2)] | None = Field(
        description="1 or 2; null is a tie (required: write null for a tie)"
    )
    side1_score: float | None = None
    side2_score: float | None = None
    reason: str | None = None
    judge: str | None = Field(default=None, description="the judge's label; absent: one unnamed judge")
    judge_model_id: str | None = Field(
        default=None, description="names the judge's underlying model (generation settings excluded), e.g. a hash"
    )
    side1_model_id: str | None = Field(default=None, description="names side 1's underlying model")
    side2_model_id: str | None = Field(default=None, description="names side 2's underlying model")
    side1_words: Count | None = Field(default=None, description="words side 1 spoke in the whole debate")
    side2_words: Count | None = Field(default=None, description="words side 2 spoke in the whole debate")
    side1_sources: Count | None = Field(default=None, description="sources, links or citations side 1 quoted")
    side2_sources: Count | None = Field(default=None, description="sources, links or citations side 2 quoted")
    wave: Count | None = Field(
        default=None,
        description="an adaptive run's: the wave of its schedule that chose this debate (from the "
        "judgments of earlier waves only)",
    )


FIELDS = tuple(Judgment.model_fields)


def judgment_json_schema() -> dict[str, Any]:
    return document_schema(
        Judgment,
        slug="judgment",
        version=JUDGMENT_SCHEMA_VERSION,
        title="debench arena judgment (one line of a judgments file)",
    )


def line_validator() -> Callable[[bytes | str], dict[str, Any]]:
    """Validates one JSON line against ``Judgment`` into a plain dict (the same fields, types,
    bounds and strictness; a test keeps the two schemas equal). A dict is ~3x cheaper to build
    than the model, which is what lets a million lines load in seconds. The line is parsed by
    jiter first, a key given twice refused (``"winner": null, "winner": 1`` is not a win): a
    ``ValueError`` that is not a ``ValidationError`` is the parser's."""
    fields: dict[str, Any] = {}
    for name, f in Judgment.model_fields.items():
        annotation = Annotated[(f.annotation, *f.metadata)] if f.metadata else f.annotation
        fields[name] = Required[annotation] if f.is_required() else NotRequired[annotation]
    line = with_config(ConfigDict(extra="forbid", strict=True))(TypedDict("JudgmentLine", fields))  # type: ignore[operator]  # a TypedDict built at run time from Judgment's fields; mypy reads only literal ones
    validate = TypeAdapter(line).validate_python

    def validated(text: bytes | str) -> dict[str, Any]:
        obj = jiter.from_json(text.encode() if isinstance(text, str) else text, catch_duplicate_keys=True)
        result: dict[str, Any] = validate(obj)
        return result

    return validated


def load_reference(path: Path) -> list[str]:
    """A reference ranking: one model per line, best first (``#`` lines are comments)."""
    text = read_text(path, REFERENCE_RANKING)
    names = [row.strip() for row in text.splitlines() if row.strip() and not row.startswith("#")]
    if len(set(names)) != len(names):
        raise UserError("a model appears twice in the reference ranking", path=str(path))
    return names
