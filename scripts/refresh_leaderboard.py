"""The leaderboard refresh job (what CI runs): validate every submission, run what awaits the job, \
rebuild, optionally push.

    # the refresh job on main: runs the queued allowlisted entries itself, within the budgets
    DEBENCH_DATA_DIR=../shared/datasets python scripts/refresh_leaderboard.py --reproduce
    python scripts/refresh_leaderboard.py --data-dir DATA --push org/debench-leaderboard   # needs HF_TOKEN

    # the gate of a submission pull request: the pull request (as GitHub would merge it) checked
    # out in pr/ as data, never run; the base it would merge into in base/, whose code judges:
    python base/scripts/refresh_leaderboard.py --submissions pr/leaderboard/submissions \
        --pr-base base/leaderboard/submissions --out "$RUNNER_TEMP/board"

Every results file under the submissions folder is validated (all metrics recomputed from its
samples on the real data, every prediction traced, every prompt the task's; see ``debench
validate``) by the debench of the checkout this script belongs to — never by code that came with
the submissions: the script imports debench from its own checkout, refuses to run otherwise, writes
no bytecode into it, and prints which debench judged.

A rank is the leaderboard's own number (``debench.leaderboard.verify``, ``reproduce``): with
``--reproduce`` every canonical judge a submission nominates — a model the maintainers' allowlist
(``--maintainers``) names exactly, with one of its methods, that the trusted endpoints
(``--trusted``) reach — is run by this job with the maintainers' settings on every document,
through the trusted endpoint, without the response cache, in queue order (``--queue``, merge
order, new entries in the order the checkout's history received them) and within the budgets it
counts itself (the ledger: ``--ledger``); the run is final and written under ``--reproduced`` (the
workflow commits it). Only those runs are ranked, one row per judge; every nomination's numbers are
compared with its judge's row. What was validated before is not validated again (``--validated``). What cannot be read,
built or run is listed with its reason and the others are built: the refresh exits 0. Every line
printed goes through ``public_text`` (no control character, no leading ``::``, no absolute path).

With ``--pr-base BASE_DIR`` the pull request's tree must differ from the base branch's by exactly
one new submission folder of regular files and nothing else (``debench.leaderboard.pull_request``);
then any refusal — and a llama.cpp identity of an allowlisted model above the maintainers' ``n_ctx``,
a duplicate of a merged judge that is not canonical, a second results file for a task, a shared
samples log, a name that does not read as what it is — fails it with exit code 2; nothing is run.
With ``--push REPO_ID`` the page, the JSON, its schema, the validated files of the entries on the
page and the job's runs of them are copied (never following a link) and uploaded to a Hugging Face
Hub data set in one commit.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from debench.leaderboard.maintainers import Maintainers
    from debench.leaderboard.publish import Built

sys.dont_write_bytecode = True  # the judging checkout stays byte for byte what was checked out
REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's debench, whatever else is installed or in the cwd


def _own_debench() -> str:
    """Where debench was imported from; exits 2 if that is not this script's checkout."""
    import debench

    where = Path(debench.__file__).resolve().parent
    if where != REPO / "debench":
        print(
            f"refresh: error: debench was imported from {where}, not from this checkout ({REPO / 'debench'})",
            file=sys.stderr,
        )
        sys.exit(2)
    return f"debench {debench.__version__} at {where}"


