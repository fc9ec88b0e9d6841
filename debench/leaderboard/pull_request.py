"""What a submission pull request may change: it may add one new submission folder, nothing else.

The gate compares two trees, never a list of names: the pull request's ``leaderboard/submissions``
(``PR_DIR``) with the base branch's (``BASE_DIR``), as checked out side by side by the workflow.
``compare_trees`` refuses the pull request (``UserError``, one line) unless

* ``PR_DIR`` holds exactly one folder ``BASE_DIR`` does not (a name of letters, digits, ``.``,
  ``_`` and ``-``), and every other folder and file of either tree is in the other, byte for byte
  and with the same mode (executable or not: a change of mode is a change): nothing rewritten,
  deleted or added elsewhere;
* the new folder holds regular files only (no symbolic link, no sub-folder, no other file type,
  nothing executable):
  ``results_*.json`` files and the ``samples_*.jsonl`` logs they name — each file referenced by a
  results file, within its size cap (``debench.leaderboard.files``); no plot, no lock file, no
  spot-check record of the previous version;
* when both trees sit in checkouts (``<root>/leaderboard/submissions``), nothing outside
  ``leaderboard/submissions`` differs between the two checkouts either (``.git`` aside): code, task
  files, the workflow, the allowlist, the built page — none of it can come with a submission.

Whether the new folder's results files are *valid* is then ``debench validate``'s (the refresh
script validates the whole pull-request tree with the base branch's code). Changes to existing
submissions go through the maintainers.
"""

from __future__ import annotations

import filecmp
import os
import re
import stat
from pathlib import Path

from debench.core.errors import UserError
from debench.leaderboard.files import MAX_RESULTS_BYTES, SAMPLES_PREFIX, referenced, regular_file, results_files

SUBMISSIONS_DIR = ("leaderboard", "submissions")
_FOLDER = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_IGNORED_AT_ROOT = (".git",)


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "symbolic link"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISREG(mode):
        return "executable file" if mode & 0o111 else "file"  # git records a file's mode: 644 or 755
    return "special file"


def _a(kind: str) -> str:
    return ("an " if kind[0] in "aeiou" else "a ") + kind


def _entries(root: Path, skip: tuple[str, ...] = ()) -> dict[str, tuple[str, Path]]:
    """Relative POSIX path -> (kind, absolute path) of everything under ``root``, links not followed."""
    out: dict[str, tuple[str, Path]] = {}
    stack = [root]
    while stack:
        folder = stack.pop()
        for entry in os.scandir(folder):
            path = Path(entry.path)
            rel = path.relative_to(root).as_posix()
            if rel in skip:
                continue
            kind = _kind(entry.stat(follow_symlinks=False).st_mode)
            out[rel] = (kind, path)
            if kind == "folder":
                stack.append(path)
    return out


def _same(a: tuple[str, Path], b: tuple[str, Path]) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "symbolic link":
        return os.readlink(a[1]) == os.readlink(b[1])
    if a[0] in ("file", "executable file"):
        return filecmp.cmp(a[1], b[1], shallow=False)
    return True


def _diff(pr: dict[str, tuple[str, Path]], base: dict[str, tuple[str, Path]]) -> list[tuple[str, str]]:
    """(path, what happened) for every difference, in path order."""
    out = []
    for rel in sorted(set(pr) | set(base)):
        if rel not in base:
            out.append((rel, f"adds this {pr[rel][0]}"))
        elif rel not in pr:
            out.append((rel, f"deletes this {base[rel][0]}"))
        elif not _same(pr[rel], base[rel]):
            out.append(
                (
                    rel,
                    "changes this "
                    + (base[rel][0] if pr[rel][0] == base[rel][0] else f"{base[rel][0]} into {_a(pr[rel][0])}"),
                )
            )
    return out


def _checkout_root(submissions: Path) -> Path | None:
    """The checkout a ``…/leaderboard/submissions`` folder belongs to, or None."""
    resolved = submissions.absolute()
    return resolved.parent.parent if resolved.parts[-2:] == SUBMISSIONS_DIR else None


