"""The door every component comes through: Python entry points.

debench's four plug-in groups are read from the installed packages' metadata
(``importlib.metadata.entry_points``), debench's own built-ins included (declared in its
``pyproject.toml``; from a source checkout, read from that file: below). Reading a group imports nothing; a component's
code is imported when it is first used, so a plug-in that fails to import or declares something
wrong is one line (naming its package and entry point) for the command that uses it, and never
breaks another.

No takeover: a name debench already has (its own entry points, and for ``debench.models`` the
model-string prefixes its ``server`` kind serves: ``core.provider_names``) is never another
package's, and a name two other packages declare is neither's (``clash``). A plug-in's code is
identified by its package, version and a hash of its module files (``Declared.identity``); debench's
own components have no such identity, so they change no fingerprint, file name or cache key.

debench's own entries come from that one list wherever debench runs from: an installed wheel's
metadata holds it; a source checkout (debench imported from a folder with debench's
``pyproject.toml`` beside the package, installed editable or only on ``PYTHONPATH``, where there is
no metadata at all) reads it from that ``pyproject.toml`` itself (``checkout_entry_points``), so the
built-in model kinds, metrics and methods are the same either way (without this, a checkout on
``PYTHONPATH`` knew no model kind: "unknown model kind 'server' (known: )"), and an edit of the
list needs no reinstall.

``docs/plugins.md`` describes each group and the interface its components implement
(``debench.plugin_types``).
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from debench.core.errors import UserError
from debench.core.plugin_sources import sources_sha256
from debench.core.provider_names import server_prefixes
from debench.core.version import checkout_project, debench_version

log = logging.getLogger(__name__)

GROUPS: dict[str, str] = {
    "debench.models": "model kind",
    "debench.metrics": "metric",
    "debench.methods": "judge method",
    "debench.arena_ratings": "rating method",
}
"""The plug-in groups and what their components are called in messages."""

OURS = "debench"
"""The distribution whose entry points are debench's own components."""


@dataclass(frozen=True)
class PluginIdentity:
    """What identifies a plug-in's code: its package, version and the sha256 of its module files
    (an editable install keeps its version while its source changes)."""

    group: str
    name: str
    distribution: str
    version: str
    sources_sha256: str

    def code(self) -> dict[str, str]:
        """What enters a model identity or a run fingerprint: which code ran."""
        return {"distribution": self.distribution, "version": self.version, "sources_sha256": self.sources_sha256}

    def record(self) -> dict[str, str]:
        """What a results file records of it (``config.plugins``)."""
        return {"group": self.group, "name": self.name, **self.code()}


@dataclass(frozen=True)
class Declared:
    """One entry point of a plug-in group: its name, target (``module:attr``) and package."""

    group: str
    name: str
    value: str
    distribution: str
    version: str = "?"

    @property
    def where(self) -> str:
        return f"entry point '{self.name} = {self.value}' in group {self.group} of package {self.distribution}"

    @property
    def ours(self) -> bool:
        return self.distribution == OURS

    @property
    def package(self) -> str:
        return f"package {self.distribution} {self.version}"

    @property
    def described(self) -> str:
        """``metric 'bacc' of package acme 0.2.0 (entry point 'bacc = acme.m:BACC')``: who to blame."""
        kind = GROUPS.get(self.group, self.group)
        return f"{kind} '{self.name}' of {self.package} (entry point '{self.name} = {self.value}')"

    def failed(self, exc: BaseException, step: str = "") -> str:
        """One line: this plug-in raised ``exc`` (in ``step``: ``make``, ``generate``, ``scores``, ...)."""
        detail = " ".join(str(exc).split())[:300]
        where = f" in {step}" if step else ""
        return f"{self.described} raised {type(exc).__name__}{where}{': ' + detail if detail else ''}"

    def identity(self) -> PluginIdentity | None:
        """The plug-in's identity; None for debench's own components (their code is debench's)."""
        return None if self.ours else _identity(self)


@functools.cache
def _identity(item: Declared) -> PluginIdentity:
    module = item.value.partition(":")[0].strip()
    return PluginIdentity(item.group, item.name, item.distribution, item.version, sources_sha256(module))


class PluginError(UserError):
    """A plug-in that cannot be loaded, does not fit its group's interface, or failed: one line
    naming its package and entry point (exit 2)."""


class PluginFailure(Exception):
    """A plug-in's model kind or judge method failed on one sample: the sample is an error whose
    text names the plug-in (retried on resume); when it fails on every sample the run stops with
    this line (``PluginError``)."""


