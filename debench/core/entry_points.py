"""The door every component comes through: Python entry points.

debench's four plug-in groups are read from the installed packages' metadata
(``importlib.metadata.entry_points``), debench's own built-ins included (declared in its
``pyproject.toml``): one path, no special case. Reading a group imports nothing; a component's
code is imported when it is first used, so a plug-in that fails to import or declares something
wrong is one line (naming its package and entry point) for the command that uses it, and never
breaks another.

``docs/plugins.md`` describes each group and the interface its components implement
(``debench.plugin_types``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from debench.core.errors import UserError

GROUPS: dict[str, str] = {
    "debench.models": "model kind",
    "debench.metrics": "metric",
    "debench.methods": "judge method",
    "debench.arena_ratings": "rating method",
}
"""The plug-in groups and what their components are called in messages."""


@dataclass(frozen=True)
class Declared:
    """One entry point of a plug-in group: its name, target (``module:attr``) and package."""

    group: str
    name: str
    value: str
    distribution: str

    @property
    def where(self) -> str:
        return f"entry point '{self.name} = {self.value}' in group {self.group} of package {self.distribution}"


class PluginError(UserError):
    """A plug-in that cannot be loaded or does not fit its group's interface."""


def _distribution(ep: metadata.EntryPoint, names: dict[Any, str]) -> str:
    """The name of the package declaring ``ep``; ``names`` keeps the names already read (reading
    one parses the package's whole METADATA file: once per package, not once per entry point)."""
    dist = getattr(ep, "dist", None)
    if dist is None:
        return "?"
    if dist not in names:
        names[dist] = str(dist.metadata["Name"] or "?")
    return names[dist]


@functools.cache
def declared(group: str) -> dict[str, Declared]:
    """The entry points of ``group`` by name (nothing imported). Two packages declaring one name:
    the first found wins, except that debench's own entry is never shadowed."""
    out: dict[str, Declared] = {}
    names: dict[Any, str] = {}
    for ep in metadata.entry_points(group=group):
        item = Declared(group, ep.name, ep.value, _distribution(ep, names))
        if ep.name not in out or item.distribution == "debench":
            out[ep.name] = item
    return dict(sorted(out.items()))


def load(item: Declared) -> Any:
    """The object an entry point names (importing its module); any failure is one ``PluginError``."""
    ep = metadata.EntryPoint(item.name, item.value, item.group)
    try:
        return ep.load()
    except Exception as exc:  # noqa: BLE001 - whatever a plug-in raises on import is reported as one line
        detail = " ".join(str(exc).split()) or type(exc).__name__
        raise PluginError(f"{item.where} cannot be loaded: {type(exc).__name__}: {detail[:200]}") from None


def bad_declaration(item: Declared, why: str) -> PluginError:
    return PluginError(f"{item.where}: {why}")


def listing() -> list[Declared]:
    """Every component of every group, built-in or installed, by group then name."""
    return [item for group in GROUPS for item in declared(group).values()]


def forget() -> None:
    """Read the entry points again at the next look-up (after a package is installed in-process)."""
    declared.cache_clear()