def push(
    board_dir: Path,
    built: Built,
    submissions: Path,
    repo_id: str,
    *,
    token: str | None,
    revision: str | None,
    message: str,
) -> str:
    """Upload the page, the JSON, its schema and the published submissions' files to a Hub data set."""
    from huggingface_hub import HfApi

    from debench.leaderboard.publish import stage_for_hub

    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        stage = Path(tmp)
        stage_for_hub(board_dir, built, submissions, stage)
        info = api.upload_folder(
            repo_id=repo_id,
            repo_type="dataset",
            folder_path=stage,
            revision=revision,
            commit_message=message,
            delete_patterns=["submissions/**"],  # submissions removed here disappear there too
        )
    return str(getattr(info, "commit_url", info))


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--submissions", type=Path, default=REPO / "leaderboard" / "submissions")
    ap.add_argument("--out", type=Path, default=REPO / "leaderboard")
    ap.add_argument(
        "--reported",
        type=Path,
        default=REPO / "leaderboard" / "reported.json",
        help="the papers' reported numbers (this checkout's)",
    )
    ap.add_argument(
        "--trusted",
        type=Path,
        default=REPO / "leaderboard" / "trusted_endpoints.yaml",
        help="the endpoints the job runs models through (this checkout's)",
    )
    ap.add_argument(
        "--maintainers",
        type=Path,
        default=REPO / "leaderboard" / "maintainers.yaml",
        help="budgets, allowlist, overall task set (this checkout's)",
    )
    ap.add_argument(
        "--reproduced",
        type=Path,
        default=REPO / "leaderboard" / "reproduced",
        help="the job's own runs (one folder per submission)",
    )
    ap.add_argument(
        "--queue", type=Path, default=REPO / "leaderboard" / "queue.json", help="the merge-order queue of entries"
    )
    ap.add_argument(
        "--ledger",
        type=Path,
        default=None,
        help="what the job's runs spent, refresh by refresh (read; written with --reproduce; default: OUT/ledger.json)",
    )
    ap.add_argument(
        "--validated",
        type=Path,
        default=None,
        help="what earlier refreshes validated, by content: an entry recorded there is not validated again (written "
        "with --reproduce; default: OUT/validated.json, with --pr-base the base's, beside BASE_DIR)",
    )
    ap.add_argument(
        "--data-dir",
        default=os.environ.get("DEBENCH_DATA_DIR"),
        help="real data (default: $DEBENCH_DATA_DIR; else the Hub)",
    )
    ap.add_argument(
        "--pr-base",
        type=Path,
        default=None,
        metavar="BASE_DIR",
        help="the base branch's leaderboard/submissions: refuse unless --submissions adds exactly one new folder to it",
    )
    ap.add_argument(
        "--reproduce",
        action="store_true",
        help="run the allowlisted entries awaiting the leaderboard's own run (queue order, within "
        "the budgets) and write their runs",
    )
    ap.add_argument(
        "--model-args",
        default=None,
        metavar="K=V,...",
        help="this machine's settings for the models it runs (e.g. tensor_parallel_size=4 for a vllm/ entry); one "
        "that changes an identity is refused",
    )
    ap.add_argument(
        "--skip-invalid", action="store_true", help="(kept for older workflows; the refresh always builds the others)"
    )
    ap.add_argument("--push", metavar="REPO_ID", default=None, help="upload to this Hugging Face Hub data set")
    ap.add_argument("--revision", default=None, help="branch of the Hub data set (default: main)")
    ap.add_argument("--token", default=os.environ.get("HF_TOKEN"), help="Hub token (default: $HF_TOKEN)")
    return ap


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    roots = [
        (args.submissions, "leaderboard/submissions"),
        (args.reproduced, "leaderboard/reproduced"),
        (args.out, "leaderboard"),
        (REPO, "."),
    ]

    def say(text: str, err: bool = False) -> None:
        from debench.leaderboard.public_text import public_text

        print(public_text(text, roots), file=sys.stderr if err else sys.stdout, flush=True)

    print(f"judged by {_own_debench()}")

    from debench.core.errors import UserError
    from debench.leaderboard.maintainers import load_maintainers, no_maintainers
    from debench.leaderboard.publish import write_leaderboard
    from debench.leaderboard.pull_request import compare_trees

    if args.pr_base is not None and args.reproduce:
        say("refresh: error: a pull request is never run: --pr-base and --reproduce exclude each other", err=True)
        return 2
    gate = args.pr_base is not None
    try:
        new_folder = None
        if gate:
            new_folder = compare_trees(args.submissions, args.pr_base)
            say(f"pull request: adds only leaderboard/submissions/{new_folder}/ (nothing else differs from the base)")
        maint = load_maintainers(args.maintainers) if args.maintainers.exists() else no_maintainers()
        if not args.maintainers.exists():
            say(f"refresh: no maintainers' file at {args.maintainers}: nothing is reproduced, nothing allowlisted")
        built = _build(args, maint)
    except (UserError, OSError) as exc:
        say(f"refresh: error: {exc}", err=True)
        return 2
    problems = _gate_problems(built, new_folder, maint) if gate else []
    if problems:
        for p in problems:
            say(f"refused: {p}", err=True)
        say(f"refresh: {len(problems)} problem(s) in the pull request; nothing rebuilt", err=True)
        return 2
    write_leaderboard(built.board, args.out, built.cards)
    _report(built, args.out, say)
    if args.push:
        if not args.token:
            say("refresh: error: --push needs a Hub token (HF_TOKEN or --token)", err=True)
            return 2
        url = push(
            args.out,
            built,
            args.submissions,
            args.push,
            token=args.token,
            revision=args.revision,
            message=f"Refresh leaderboard ({built.board.generated_at})",
        )
        say(f"pushed: {url}")
    return 0


