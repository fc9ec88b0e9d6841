"""Text the leaderboard prints or publishes: no control character, no absolute path, no workflow command.

A message can carry what a submitter wrote (a model name, a file name) and where the runner keeps
its files (the absolute path of the checkout, its Python's site-packages). ``public_text`` makes
it safe for the job's log and the page: each root given (the submissions folder, the checkout) is
replaced by its relative name and any other absolute path by its last part, control characters
are written as ``\\xNN`` escapes (a newline cannot start a new log line, so ``::error …`` cannot
become a GitHub workflow command), and a text never starts with ``::``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_PART = r"[^\s/'\"`:;,()\[\]{}<>]"
_ABSOLUTE = re.compile(rf"(?<![\w.:/~-])/(?:{_PART}+/)+({_PART}*)")
"""An absolute path of two parts or more (``/opt/…/site-packages/x.py``), not a URL's path nor a
relative one: whatever is left of the runner's paths once the roots are replaced."""


def has_control(text: str) -> bool:
    return bool(_CONTROL.search(text))


def public_text(text: str, roots: Iterable[tuple[Path, str]] = ()) -> str:
    """``text`` with each ``(root, label)``'s absolute path replaced by ``label``, any other
    absolute path by ``…/`` and its last part (the runner's Python, its site-packages), control
    characters escaped, and no leading ``::``."""
    for root, label in roots:
        for form in {str(root), str(Path(root).resolve())}:
            if form and form != ".":
                text = text.replace(form.rstrip("/") + "/", label.rstrip("/") + "/" if label else "").replace(
                    form, label
                )
    text = _ABSOLUTE.sub(lambda m: "…/" + m.group(1), text)
    text = _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)
    return text if not text.lstrip().startswith("::") else "(" + text + ")"


def excerpt(text: str, limit: int = 160) -> str:
    """``text`` on one line (whitespace runs as one space), cut with an ellipsis to ``limit`` characters."""
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
