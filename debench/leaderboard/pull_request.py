"""What a submission pull request may change: one ``leaderboard/submissions/<model>/`` folder.

The leaderboard workflow lists the files a pull request changes (added, modified, deleted or
renamed, from ``git diff --name-only --no-renames BASE...HEAD``) and refuses it unless every one
is a ``results_*.json`` or ``samples_*.jsonl`` file directly inside the same
``leaderboard/submissions/<model>/`` folder. Code, task files, workflows, other submissions, the
built leaderboard: none of it can come from a submission, so the base branch's code judges it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import PurePosixPath

from debench.errors import UserError

SUBMISSIONS_DIR = ("leaderboard", "submissions")
_FOLDER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_FILE = re.compile(r"^(?:results_[A-Za-z0-9._-]+\.json|samples_[A-Za-z0-9._-]+\.jsonl)$")


def submission_folder(changed: Iterable[str]) -> str:
    """The name of the one submission folder the changed paths lie in; ``UserError`` otherwise."""
    folders: set[str] = set()
    paths = [p.strip() for p in changed if p.strip()]
    if not paths:
        raise UserError("the pull request changes no file")
    for p in paths:
        parts = PurePosixPath(p).parts
        if len(parts) != 4 or parts[:2] != SUBMISSIONS_DIR or not _FOLDER.match(parts[2]):
            raise UserError("a submission pull request may change only files in one leaderboard/submissions/<model>/ folder", path=p)
        if not _FILE.match(parts[3]):
            raise UserError("a submission holds only results_*.json files and their samples_*.jsonl logs", path=p)
        folders.add(parts[2])
    if len(folders) > 1:
        raise UserError(f"the pull request changes {len(folders)} submission folders ({', '.join(sorted(folders))}); submit one model per pull request")
    return folders.pop()
