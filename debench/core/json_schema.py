"""JSON Schema files for the serialized pydantic models (results, leaderboard, reports)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from debench.core.ceilings import MAX_RESULTS_BYTES
from debench.core.errors import UserError, first_problem
from debench.core.user_files import Kind, load_json

M = TypeVar("M", bound=BaseModel)

SCHEMA_DIR = Path(__file__).resolve().parent.parent / "schema"
"""``debench/schema/``: the JSON Schema files debench writes and validates against."""


def schema_path(file_name: str) -> Path:
    """The schema file ``file_name`` of ``debench/schema/``."""
    return SCHEMA_DIR / file_name


def document_schema(model: type[BaseModel], *, slug: str, version: str, title: str) -> dict[str, Any]:
    """``model``'s JSON Schema with the draft, a versioned ``$id`` and a title."""
    schema = model.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = f"https://debench.dev/schema/{slug}-{version}.json"
    schema["title"] = title
    return schema


def read_json_model(path: str | Path, model: type[M], what: str) -> M:
    """The file at ``path`` as a ``model`` (a results file, a report, a card), validated, read through
    ``debench.core.user_files`` (a regular file within the ceiling of a results file, JSON without a
    key given twice); a missing, unreadable or malformed one is a one-line ``UserError`` naming it
    as ``what`` ("results file") and the first field that is wrong."""
    from pydantic import ValidationError

    data = load_json(path, Kind(what, MAX_RESULTS_BYTES))
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        where, msg = first_problem(exc)
        more = f" (+{exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        raise UserError(f"not a debench {what}: {msg}{more}", path=str(path), field=where) from None


def validate_with_schema_file(data: dict[str, Any], path: Path) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``data`` follows the schema file at ``path``."""
    import jsonschema

    jsonschema.validate(data, json.loads(path.read_text(encoding="utf-8")))
