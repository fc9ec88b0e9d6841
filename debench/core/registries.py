"""One kind of registry for every plug-in point: model kinds, judge methods, metrics, rating
methods, reports, data adapters, probes and answer transforms.

A registry with an entry-point ``group`` (``debench.core.entry_points``: models, metrics, methods,
arena ratings) knows its names from the installed packages' metadata, debench's built-ins
included; an entry is imported when first looked up, and checked by the registry's ``check``
(a broken one is a one-line ``PluginError`` for the command that uses it). An entry point may name
the object itself (``module:attr``) or only a module that registers the name when imported.

A registry maps names to objects. Its built-in entries live in modules that register themselves
when imported; the registry imports them on first look-up, so importing a registry is cheap and
registering a new entry is one decorator in one new module.

A registry whose modules are costly to import may list the names each module registers
(``{module: names}``, kept as ``module_of``: name -> module): then asking whether a name is known
imports nothing, and looking one up imports only the module that registers it (a test keeps the
lists true). These lists are not entry points: ``entry_points.declared(group)`` is what installed
packages declare in their metadata.
"""

from __future__ import annotations

import difflib
import importlib
import types
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Generic, TypeVar

from debench.core import entry_points
from debench.core.errors import UserError

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(
        self,
        kind: str,
        builtin_modules: Sequence[str] | Mapping[str, Sequence[str]] = (),
        *,
        field: str | None = None,
        group: str | None = None,
        check: Callable[[object], str | None] | None = None,
    ):
        self.kind = kind
        """What the entries are, in error messages: 'metric', 'judge method', ..."""
        self.group = group
        """The entry-point group whose entries this registry holds (None: built-in modules only)."""
        self.check = check
        """What an entry point's object must be: returns why it is not (None when it fits)."""
        self.field = field
        self._builtin = tuple(builtin_modules)
        self.module_of: dict[str, str] = (
            {name: mod for mod, names in builtin_modules.items() for name in names}
            if isinstance(builtin_modules, Mapping)
            else {}
        )
        """name -> the built-in module that registers it, for registries given ``{module: names}``."""
        self._loaded = not self._builtin
        self._items: dict[str, T] = {}

    def _load(self) -> None:
        if not self._loaded:
            self._loaded = True
            for mod in self._builtin:
                importlib.import_module(mod)

    def add(self, name: str, item: T) -> T:
        self._items[name] = item
        return item

    def register(self, name: str) -> Callable[[T], T]:
        """Decorator: ``@REGISTRY.register("name")``."""

        def deco(item: T) -> T:
            return self.add(name, item)

        return deco

    def _entry_points(self) -> dict[str, entry_points.Declared]:
        return entry_points.declared(self.group) if self.group else {}

    def _load_entry(self, item: entry_points.Declared) -> None:
        obj = entry_points.load(item)
        if isinstance(obj, types.ModuleType):
            if item.name not in self._items:
                raise entry_points.bad_declaration(
                    item, f"module {obj.__name__} does not register a {self.kind} called '{item.name}'"
                )
            return
        why = self.check(obj) if self.check is not None else None
        if why is not None:
            raise entry_points.bad_declaration(item, f"not a {self.kind}: {why}")
        self._items[item.name] = obj  # checked by self.check just above

    def get(self, name: str) -> T:
        if name not in self._items and name in self.module_of:
            importlib.import_module(self.module_of[name])
        if name not in self._items and name in self._entry_points():
            self._load_entry(self._entry_points()[name])
        if name not in self._items:
            self._load()
        try:
            return self._items[name]
        except KeyError:
            raise UserError(self.unknown_message(name), field=self.field) from None

    def unknown_message(self, name: str, extra: str = "") -> str:
        close = difflib.get_close_matches(name, self.names(), n=1)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        return f"unknown {self.kind} '{name}'{hint} (known: {', '.join(self.names())}{extra})"

    def names(self) -> list[str]:
        self._load()
        return sorted({*self._items, *self._entry_points()})

    def __contains__(self, name: object) -> bool:
        if name in self._items or name in self.module_of or name in self._entry_points():
            return True
        self._load()
        return name in self._items

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())
