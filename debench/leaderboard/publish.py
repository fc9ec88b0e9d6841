"""``debench leaderboard build`` and the refresh job end to end: validate the submissions tree,
decide what the leaderboard reproduced (and, for the refresh job, run what awaits it), build, write
the JSON and the page; and stage what is pushed to the Hub.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from debench.core.atomic import write_atomic
from debench.core.errors import UserError
from debench.leaderboard.board import SCHEMA_PATH, Leaderboard, validate_leaderboard_dict
from debench.leaderboard.build import build_leaderboard
from debench.leaderboard.entry_rules import entry_problems
from debench.leaderboard.files import copy_regular, results_files, submission_folders
from debench.leaderboard.job_cards import JobCard, card_error, job_card, write_job_cards
from debench.leaderboard.maintainers import Maintainers, load_maintainers, no_maintainers
from debench.leaderboard.page import render_page
from debench.leaderboard.public_text import public_text
from debench.leaderboard.queue import Queue, extend, read_queue, write_queue
from debench.leaderboard.reported import load_reported
from debench.leaderboard.reproduce import ReproduceRun
from debench.leaderboard.trusted import TrustedEndpoints, load_trusted
from debench.leaderboard.validate import ValidatedSubmission, validate_all
from debench.leaderboard.validation_record import Validations
from debench.leaderboard.verify import Reproduction, Standings, entry_id, verify_all


def write_leaderboard(board: Leaderboard, out_dir: Path, cards: Sequence[JobCard] = ()) -> tuple[Path, Path]:
    """Write ``leaderboard.json``, ``index.html`` and the canonical judges' ``cards`` (the page
    links them) atomically; returns the paths of the first two."""
    out_dir.mkdir(parents=True, exist_ok=True)
    data = board.model_dump(mode="json")
    validate_leaderboard_dict(data)
    write_job_cards(cards, out_dir)
    json_path, html_path = out_dir / "leaderboard.json", out_dir / "index.html"
    write_atomic(json_path, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    write_atomic(html_path, render_page(board))
    return json_path, html_path


@dataclass
class Built:
    board: Leaderboard
    published: list[ValidatedSubmission]
    """The submissions on the page (their files are what the Hub receives)."""
    errors: list[UserError] = field(default_factory=list)
    """Refused submissions (and whatever else is wrong in the tree)."""
    reproduced_dir: Path | None = None
    reproduced: list[ValidatedSubmission] = field(default_factory=list)
    """The leaderboard's own runs of the verified entries (published beside them)."""
    cards: list[JobCard] = field(default_factory=list)
    """The canonical judges' cards (written beside the page, which links them)."""


def build(
    results_dir: Path,
    out_dir: Path | None,
    *,
    data_dir: str | Path | None = None,
    skip_invalid: bool = False,
    reported_path: Path | None = None,
    trusted_path: Path | None,
    maintainers_path: Path | None = None,
    reproduce: ReproduceRun | None = None,
    reproduced_dir: Path | None = None,
    queue_path: Path | None = None,
    merged: Sequence[str] = (),
    merge_positions: Mapping[str, int] | None = None,
    validations: Validations | None = None,
) -> Built:
    """Validate every submission under ``results_dir``, decide each one's standing
    (``debench.leaderboard.verify``; with ``reproduce``, run the leaderboard's own run of the
    allowlisted entries that await it, in queue order, within the budgets), and write the
    leaderboard to ``out_dir`` (``None``: build it, write nothing).

    A refused submission stops the build (``UserError``) unless ``skip_invalid``, in which case it
    is left out, listed on the page (``not_built``) and returned among the errors.
    ``maintainers_path``: budgets, allowlist, overall task set (None: nothing is reproduced);
    ``reproduced_dir``: the job's runs (default: ``results_dir``'s sibling ``reproduced``);
    ``queue_path``: the merge-order queue (read; written back with new entries when reproducing);
    ``merged``: folders already merged (the gate: the base's), kept before any other of one judge;
    ``merge_positions``: folder -> the order the default branch received it (``queue.merge_order``),
    the order of the entries the queue does not hold yet; ``validations``: what earlier builds
    validated (``validation_record``: each content validated once; None: everything in full).
    """
    folders, errors = submission_folders(results_dir)
    reported = load_reported(reported_path) if reported_path is not None else None
    trusted, maint = _maintainers_files(trusted_path, maintainers_path)
    reproduced_dir = reproduced_dir or results_dir.parent / "reproduced"
    queue = read_queue(queue_path) if queue_path is not None else Queue()
    ok, refused = _validated(folders, data_dir, [*queue.folders(), *merged], validations)
    errors += refused
    if errors and not skip_invalid:
        raise errors[0]
    queued = _queued(ok, queue, queue_path if reproduce is not None else None, merge_positions)
    got = verify_all(
        queued, trusted, maint, run=reproduce, out_dir=reproduced_dir, data_dir=data_dir, validator=validations
    )
    errors += got.refused
    if got.refused and not skip_invalid:
        raise got.refused[0]
    cards = _cards(got, data_dir, errors)
    roots = [(results_dir, "submissions"), (reproduced_dir, "reproduced")]
    kept = [(s, st, public_text(reason, roots)) for s, st, reason in got.kept]
    board = build_leaderboard(
        kept,
        reported=reported,
        rows=got.rows,
        nominations=got.nominations,
        waiting=[replace(w, reason=public_text(w.reason, roots)) for w in got.waiting],
        overall_tasks=maint.overall_tasks if maintainers_path is not None else None,
        not_built=[public_text(str(e), roots) for e in errors],
        cards={c.judge: c.link for c in cards},
    )
    if out_dir is not None:
        write_leaderboard(board, out_dir, cards)
    runs = [r.run for r in got.rows.values()]
    submitted = [s for s, _, _ in kept if all(s is not r for r in runs)]
    return Built(board, submitted, errors, reproduced_dir, runs, cards)


