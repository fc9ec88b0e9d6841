"""Judgment files: one debate (one leg) per JSONL line, the input of ``debench arena rank``."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from debench.errors import UserError
from debench.jsonl import iter_jsonl_objects


class Judgment(BaseModel):
    model_config = ConfigDict(extra="ignore")

    topic: str
    side1: str
    side2: str
    winner: Literal[1, 2] | None = None
    """1 or 2; null is a tie."""
    side1_score: float | None = None
    side2_score: float | None = None
    reason: str | None = None


def load_judgments(path: Path) -> list[Judgment]:
    out: list[Judgment] = []
    seen: set[tuple[str, str, str]] = set()
    for n, obj in iter_jsonl_objects(path, "judgments"):
        try:
            j = Judgment.model_validate(obj)
        except ValidationError as exc:
            err = exc.errors()[0]
            field = ".".join(str(p) for p in err["loc"]) or None
            raise UserError(f"line {n}: {err['msg']}", path=str(path), field=field) from None
        key = (j.topic, j.side1, j.side2)
        if key in seen:
            raise UserError(f"line {n}: a second judgment of '{j.side1}' vs '{j.side2}' on '{j.topic}' in that order", path=str(path))
        seen.add(key)
        out.append(j)
    if not out:
        raise UserError("no judgments", path=str(path))
    return out


def load_reference(path: Path) -> list[str]:
    try:
        names = [l.strip() for l in Path(path).read_text(encoding="utf-8").splitlines() if l.strip() and not l.startswith("#")]
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read the reference ranking ({exc.__class__.__name__})", path=str(path)) from None
    if len(set(names)) != len(names):
        raise UserError("a model appears twice in the reference ranking", path=str(path))
    return names
