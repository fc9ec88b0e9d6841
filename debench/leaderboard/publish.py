"""``debench leaderboard build`` end to end: validate the submissions, build, write the JSON and the page."""

from __future__ import annotations

import json
from pathlib import Path

from debench.atomic import write_atomic
from debench.errors import UserError
from debench.leaderboard.board import Leaderboard, validate_leaderboard_dict
from debench.leaderboard.build import build_leaderboard
from debench.leaderboard.collect import validate_all
from debench.leaderboard.spot_check import SpotCheckSettings
from debench.leaderboard.page import render_page
from debench.leaderboard.reported import load_reported


def write_leaderboard(board: Leaderboard, out_dir: Path) -> tuple[Path, Path]:
    """Write ``leaderboard.json`` and ``index.html`` atomically; returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data = board.model_dump(mode="json")
    validate_leaderboard_dict(data)
    json_path, html_path = out_dir / "leaderboard.json", out_dir / "index.html"
    write_atomic(json_path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    write_atomic(html_path, render_page(board))
    return json_path, html_path


def build(
    results_dir: Path,
    out_dir: Path,
    *,
    data_dir: str | Path | None = None,
    skip_invalid: bool = False,
    reported_path: Path | None = None,
    spot_check: SpotCheckSettings | None = None,
) -> tuple[Leaderboard, list[UserError]]:
    """Validate every submission under ``results_dir`` and write the leaderboard to ``out_dir``.

    A refused submission stops the build (``UserError``) unless ``skip_invalid``, in which case it
    is left out and returned among the errors. ``reported_path``: the papers' numbers (none if None).
    """
    if not results_dir.is_dir():
        raise UserError("submissions directory not found", path=str(results_dir))
    reported = load_reported(reported_path) if reported_path is not None else None
    files = sorted(results_dir.rglob("results_*.json"))
    ok, errors = validate_all(files, data_dir=data_dir, spot_check=spot_check)
    if errors and not skip_invalid:
        raise errors[0]
    board = build_leaderboard(ok, results_dir, reported=reported)
    write_leaderboard(board, out_dir)
    return board, errors
