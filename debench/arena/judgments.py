"""Judgment files: one verdict on one debate (one leg) per JSONL line, the input of ``debench arena rank``.

Several judges' verdicts on the same debates may share a file or come in several files; the pair
(judge, debate) is unique, a debate being (topic, side 1, side 2). Only ``topic``, ``side1`` and
``side2`` are required, so files written before a field existed still load.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from debench.errors import UserError
from debench.json_schema import document_schema
from debench.jsonl import iter_jsonl_objects

UNNAMED_JUDGE = "(unnamed judge)"
JUDGMENT_SCHEMA_VERSION = "1.0"
JUDGMENT_SCHEMA_PATH = Path(__file__).resolve().parent.parent / "schema" / "judgment.schema.json"


class Judgment(BaseModel):
    model_config = ConfigDict(extra="ignore")

    topic: str
    side1: str
    side2: str
    winner: Literal[1, 2] | None = Field(default=None, description="1 or 2; null is a tie")
    side1_score: float | None = None
    side2_score: float | None = None
    reason: str | None = None
    judge: str | None = Field(default=None, description="the judge's label; absent: one unnamed judge")
    judge_model_id: str | None = Field(default=None, description="hash naming the judge's underlying model (generation settings excluded)")
    side1_model_id: str | None = Field(default=None, description="hash naming side 1's underlying model")
    side2_model_id: str | None = Field(default=None, description="hash naming side 2's underlying model")
    side1_words: int | None = Field(default=None, ge=0, description="words side 1 spoke in the whole debate")
    side2_words: int | None = Field(default=None, ge=0, description="words side 2 spoke in the whole debate")
    side1_sources: int | None = Field(default=None, ge=0, description="sources, links or citations side 1 quoted")
    side2_sources: int | None = Field(default=None, ge=0, description="sources, links or citations side 2 quoted")

    @property
    def judge_label(self) -> str:
        return self.judge if self.judge is not None else UNNAMED_JUDGE

    @property
    def debate(self) -> tuple[str, str, str]:
        return (self.topic, self.side1, self.side2)


def judgment_json_schema() -> dict[str, Any]:
    return document_schema(Judgment, slug="judgment", version=JUDGMENT_SCHEMA_VERSION, title="debench arena judgment (one line of a judgments file)")


def load_judgment_files(paths: Sequence[Path]) -> list[Judgment]:
    """Every line of every file; a second verdict of one judge on one debate is an error."""
    out: list[Judgment] = []
    seen: dict[tuple[str, str, str, str], str] = {}
    for path in paths:
        n_before = len(out)
        for n, obj in iter_jsonl_objects(path, "judgments"):
            try:
                j = Judgment.model_validate(obj)
            except ValidationError as exc:
                err = exc.errors()[0]
                field = ".".join(str(p) for p in err["loc"]) or None
                raise UserError(f"line {n}: {err['msg']}", path=str(path), field=field) from None
            key = (j.judge_label, *j.debate)
            if key in seen:
                who = "the unnamed judge (give each judge's lines a 'judge' field)" if j.judge is None else f"judge '{j.judge}'"
                raise UserError(
                    f"line {n}: a second judgment of '{j.side1}' vs '{j.side2}' on '{j.topic}' in that order by {who}; the first is {seen[key]}",
                    path=str(path),
                )
            seen[key] = f"{path} line {n}"
            out.append(j)
        if len(out) == n_before:
            raise UserError("no judgments", path=str(path))
    return out


def load_judgments(path: Path) -> list[Judgment]:
    return load_judgment_files([path])


def load_reference(path: Path) -> list[str]:
    try:
        names = [l.strip() for l in Path(path).read_text(encoding="utf-8").splitlines() if l.strip() and not l.startswith("#")]
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read the reference ranking ({exc.__class__.__name__})", path=str(path)) from None
    if len(set(names)) != len(names):
        raise UserError("a model appears twice in the reference ranking", path=str(path))
    return names
