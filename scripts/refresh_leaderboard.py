"""The leaderboard refresh job (what CI runs): validate every submission, rebuild, optionally push.

    DEBENCH_DATA_DIR=../shared/datasets python scripts/refresh_leaderboard.py
    python scripts/refresh_leaderboard.py --data-dir DATA --push org/debench-leaderboard   # needs HF_TOKEN

Every results file under ``leaderboard/submissions/`` is validated (all metrics recomputed from its
samples on the real data). Any rejection fails the job with exit code 2 and one line per rejected
file, unless ``--skip-invalid``. Then ``leaderboard/leaderboard.json`` and ``leaderboard/index.html``
are rebuilt (deterministically: an unchanged set of submissions gives identical files). With
``--push REPO_ID`` the page, the JSON, its schema and the submissions are uploaded to a Hugging
Face Hub data set in one commit (``huggingface_hub.HfApi.upload_folder``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def push(out_dir: Path, submissions: Path, repo_id: str, *, token: str | None, revision: str | None, message: str) -> str:
    """Upload leaderboard.json, index.html, the schema and the submissions to a Hub data set."""
    from huggingface_hub import HfApi

    from debench.leaderboard.build import SCHEMA_PATH

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
    ap.add_argument("--data-dir", default=os.environ.get("DEBENCH_DATA_DIR"), help="real data (default: $DEBENCH_DATA_DIR; else the Hub)")
    ap.add_argument("--skip-invalid", action="store_true", help="leave rejected submissions out instead of failing")
    ap.add_argument("--push", metavar="REPO_ID", default=None, help="upload to this Hugging Face Hub data set")
    ap.add_argument("--revision", default=None, help="branch of the Hub data set (default: main)")
    ap.add_argument("--token", default=os.environ.get("HF_TOKEN"), help="Hub token (default: $HF_TOKEN)")
    args = ap.parse_args(argv)

    from debench.errors import UserError
    from debench.leaderboard.build import build_leaderboard, validate_all, write_leaderboard

    if not args.submissions.is_dir():
        print(f"refresh: error: {args.submissions}: submissions directory not found", file=sys.stderr)
        return 2
    files = sorted(args.submissions.rglob("results_*.json"))
    try:
        ok, errors = validate_all(files, data_dir=args.data_dir) if files else ([], [])
    except UserError as exc:
        print(f"refresh: error: {exc}", file=sys.stderr)
        return 2
    for sub in ok:
        print(f"ok: {sub.results_path.relative_to(args.submissions)}: {sub.results.task.name} | {sub.results.model.name}")
    for err in errors:
        print(f"rejected: {err}", file=sys.stderr)
    if errors and not args.skip_invalid:
        print(f"refresh: {len(errors)} submission(s) rejected; nothing rebuilt", file=sys.stderr)
        return 2
    board = build_leaderboard(ok, args.submissions)
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
