"""A submission's results file, read and checked on its own (before the task or the data is looked at).

It is a regular file within its size cap (``debench.leaderboard.files``), readable JSON holding no
key-shaped string nor a secret-looking value under a key / token / secret / password name
(``files.refuse_planted_keys``), of a results schema version this debench reads, following
``debench/schema/results.schema.json`` and the ``Results`` model; it names no absolute path of the
submitter's machine (the command line, the task file, the data location, any string at all), and it
was not created after the build.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from debench.core.errors import first_problem
from debench.core.paths import machine_path
from debench.leaderboard.files import MAX_RESULTS_BYTES, read_json_object, refusal
from debench.leaderboard.public_text import excerpt
from debench.scoring.results import READABLE_VERSIONS, Results, validate_results_dict


def read_results(path: Path) -> Results:
    """The results file at ``path``, checked on its own (see the module docstring)."""
    data = read_json_object(path, MAX_RESULTS_BYTES, "results file")
    version = data.get("schema_version")
    if version not in READABLE_VERSIONS:
        raise refusal(
            path,
            "schema_version",
            f"unsupported results schema version {json.dumps(version)} (this debench reads "
            f"{', '.join(READABLE_VERSIONS)})",
        )
    import jsonschema

    try:
        validate_results_dict(data)
    except jsonschema.ValidationError as exc:
        where = ".".join(str(p) for p in exc.absolute_path) or None
        raise refusal(path, where, f"does not follow the results schema: {excerpt(exc.message)}") from None
    try:
        results = Results.model_validate(data)
    except ValidationError as exc:
        where, msg = first_problem(exc)
        raise refusal(path, where, f"does not follow the results schema: {excerpt(msg)}") from None
    _refuse_machine_paths(results, path)
    _refuse_future(results, path)
    return results


def _path_fields(results: Results) -> Iterable[tuple[str, Any]]:
    """(field, value) of everything in a results file that names a path: the command line, the task
    file, the data location, and any configuration entry named like a file, folder or path."""
    command = results.config.get("command")
    if isinstance(command, str):  # a command line written as one string: each of its words
        command = command.split()
    if isinstance(command, list):
        for i, arg in enumerate(command):
            yield (
                f"config.command.{i}",
                str(arg).partition("=")[2] if str(arg).startswith("--") and "=" in str(arg) else arg,
            )
    yield "dataset.location", results.dataset.location
    for key, value in results.config.items():
        if (
            key == "task_file"
            or key.endswith(("_file", "_dir", "_path", "_location"))
            or key in ("predictions", "judging_manual")
        ):
            yield f"config.{key}", value
    yield from _strings(results.model_dump(mode="json"), "")


def _strings(value: Any, where: str) -> Iterable[tuple[str, Any]]:
    """(field, text) of every string anywhere in a results file (a model name, a note, a report):
    none may be an absolute path either."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, f"{where}.{k}" if where else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, f"{where}.{i}")


def _refuse_machine_paths(results: Results, path: Path) -> None:
    for where, value in _path_fields(results):
        if isinstance(value, str) and machine_path(value):
            raise refusal(
                path,
                where,
                f"{json.dumps(value)} is an absolute path of the machine the run was made on; a submission "
                "names paths relative to the working directory or with ~ for the home folder (debench writes "
                "them so; rerun, or edit the file)",
            )


def _refuse_future(results: Results, path: Path) -> None:
    try:
        created = datetime.fromisoformat(results.created_at)
    except ValueError:
        raise refusal(path, "created_at", f"{json.dumps(results.created_at)} is not an ISO 8601 time") from None
    if created.tzinfo is None:
        created = created.replace(tzinfo=UTC)
    now = datetime.now(UTC)
    if created > now:
        raise refusal(
            path,
            "created_at",
            f"{results.created_at} is after this build ({now.strftime('%Y-%m-%dT%H:%M:%SZ')}): a "
            "run cannot come from the future",
        )
