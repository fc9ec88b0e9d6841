"""debench's version: pyproject.toml's ``version``, the one source, read from the installed
package's metadata when first asked for (``import debench`` does not pay for the lookup).

``debench.__version__``, ``debench --version``, the results' ``versions.debench`` and the leaderboard's
``debench_version`` all come from here.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

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
    import tomllib

    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    except (OSError, ValueError, KeyError):
        return UNKNOWN
    return f"{project['version']}{UNINSTALLED}" if project.get("name") == "debench" else UNKNOWN
