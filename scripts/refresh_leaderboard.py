"""The leaderboard refresh job (what CI runs): validate every submission, rebuild, optionally push.

    DEBENCH_DATA_DIR=../shared/datasets python scripts/refresh_leaderboard.py
    python scripts/refresh_leaderboard.py --data-dir DATA --push org/debench-leaderboard   # needs HF_TOKEN

    # a submission pull request, checked out (as data, never run) in pr/:
    git -C pr diff --name-only --no-renames BASE...HEAD > changed.txt
    python scripts/refresh_leaderboard.py --submissions pr/leaderboard/submissions \
        --changed-files changed.txt --out "$RUNNER_TEMP/board"

Every results file under the submissions folder is validated (all metrics recomputed from its
samples on the real data, every prediction traced; see ``debench validate``) by the debench of
the checkout this script belongs to — never by code that came with the submissions: the script
imports debench from its own checkout and refuses to run otherwise, and it prints which debench
judged. Any refusal fails the job with exit code 2 and one line per refused file, unless
``--skip-invalid``. Then ``leaderboard.json`` and ``index.html`` are rebuilt (deterministically:
an unchanged set of submissions gives identical files). With ``--changed-files``, the pull request
must change only one ``leaderboard/submissions/<model>/`` folder (see
``debench.leaderboard.pull_request``). With ``--push REPO_ID`` the page, the JSON, its schema and
the submissions are uploaded to a Hugging Face Hub data set in one commit.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's debench, whatever else is installed or in the cwd


def _own_debench() -> str:
    """Where debench was imported from; exits 2 if that is not this script's checkout."""
    import debench

    where = Path(debench.__file__).resolve().parent
    if where != REPO / "debench":
        print(f"refresh: error: debench was imported from {where}, not from this checkout ({REPO / 'debench'})", file=sys.stderr)
        sys.exit(2)
    return f"debench {debench.__version__} at {where}"


def push(out_dir: Path, submissions: Path, repo_id: str, *, token: str | None, revision: str | None, message: str) -> str:
    """Upload leaderboard.json, index.html, the schema and the submissions to a Hub data set."""
    from huggingface_hub import HfApi

    from debench.leaderboard.board import SCHEMA_PATH

    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        stage = Path(tmp)
        shutil.copy(out_dir / "leaderboard.json", stage / "leaderboard.json")
        shutil.copy(out_dir / "index.html", stage / "index.html")
        shutil.copy(SCHEMA_PATH, stage / SCHEMA_PATH.name)
        shutil.copytree(submissions, stage / "submissions", ignore=shutil.ignore_patterns("*.tmp", ".*"))
        info = api.upload_folder(
            repo_id=repo_id,
            repo_type="dataset",
            folder_path=stage,
            revision=revision,
            commit_message=message,
            delete_patterns=["submissions/**"],  # submissions removed here disappear there too
        )
    return str(getattr(info, "commit_url", info))


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--submissions", type=Path, default=REPO / "leaderboard" / "submissions")
    ap.add_argument("--out", type=Path, default=REPO / "leaderboard")
    ap.add_argument("--reported", type=Path, default=REPO / "leaderboard" / "reported.json", help="the papers' reported numbers (this checkout's)")
    ap.add_argument("--data-dir", default=os.environ.get("DEBENCH_DATA_DIR"), help="real data (default: $DEBENCH_DATA_DIR; else the Hub)")
    ap.add_argument("--changed-files", type=Path, default=None, help="a pull request's changed paths, one per line: refuse it unless they lie in one submission folder")
    ap.add_argument("--skip-invalid", action="store_true", help="leave refused submissions out instead of failing")
    ap.add_argument("--push", metavar="REPO_ID", default=None, help="upload to this Hugging Face Hub data set")
    ap.add_argument("--revision", default=None, help="branch of the Hub data set (default: main)")
    ap.add_argument("--token", default=os.environ.get("HF_TOKEN"), help="Hub token (default: $HF_TOKEN)")
    args = ap.parse_args(argv)
    print(f"judged by {_own_debench()}")

    from debench.errors import UserError
    from debench.leaderboard.build import build_leaderboard
    from debench.leaderboard.collect import validate_all
    from debench.leaderboard.publish import write_leaderboard
    from debench.leaderboard.pull_request import submission_folder
    from debench.leaderboard.reported import load_reported

    try:
        if args.changed_files is not None:
            folder = submission_folder(args.changed_files.read_text(encoding="utf-8").splitlines())
            print(f"pull request: changes only leaderboard/submissions/{folder}/")
        if not args.submissions.is_dir():
            raise UserError("submissions directory not found", path=str(args.submissions))
        reported = load_reported(args.reported)
        ok, errors = validate_all(sorted(args.submissions.rglob("results_*.json")), data_dir=args.data_dir)
    except (UserError, OSError) as exc:
        print(f"refresh: error: {exc}", file=sys.stderr)
        return 2
    for sub in ok:
        print(f"ok: {sub.results_path.relative_to(args.submissions)}: {sub.results.task.name} | {sub.results.model.name}")
    for err in errors:
        print(f"refused: {err}", file=sys.stderr)
    if errors and not args.skip_invalid:
        print(f"refresh: {len(errors)} submission(s) refused; nothing rebuilt", file=sys.stderr)
        return 2
    board = build_leaderboard(ok, args.submissions, reported=reported)
    json_path, html_path = write_leaderboard(board, args.out)
    print(f"leaderboard: {sum(len(t.entries) for t in board.tasks)} entries on {len(board.tasks)} task(s) -> {json_path}, {html_path}")
    if args.push:
        if not args.token:
            print("refresh: error: --push needs a Hub token (HF_TOKEN or --token)", file=sys.stderr)
            return 2
        url = push(args.out, args.submissions, args.push, token=args.token, revision=args.revision, message=f"Refresh leaderboard ({board.generated_at})")
        print(f"pushed: {url}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