@dataclass(frozen=True)
class Clash:
    """A name more than one package declares, or one debench already serves."""

    group: str
    name: str
    others: tuple[Declared, ...]
    """The other packages' entries, none of which is used."""
    kept: str | None
    """Which of debench's components has the name (``its own entry point``, ``a model prefix of its
    server kind ...``), or None: two other packages declare it and no one serves it."""

    @property
    def message(self) -> str:
        kind = GROUPS.get(self.group, self.group)
        theirs = " and ".join(f"{d.package} ({d.name} = {d.value})" for d in self.others)
        if self.kept is None:
            return (
                f"{kind} '{self.name}' is declared by {theirs}: neither is used; uninstall one of them "
                "or ask its authors to rename it"
            )
        return (
            f"{kind} '{self.name}' of {theirs} takes a name debench already has ({self.kept}): "
            "debench's is used and this entry is ignored; rename it in its package"
        )


def _package(ep: metadata.EntryPoint, packages: dict[Any, tuple[str, str]]) -> tuple[str, str]:
    """The name and version of the package declaring ``ep``; ``packages`` keeps those already read
    (reading them parses the package's whole METADATA file: once per package, not once per entry
    point)."""
    dist = getattr(ep, "dist", None)
    if dist is None:
        return "?", "?"
    if dist not in packages:
        meta = dist.metadata
        packages[dist] = (str(meta["Name"] or "?"), str(meta["Version"] or "?"))
    return packages[dist]


def checkout_entry_points() -> dict[str, dict[str, str]] | None:
    """debench's own entry points by group (name -> ``module:attr``) from the ``pyproject.toml`` of
    the checkout it was imported from; None when it was not imported from one (a wheel)."""
    project = checkout_project()
    if project is None:
        return None
    groups = project.get("entry-points", {})
    return {group: dict(groups.get(group, {})) for group in GROUPS}


@functools.cache
def _installed() -> dict[str, list[metadata.EntryPoint]]:
    """The installed packages' entry points of the four groups, read at once (a read parses every
    package's ``entry_points.txt``: ~5 ms of a command's start-up for each group read on its own)."""
    everything = metadata.entry_points()
    return {group: list(everything.select(group=group)) for group in GROUPS}


@functools.cache
def _scan(group: str) -> tuple[dict[str, Declared], dict[str, Clash]]:
    """The usable entries of ``group`` by name, and its clashes (nothing imported)."""
    by_name: dict[str, list[Declared]] = {}
    packages: dict[Any, tuple[str, str]] = {}
    own = checkout_entry_points()
    for ep in _installed()[group]:
        item = Declared(group, ep.name, ep.value, *_package(ep, packages))
        if own is None or not item.ours:  # an editable install's metadata: the checkout's list stands for it
            by_name.setdefault(ep.name, []).append(item)
    for name, value in (own or {}).get(group, {}).items():
        by_name.setdefault(name, []).append(Declared(group, name, value, OURS, debench_version()))
    usable: dict[str, Declared] = {}
    clashes: dict[str, Clash] = {}
    for name, items in sorted(by_name.items()):
        ours = next((i for i in items if i.ours), None)
        theirs = tuple(sorted((i for i in items if not i.ours), key=lambda i: i.distribution))
        if ours is not None:
            usable[name] = ours
            if theirs:
                clashes[name] = Clash(group, name, theirs, "its own entry point")
        elif len({i.distribution for i in theirs}) > 1:
            clashes[name] = Clash(group, name, theirs, None)
        elif group == "debench.models" and name in server_prefixes():
            clashes[name] = Clash(group, name, theirs, f"a model prefix of its server kind: {server_prefixes()[name]}")
        else:
            usable[name] = theirs[0]
    return usable, clashes


def declared(group: str) -> dict[str, Declared]:
    """The entry points of ``group`` by name that debench uses (nothing imported): debench's own,
    and another package's when no one else has its name (``clashes``)."""
    return _scan(group)[0]


def clashes(group: str) -> dict[str, Clash]:
    """The names of ``group`` that another package may not have: debench's own (its entry points,
    the model prefixes of its server kind) or declared by two packages."""
    return _scan(group)[1]


_warned: set[tuple[str, str]] = set()


def check_clash(group: str, name: str) -> None:
    """For a command that uses ``name``: a name two packages declare is refused (one line naming
    both); a plug-in's entry shadowed by debench's is said once (a warning naming both packages)."""
    clash = clashes(group).get(name)
    if clash is None:
        return
    if clash.kept is None:
        raise PluginError(clash.message)
    if (group, name) not in _warned:
        _warned.add((group, name))
        log.warning(clash.message)


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
    """Every component of every group, built-in or installed, by group then name (the entries a
    clash leaves unused apart: ``clashes``)."""
    return [item for group in GROUPS for item in declared(group).values()]


def forget() -> None:
    """Read the entry points again at the next look-up (after a package is installed in-process)."""
    _installed.cache_clear()
    _scan.cache_clear()
    _identity.cache_clear()
    checkout_project.cache_clear()
    _warned.clear()
