"""Rules on a submission folder's entries that decide what the leaderboard would have to run.

* **One results file per task** in a folder, and **each with its own samples log**: fifty seed
  variants sharing one log would each cost a full run with the maintainers' key (and crash the
  staging of the Hub upload); the gate refuses the folder's extra files.
* **No control character** in a folder or file name, nor in a results file's model name or
  identity name: a newline there would print a forged annotation (``::error …``) into the job's
  log. (Logs are sanitised too: ``debench.leaderboard.public_text``.)
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from debench.core.errors import UserError
from debench.leaderboard.public_text import has_control


def _mapping(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _peek(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}  # validation names what is wrong with it
    return data if isinstance(data, dict) else {}


def entry_problems(files: Iterable[Path]) -> dict[Path, UserError]:
    """The results files refused by the rules above, with the reason (the first of a task and of a
    samples log, in path order, is kept)."""
    out: dict[Path, UserError] = {}
    by_folder: dict[Path, list[Path]] = {}
    for f in sorted(files):
        by_folder.setdefault(f.parent, []).append(f)
    for folder, paths in by_folder.items():
        tasks: dict[str, Path] = {}
        logs: dict[str, Path] = {}
        for f in paths:
            if has_control(folder.name) or has_control(f.name):
                out[f] = UserError(
                    "a control character in the folder or file name: names are printed in the job's log and the page",
                    path=str(f),
                )
                continue
            data = _peek(f)
            model = _mapping(data.get("model"))
            ident = _mapping(model.get("identity"))
            names = [str(model.get("name", "")), str(ident.get("name", ""))]
            if any(has_control(n) for n in names):
                out[f] = UserError(
                    "a control character in the model name: names are printed in the job's log and the page",
                    path=str(f),
                    field="model.name",
                )
                continue
            task = _mapping(data.get("task")).get("name")
            if isinstance(task, str):
                if task in tasks:
                    out[f] = UserError(
                        f"a second results file for task {task} in this folder (the first is {tasks[task].name}): one "
                        "results file per task and folder",
                        path=str(f),
                    )
                    continue
                tasks[task] = f
            log = data.get("samples_file")
            if isinstance(log, str):
                if log in logs:
                    out[f] = UserError(
                        f"shares its samples log {log} with {logs[log].name}: each "
                        "results file has its own samples log",
                        path=str(f),
                        field="samples_file",
                    )
                    continue
                logs[log] = f
    return out