def _cards(got: Standings, data_dir: str | Path | None, errors: list[UserError]) -> list[JobCard]:
    """The card of each canonical judge with a row, from the job's runs, the baselines on the page and
    the job's memorization probes; a card that cannot be built is listed among ``errors``."""
    by_judge: dict[str, list[Reproduction]] = {}
    for rep in got.rows.values():
        by_judge.setdefault(rep.judge.id, []).append(rep)
    baselines = [s for s, standing, _ in got.kept if standing == "baseline"]
    cards = []
    for judge_id, reps in by_judge.items():
        judge = reps[0].judge
        probes = {r.run.task.name: got.memorization[(judge_id, r.run.task.name)] for r in reps}
        folder = f"cards/{judge.folder}/{judge.method}"
        try:
            cards.append(job_card(judge_id, folder, [r.run for r in reps], baselines, probes, data_dir))
        except Exception as exc:  # noqa: BLE001 - a card that cannot be built never stops the build
            errors.append(card_error(judge_id, exc))
    return cards


def _maintainers_files(
    trusted_path: Path | None, maintainers_path: Path | None
) -> tuple[TrustedEndpoints, Maintainers]:
    """The trusted endpoints and the maintainers' file; without them nothing is trusted or run."""
    trusted = load_trusted(trusted_path) if trusted_path is not None else TrustedEndpoints()
    maint = load_maintainers(maintainers_path) if maintainers_path is not None else no_maintainers()
    return trusted, maint


def _validated(
    folders: list[Path], data_dir: str | Path | None, merged_first: Sequence[str], validations: Validations | None
) -> tuple[list[ValidatedSubmission], list[UserError]]:
    """The submissions of the folders that validate, and the refusals: the entry rules' first, then
    the folders' problems and the validations' refusals."""
    files = [f for folder in folders for f in results_files(folder)]
    rules = entry_problems(files)
    ok, refused = validate_all(
        [f for f in files if f not in rules],
        data_dir=data_dir,
        folders=True,
        merged_first=merged_first,
        one_per_judge=False,
        validator=validations,
    )
    return ok, [*rules.values(), *refused]


def _queued(
    subs: list[ValidatedSubmission], queue: Queue, write_to: Path | None, merged: Mapping[str, int] | None
) -> list[ValidatedSubmission]:
    """The entries in queue order, the ones it does not hold yet appended in merge order
    (``queue.extend``); the extended queue is written to ``write_to`` (the refresh job that reproduces)."""
    queue = extend(queue, [entry_id(s) for s in subs], merged)
    if write_to is not None:
        write_queue(queue, write_to)
    order = {e: i for i, e in enumerate(queue.entries)}
    return sorted(subs, key=lambda s: order.get(entry_id(s), len(order)))


def published_files(subs: list[ValidatedSubmission]) -> list[Path]:
    """The validated files of the submissions on the page: their results files and samples logs."""
    return [f for s in subs for f in (s.results_path, s.samples_path)]


def stage_for_hub(board_dir: Path, built: Built, submissions: Path, stage: Path) -> list[Path]:
    """Copy what the Hub data set receives into ``stage``: the page, the JSON, its schema, the
    canonical judges' cards, the job's runs and the validated files of the submissions on the page
    — each a regular file copied without following a link; nothing else of the submissions tree (a
    link, a file no results file accounts for, a refused submission) is copied. Returns the staged
    paths."""
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
    for c in built.cards:
        for name in ("card.json", "card.md", "card.html"):
            copy_regular(board_dir / c.folder / name, stage / c.folder / name)
            staged.append(stage / c.folder / name)
    if built.reproduced_dir is not None:
        for r in built.reproduced:
            for f in (r.results_path, r.samples_path):
                dest = stage / "reproduced" / f.relative_to(built.reproduced_dir)
                copy_regular(f, dest)
                staged.append(dest)
    return staged
