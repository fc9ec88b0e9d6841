"""JSON Schema files for the serialized pydantic models (results, leaderboard, reports)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel

from debench.core.errors import UserError

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
    """The file at ``path`` as a ``model`` (a results file, a report, a card), validated; a missing,
    unreadable or malformed one is a one-line ``UserError`` naming it as ``what`` ("results file")."""
    try:
        return model.model_validate_json(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{what} not found", path=str(path)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read the {what} ({type(exc).__name__})", path=str(path)) from None
    except ValueError as exc:
        raise UserError(f"not a debench {what} ({str(exc).splitlines()[0]})", path=str(path)) from None


def validate_with_schema_file(data: dict[str, Any], path: Path) -> None:
    """Raise ``jsonschema.ValidationError`` unless ``data`` follows the schema file at ``path``."""
    import jsonschema

    jsonschema.validate(data, json.loads(path.read_text(encoding="utf-8")))
