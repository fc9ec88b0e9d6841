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
    installed = package_version("debench")
    if installed is not None:
        return installed
    project = checkout_project()
    return f"{project['version']}{UNINSTALLED}" if project is not None and "version" in project else UNKNOWN


def package_version(name: str) -> str | None:
    """An installed package's version (``importlib.metadata.version``), None when it is not
    installed: read from its metadata's header alone, without parsing the long description that
    follows it (~1-3 ms for a package such as scipy or litellm)."""
    from email.parser import HeaderParser
    from importlib import metadata

    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        return None
    text = dist.read_text("METADATA") or dist.read_text("PKG-INFO") or ""
    version = HeaderParser().parsestr(text.split("\n\n", 1)[0]).get("Version")
    return None if version is None else str(version)


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
