"""Reading the maintainers' YAML files (``leaderboard/maintainers.yaml``, ``leaderboard/trusted_endpoints.yaml``).

Each is data: read with ``yaml.safe_load`` (no tag builds an object), checked against its schema
file in ``debench/schema/``, then validated into its pydantic model. Whatever is wrong is one
``UserError`` line naming the file and, when there is one, the field.
"""

from __future__ import annotations

from pathlib import Path
from typing import TypeVar

from pydantic import BaseModel, ValidationError

from debench.core.errors import UserError, first_problem
from debench.core.json_schema import validate_with_schema_file

FileModel = TypeVar("FileModel", bound=BaseModel)


def load_maintainer_file(path: Path, what: str, schema: Path, model: type[FileModel]) -> FileModel:
    """The YAML file at ``path`` (``what``: its name in messages, e.g. "maintainers' file"), checked
    against the schema file ``schema`` and validated into ``model``."""
    import jsonschema
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise UserError(f"{what} not found", path=str(path)) from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as exc:
        raise UserError(f"cannot read the {what} ({type(exc).__name__})", path=str(path)) from None
    try:
        validate_with_schema_file(data, schema)
    except jsonschema.ValidationError as exc:
        where = ".".join(str(p) for p in exc.absolute_path) or None
        raise UserError(
            f"does not follow its schema: {' '.join(exc.message.split())[:160]}", path=str(path), field=where
        ) from None
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        where, msg = first_problem(exc)
        raise UserError(msg.removeprefix("Value error, "), path=str(path), field=where) from None
