"""``debench leaderboard build`` and the refresh job end to end: validate the submissions tree,
decide what the leaderboard reproduced (and, for the refresh job, spot-check what awaits it),
build, write the JSON and the page; and stage what is pushed to the Hub.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from debench.atomic import write_atomic
from debench.errors import UserError
from debench.leaderboard.board import SCHEMA_PATH, Leaderboard, validate_leaderboard_dict
from debench.leaderboard.build import build_leaderboard
from debench.leaderboard.files import copy_regular, results_files, submission_folders
from debench.leaderboard.page import render_page
from debench.leaderboard.reported import load_reported
from debench.leaderboard.spot_record import record_path
from debench.leaderboard.trusted import TrustedEndpoints, load_trusted
from debench.leaderboard.validate import ValidatedSubmission, validate_all
from debench.leaderboard.verify import Removed, SpotCheckRun, verify_all


def write_leaderboard(board: Leaderboard, out_dir: Path) -> tuple[Path, Path]:
    """Write ``leaderboard.json`` and ``index.html`` atomically; returns their paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data = board.model_dump(mode="json")
    validate_leaderboard_dict(data)
    json_path, html_path = out_dir / "leaderboard.json", out_dir / "index.html"
    write_atomic(json_path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    write_atomic(html_path, render_page(board))
    return json_path, html_path


@dataclass
class Built:
    board: Leaderboard
    published: list[ValidatedSubmission]
    """The submissions on the page (their files are what the Hub receives)."""
    removed: list[Removed] = field(default_factory=list)
    errors: list[UserError] = field(default_factory=list)
    """Refused submissions (and whatever else is wrong in the tree)."""


def build(
    results_dir: Path,
    out_dir: Path | None,
    *,
    data_dir: str | Path | None = None,
    skip_invalid: bool = False,
    reported_path: Path | None = None,
    trusted_path: Path | None,
    spot_check: SpotCheckRun | None = None,
) -> Built:
    """Validate every submission under ``results_dir``, decide each one's standing
    (``debench.leaderboard.verify``; with ``spot_check``, run the leaderboard's spot check of the
    trusted entries that await it and write their records), and write the leaderboard to ``out_dir``
    (``None``: build it, write nothing).

    A refused submission stops the build (``UserError``) unless ``skip_invalid``, in which case it
    is left out and returned among the errors. Entries the spot check removes are left out and
    listed in the leaderboard with the reason. ``reported_path``: the papers' numbers (none if None);
    ``trusted_path``: the allowlist of endpoints (None: nothing can be verified).
    """
    folders, errors = submission_folders(results_dir)
    reported = load_reported(reported_path) if reported_path is not None else None
    trusted = load_trusted(trusted_path) if trusted_path is not None else TrustedEndpoints()
    files = [f for folder in folders for f in results_files(folder)]
    ok, refused = validate_all(files, data_dir=data_dir, folders=True)
    errors += refused
    if errors and not skip_invalid:
        raise errors[0]
    kept, removed, bad_records = verify_all(ok, trusted, spot_check)
    errors += bad_records
    if bad_records and not skip_invalid:
        raise bad_records[0]
    board = build_leaderboard(kept, results_dir, removed=removed, reported=reported)
    if out_dir is not None:
        write_leaderboard(board, out_dir)
    return Built(board, [s for s, _, _ in kept], removed, errors)


def published_files(subs: list[ValidatedSubmission]) -> list[Path]:
    """The validated files of the submissions on the page: results, samples, spot-check records."""
    out: list[Path] = []
    for s in subs:
        out += [s.results_path, s.samples_path]
        if s.provenance.spot_check is not None:
            out.append(record_path(s))
    return out


def stage_for_hub(board_dir: Path, built: Built, submissions: Path, stage: Path) -> list[Path]:
    """Copy what the Hub data set receives into ``stage``: the page, the JSON, its schema and the
    validated files of the submissions on the page — each a regular file copied without following
    a link; nothing else of the submissions tree (a link, a file no results file accounts for, a
    refused or removed submission) is copied. Returns the staged paths."""
    staged = []
    for name in ("leaderboard.json", "index.html"):
        copy_regular(board_dir / name, stage / name)
        staged.append(stage / name)
    shutil.copyfile(SCHEMA_PATH, stage / SCHEMA_PATH.name)
    staged.append(stage / SCHEMA_PATH.name)
    for f in published_files(built.published):
        dest = stage / "submissions" / f.relative_to(submissions)
        copy_regular(f, dest)
        staged.append(dest)
    return staged
