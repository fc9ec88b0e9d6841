"""One kind of registry for every plug-in point: model kinds, judge methods, metrics, rating
methods, reports, data adapters, probes and answer transforms.

A registry with an entry-point ``group`` (``debench.core.entry_points``: models, metrics, methods,
arena ratings) knows its names from the installed packages' metadata, debench's built-ins
included; an entry is imported when first looked up, and checked by the registry's ``check``
(a broken one is a one-line ``PluginError`` for the command that uses it). An entry point may name
the object itself (``module:attr``) or only a module that registers the name when imported. Another
package's object is wrapped by the registry's ``guard`` (each group's own: whatever the plug-in's
code raises is one line naming its package and entry point), and never takes a name debench has:
neither through its entry point (``entry_points.clashes``) nor by registering it from its module.

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
        guard: Callable[[T, entry_points.Declared], T] | None = None,
    ):
        self.kind = kind
        """What the entries are, in error messages: 'metric', 'judge method', ..."""
        self.group = group
        """The entry-point group whose entries this registry holds (None: built-in modules only)."""
        self.check = check
        """What an entry point's object must be: returns why it is not (None when it fits)."""
        self.guard = guard
        """Wraps another package's object so that its failures name it (None: used as it is)."""
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
        self._entries_loaded: set[str] = set()
        """Names whose entry point was loaded (checked and, for another package's, guarded)."""

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
        if not item.ours:  # debench's own modules register their names first: a change after is a takeover
            for module in sorted({d.value.partition(":")[0].strip() for d in self._entry_points().values() if d.ours}):
                importlib.import_module(module)
        before = dict(self._items)
        obj = entry_points.load(item)
        if not item.ours:
            self._refuse_takeover(item, before)
        if isinstance(obj, types.ModuleType):
            if item.name not in self._items:
                raise entry_points.bad_declaration(
                    item, f"module {obj.__name__} does not register a {self.kind} called '{item.name}'"
                )
            obj = self._items[item.name]
        why = self.check(obj) if self.check is not None else None
        if why is not None:
            raise entry_points.bad_declaration(item, f"not a {self.kind}: {why}")
        # checked by self.check just above
        self._items[item.name] = obj if item.ours or self.guard is None else self.guard(obj, item)
        self._entries_loaded.add(item.name)

    def _refuse_takeover(self, item: entry_points.Declared, before: dict[str, T]) -> None:
        """Another package's module registering (at import) a name debench's entry points have:
        undone, and one line naming both."""
        ours = {n for n, d in self._entry_points().items() if d.ours}
        taken = sorted(n for n, obj in self._items.items() if n in ours and before.get(n) is not obj)
        for name in taken:
            if name in before:
                self._items[name] = before[name]
            else:
                del self._items[name]
        if taken:
            raise entry_points.bad_declaration(
                item, f"its module registers the {self.kind} '{taken[0]}', a name debench already has"
            )

    def entry(self, name: str) -> entry_points.Declared | None:
        """The entry point ``name`` comes from (None: a built-in module's entry, not a group's)."""
        return self._entry_points().get(name)

    def get(self, name: str) -> T:
        if self.group:
            entry_points.check_clash(self.group, name)
        if name not in self._items and name in self.module_of:
            importlib.import_module(self.module_of[name])
        if name not in self._entries_loaded and name in self._entry_points():
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