def _build(args: argparse.Namespace, maint: Maintainers) -> Built:
    """The refresh's build of the submissions tree (with ``--reproduce``, running what awaits the job)."""
    from debench.leaderboard.publish import build
    from debench.leaderboard.queue import merge_order
    from debench.leaderboard.reproduce import ReproduceRun
    from debench.leaderboard.validation_record import Validations
    from debench.models.args import parse_model_args

    operator = parse_model_args(args.model_args, "--model-args") if args.model_args else None
    run = (
        ReproduceRun(
            out_dir=args.reproduced,
            maintainers=maint,
            ledger_path=args.ledger or args.out / "ledger.json",
            data_dir=args.data_dir,
            model_args=operator,
        )
        if args.reproduce
        else None
    )
    validated = args.validated or (args.pr_base.parent if args.pr_base is not None else args.out) / "validated.json"
    validations = Validations.read(validated)
    built = build(
        args.submissions,
        None,
        data_dir=args.data_dir,
        skip_invalid=True,
        reported_path=args.reported,
        trusted_path=args.trusted,
        maintainers_path=args.maintainers if args.maintainers.exists() else None,
        reproduce=run,
        reproduced_dir=args.reproduced,
        queue_path=args.queue,
        merged=sorted(p.name for p in args.pr_base.iterdir() if p.is_dir()) if args.pr_base is not None else (),
        merge_positions=merge_order(args.submissions.resolve().parent.parent) if args.pr_base is None else None,
        validations=validations,
    )
    if args.reproduce:
        validations.save(validated)
    return built


def _gate_problems(built: Built, new_folder: str | None, maint: Maintainers) -> list[str]:
    """What the gate refuses: whatever the refresh would not build, and an identity of the new
    folder above a ceiling of its canonical judge (``canonical.gate_problem``)."""
    from debench.leaderboard.canonical import canonical_judges, gate_problem

    judges = canonical_judges(maint)
    problems = [str(e) for e in built.errors]
    problems += [str(p) for s in built.published if s.submission == new_folder and (p := gate_problem(s, judges))]
    return problems


def _report(built: Built, out: Path, say: Callable[..., None]) -> None:
    """One line per entry (its standing, and why), one per file not built, and the totals."""
    board = built.board
    for t in board.tasks:
        for e in t.entries:
            say(
                f"{e.standing}: {e.results_file}: {t.name} | {e.model}"
                + (f" | {e.standing_reason}" if e.standing != "baseline" else "")
            )
    for err in built.errors:
        say(f"not built: {err}", err=True)
    n = sum(len(t.entries) for t in board.tasks)
    n_verified = sum(len(t.verified) for t in board.tasks)
    say(
        f"leaderboard: {n} entries ({n_verified} reproduced and ranked with the leaderboard's own numbers, "
        f"{len(board.waiting)} waiting, {len(built.errors)} not built) on {len(board.tasks)} task(s) -> "
        f"{out / 'leaderboard.json'}, {out / 'index.html'}"
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
