"""Paths: where debench keeps what it downloads and caches, and how a recorded file names a path.

* ``cache_root``: ``$DEBENCH_CACHE_DIR``, else ``$XDG_CACHE_HOME/debench``, else
  ``~/.cache/debench`` (responses, fetched data sets). An empty or relative ``XDG_CACHE_HOME`` is
  ignored, as the XDG Base Directory specification says (``XDG_CACHE_HOME=""`` made the cache the
  folder ``debench`` of wherever a command ran).
* ``portable_path`` / ``portable_argv``: what results files record of a path on the user's machine
  (the command line, the data location, a task file of their own). A relative path is kept as
  given; an absolute one becomes relative to the working directory when it lies inside it, else
  ``~/…`` when it lies inside the home directory, else relative to the working directory
  (``../../tmp/run``). So no file debench writes names a folder of the machine it ran on, and
  ``debench validate`` refuses a submission that does (``machine_path``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath, PureWindowsPath


def cache_root() -> Path:
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = xdg if os.path.isabs(xdg) else os.path.expanduser("~/.cache")
    return Path(os.environ.get("DEBENCH_CACHE_DIR") or os.path.join(base, "debench"))


def machine_path(text: str) -> bool:
    """An absolute path of some machine: ``/…``, ``C:\\…``, ``\\\\server\\…`` (not a URL, not ``~/…``)."""
    if not text or "://" in text:
        return False
    return PurePosixPath(text).is_absolute() or bool(PureWindowsPath(text).drive)


def outside_the_folder(ref: str) -> bool:
    """A path (as a user typed it in a model name) that names a place on this machine outside the
    current folder: absolute, through ``~`` or through ``..``. Such a model is named by its file
    name and content digest instead (``gguf/``, ``vllm/``)."""
    return (
        PurePosixPath(ref).is_absolute()
        or bool(PureWindowsPath(ref).drive)
        or ref.startswith("~")
        or ".." in PurePosixPath(ref).parts
    )


def _inside(path: str, folder: str) -> bool:
    try:
        return os.path.commonpath([path, folder]) == folder
    except ValueError:  # different drives
        return False


def portable_path(text: str, *, cwd: str | None = None, home: str | None = None) -> str:
    """``text`` as a recorded file may show it (see the module docstring)."""
    if not machine_path(text):
        return text
    path = os.path.normpath(text)
    cwd = os.path.normpath(cwd or os.getcwd())
    home = os.path.normpath(home or os.path.expanduser("~"))
    if _inside(path, cwd):
        return Path(os.path.relpath(path, cwd)).as_posix()
    if home not in ("/", "") and _inside(path, home):
        return "~/" + Path(os.path.relpath(path, home)).as_posix()
    try:
        return Path(os.path.relpath(path, cwd)).as_posix()
    except ValueError:  # another drive: nothing relative to say
        return Path(path).name


def portable_argv(argv: Iterable[str]) -> list[str]:
    """A command line as results record it: every argument (or ``--option=value`` value) that is an
    absolute path made portable."""
    out = []
    for arg in argv:
        if arg.startswith("--") and "=" in arg:
            name, _, value = arg.partition("=")
            out.append(f"{name}={portable_path(value)}")
        else:
            out.append(portable_path(arg))
    return out