def _check_new_folder(folder: Path, name: str) -> None:
    """A new folder's name, and its entries: regular files, each a results file or a samples log it names."""
    if not _FOLDER.match(name):
        raise UserError(
            f"'{name}' is not a submission folder name (letters, digits, '.', '_' and '-')", path=str(folder)
        )
    known = referenced(folder)
    results = {p.name for p in results_files(folder)}
    if not results:
        raise UserError("the new submission folder holds no results_*.json file", path=str(folder))
    for entry in sorted(os.scandir(folder), key=lambda e: e.name):
        _check_new_entry(entry, results, known)


def _check_new_entry(entry: os.DirEntry[str], results: set[str], known: dict[str, tuple[str, int]]) -> None:
    path = Path(entry.path)
    kind = _kind(entry.stat(follow_symlinks=False).st_mode)
    what, cap = known.get(entry.name, ("", 0))
    if kind != "file":
        nothing_executable = " (mode 644: nothing executable)" if kind == "executable file" else ""
        raise UserError(f"is {_a(kind)}: a submission holds regular files only{nothing_executable}", path=str(path))
    if entry.name in results:
        regular_file(path, MAX_RESULTS_BYTES, "results file")
    elif what == "samples file" and entry.name.startswith(SAMPLES_PREFIX) and entry.name.endswith(".jsonl"):
        regular_file(path, cap, "samples file")
    elif what:
        raise UserError(
            f"a submission holds its results_*.json files and the samples logs they name, not a {what}", path=str(path)
        )
    else:
        raise UserError(
            "no results file of the submission refers to this file: a submission holds results_*.json files and the "
            "samples logs they name, nothing else",
            path=str(path),
        )


def compare_trees(pr_dir: Path, base_dir: Path) -> str:
    """The name of the one new submission folder of ``pr_dir``; ``UserError`` otherwise (see the
    module docstring)."""
    for d, what in ((pr_dir, "pull request's"), (base_dir, "base branch's")):
        if not d.is_dir() or d.is_symlink():
            raise UserError(f"the {what} submissions folder was not found", path=str(d))
    _refuse_changes_outside(pr_dir, base_dir)
    new = _one_new_folder(pr_dir, base_dir)
    _check_new_folder(pr_dir / new, new)
    return new


def _refuse_changes_outside(pr_dir: Path, base_dir: Path) -> None:
    """When both submissions folders sit in checkouts, nothing outside them may differ (``.git`` aside)."""
    pr_root, base_root = _checkout_root(pr_dir), _checkout_root(base_dir)
    if pr_root is None or base_root is None:
        return
    sub = "/".join(SUBMISSIONS_DIR)
    outside = [
        (rel, what)
        for rel, what in _diff(_entries(pr_root, _IGNORED_AT_ROOT), _entries(base_root, _IGNORED_AT_ROOT))
        if rel != sub and not rel.startswith(sub + "/") and rel not in SUBMISSIONS_DIR[:1]
    ]
    if outside:
        rel, what = outside[0]
        raise UserError(
            f"the pull request {what}, outside leaderboard/submissions/: a submission pull request adds one "
            "submission folder, nothing else",
            path=rel,
        )


def _one_new_folder(pr_dir: Path, base_dir: Path) -> str:
    """The one folder ``pr_dir`` adds; every other difference between the trees is refused."""
    changes = _diff(_entries(pr_dir), _entries(base_dir))
    new = [rel for rel, what in changes if "/" not in rel and what == "adds this folder"]
    inside_new = {rel for rel, _ in changes if rel.split("/", 1)[0] in new}
    other = [(rel, what) for rel, what in changes if rel not in inside_new]
    if other:
        rel, what = other[0]
        where = "the submission it belongs to" if "/" in rel else "the submissions folder"
        raise UserError(
            f"the pull request {what} ({where} is the base branch's): a submission pull request adds one new folder; "
            "changes to existing submissions go through the maintainers",
            path=f"leaderboard/submissions/{rel}",
        )
    if not new:
        raise UserError("the pull request adds no submission folder under leaderboard/submissions/")
    if len(new) > 1:
        raise UserError(
            f"the pull request adds {len(new)} submission folders ({', '.join(new)}); submit one model per pull request"
        )
    return new[0]
