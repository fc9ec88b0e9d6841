"""debench's version: pyproject.toml's ``version``, the one source, read from the installed
package's metadata when first asked for (``import debench`` does not pay for the lookup).

``debench.__version__``, ``debench --version``, the results' ``versions.debench`` and the leaderboard's
``debench_version`` all come from here.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

UNINSTALLED = "+source"
"""The local version label of a debench run from a source tree that is not installed."""

UNKNOWN = "0+unknown"


@cache
def debench_version() -> str:
    """The installed distribution's version. From a source tree that is not installed (the checkout
    on ``PYTHONPATH``), pyproject.toml's version read directly and marked ``+source``: the code may
    differ from any release. ``0+unknown`` when neither is there."""
    from importlib import metadata

    try:
        return metadata.version("debench")
    except metadata.PackageNotFoundError:
        pass
    project = checkout_project()
    return f"{project['version']}{UNINSTALLED}" if project is not None and "version" in project else UNKNOWN


CHECKOUT_PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
"""Where a source checkout of debench keeps its ``pyproject.toml``: beside the ``debench`` package."""


@cache
def checkout_project() -> dict[str, Any] | None:
    """The ``[project]`` table of debench's ``pyproject.toml`` when debench was imported from a
    source checkout (installed editable or only on ``PYTHONPATH``); None elsewhere (a wheel)."""
    import tomllib

    try:
        project = tomllib.loads(CHECKOUT_PYPROJECT.read_text(encoding="utf-8")).get("project")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return project if isinstance(project, dict) and project.get("name") == "debench" else None
