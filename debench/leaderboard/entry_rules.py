"""Rules on a submission folder's entries that decide what the leaderboard would have to run.

* **One results file per task** in a folder, and **each with its own samples log**: fifty seed
  variants sharing one log would each cost a full run with the maintainers' key (and crash the
  staging of the Hub upload); the gate refuses the folder's extra files.
* **Names that read as what they are** (``name_problem``), for a folder or file name and a results
  file's model name, identity name and members' names: no control character (a newline there would
  print a forged annotation, ``::error …``, into the job's log; logs are sanitised too:
  ``debench.leaderboard.public_text``), no format or bidirectional control character (U+200B,
  U+202E: invisible, or reordering what follows), the name's NFKC form (a full-width ``ｇｐｔ`` is
  ``gpt``), and the letters of one script (a Cyrillic ``о`` inside ``gpt-4о`` renders as the real
  model id).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from pathlib import Path

from debench.core.errors import UserError
from debench.leaderboard.files import MAX_RESULTS_BYTES, parse_json, read_small
from debench.leaderboard.public_text import has_control

_ONE_SCRIPT = {"HIRAGANA": "CJK", "KATAKANA": "CJK", "HANGUL": "CJK"}
"""Scripts written together as one (Japanese mixes kanji and kana)."""


def _script(ch: str) -> str:
    word = unicodedata.name(ch, "UNKNOWN").split(" ", 1)[0]
    return _ONE_SCRIPT.get(word, word)


def name_problem(text: str) -> str | None:
    """What makes ``text`` read as something it is not, in words; None when nothing does."""
    if has_control(text):
        return "a control character"
    fmt = next((ch for ch in text if unicodedata.category(ch) == "Cf"), None)
    if fmt is not None:
        return f"a format or bidirectional control character (U+{ord(fmt):04X})"
    if unicodedata.normalize("NFKC", text) != text:
        return f"characters outside their NFKC form (it reads {unicodedata.normalize('NFKC', text)!r})"
    scripts = sorted({_script(ch) for ch in text if ch.isalpha()})
    if len(scripts) > 1:
        return f"letters of several scripts ({', '.join(s.lower() for s in scripts)})"
    return None


def _name_refusal(f: Path, data: dict[str, object]) -> UserError | None:
    """The refusal of a folder, file or model name that does not read as what it is (``name_problem``)."""
    for where, text in (("folder", f.parent.name), ("file", f.name)):
        why = name_problem(text)
        if why:
            return UserError(f"{why} in the {where} name: names are printed in the job's log and the page", path=str(f))
    model = _mapping(data.get("model"))
    ident = _mapping(model.get("identity"))
    members = ident.get("members")
    names: list[tuple[str, object]] = [("model.name", model.get("name")), ("model.identity.name", ident.get("name"))]
    if isinstance(members, list):
        names += [(f"model.identity.members.{i}.name", _mapping(m).get("name")) for i, m in enumerate(members)]
    for field, value in names:
        why = name_problem(str(value or ""))
        if why:
            return UserError(
                f"{why} in the model name: names are printed in the job's log and the page", path=str(f), field=field
            )
    return None


def _mapping(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _peek(path: Path) -> dict[str, object]:
    try:
        data = parse_json(read_small(path, MAX_RESULTS_BYTES, "results file"), path)
    except UserError:
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
            data = _peek(f) if name_problem(folder.name) is None and name_problem(f.name) is None else {}
            refused = _name_refusal(f, data)
            if refused is not None:
                out[f] = refused
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
