"""Debate topics: the list written for debench, or a user's file."""

from __future__ import annotations

from pathlib import Path

import yaml

from debench.arena.protocol import Topic
from debench.errors import UserError

BUILTIN = Path(__file__).resolve().parent / "topics.yaml"


def load_topics(path: str | Path | None = None) -> list[Topic]:
    """A ``.txt`` file (one question per line; optional ``question | side 1 | side 2``) or a YAML file
    with ``topics:`` entries that are strings or ``{question, side1, side2}`` mappings."""
    path = Path(path) if path else BUILTIN
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read topics ({exc.__class__.__name__})", path=str(path)) from None
    topics: list[Topic] = []
    if path.suffix in (".yaml", ".yml"):
        try:
            raw = yaml.safe_load(text)
        except yaml.YAMLError:
            raise UserError("invalid YAML", path=str(path)) from None
        entries = raw.get("topics") if isinstance(raw, dict) else raw
        if not isinstance(entries, list):
            raise UserError("expected a list of topics", path=str(path), field="topics")
        for i, e in enumerate(entries):
            if isinstance(e, str) and e.strip():
                topics.append(Topic(e.strip()))
            elif isinstance(e, dict) and isinstance(e.get("question"), str):
                topics.append(Topic(e["question"], str(e.get("side1", "Yes")), str(e.get("side2", "No"))))
            else:
                raise UserError(f"entry {i + 1} is neither a question nor a {{question, side1, side2}} mapping", path=str(path), field="topics")
    else:
        for line in text.splitlines():
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            parts = [p.strip() for p in line.split("|")]
            if len(parts) == 3:
                topics.append(Topic(*parts))
            elif len(parts) == 1:
                topics.append(Topic(parts[0]))
            else:
                raise UserError(f"expected 'question' or 'question | side 1 | side 2', got: {line[:60]}", path=str(path))
    if not topics:
        raise UserError("no topics found", path=str(path))
    if len({t.question for t in topics}) != len(topics):
        raise UserError("duplicate topics", path=str(path))
    return topics
