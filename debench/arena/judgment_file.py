"""Reading judgment files fast, strictly and in bounded memory: one line at a time, each validated
against ``Judgment`` into columns (~4 s and ~60 MB per million lines here). Every problem is one
line naming the file and the line, exit code 2."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from debench.arena.judgment_table import JudgmentTable, TableBuilder
from debench.arena.judgments import FIELDS, line_validator
from debench.errors import UserError


def line_error(exc: ValidationError) -> str:
    """The first problem of a line, in words (an unknown key before a missing one: ``winnr``
    explains why ``winner`` is missing)."""
    errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
    err = errors[0]
    kind, loc = err["type"], ".".join(str(p) for p in err["loc"])
    if kind == "json_invalid":
        return f"not valid JSON ({err['msg'].removeprefix('Invalid JSON: ')})"
    if kind == "dict_type":
        return "expected a JSON object"
    if kind == "extra_forbidden":
        close = difflib.get_close_matches(loc, FIELDS, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f" (known: {', '.join(FIELDS)})"
        return f"unknown key '{loc}'{hint}"
    if kind == "missing":
        return f"field '{loc}' is missing" + (" (write null for a tie)" if loc == "winner" else "")
    return f"field '{loc}': {err['msg']}"


def load_judgment_files(paths: Sequence[Path]) -> JudgmentTable:
    """Every line of every file; a second verdict of one judge on one debate (a third on one
    self-play topic) is an error naming both lines."""
    validate = line_validator()
    builder = TableBuilder()
    for f, path in enumerate(paths):
        n_before = len(builder)
        try:
            fh = open(path, "rb")  # noqa: SIM115 - closed below; lines are validated as bytes
        except FileNotFoundError:
            raise UserError("judgments file not found", path=str(path)) from None
        except OSError as exc:
            raise UserError(f"cannot read judgments ({exc.__class__.__name__})", path=str(path)) from None
        with fh:
            for n, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    obj = validate(line)
                except ValidationError as exc:
                    raise UserError(f"line {n}: {line_error(exc)}", path=str(path)) from None
                builder.add(obj, f, n)
        if len(builder) == n_before:
            raise UserError("no judgments", path=str(path))
    return builder.table(lambda f, n: f"{paths[f]} line {n}" if f >= 0 else f"judgment {n}")

