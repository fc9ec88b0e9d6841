"""The layers of ``debench/`` are its packages: each package's ``__init__`` docstring (and each module
directly in ``debench/``) ends with a ``May import:`` line naming the packages it may import from.
The tests read those lines, so the layout, the declarations and the imports cannot drift apart:

* no import cycle between modules (every ``import`` statement counts, including those inside
  functions: a cycle hidden in a function is still a cycle in the design);
* no import from one package to another that its ``May import:`` line does not name;
* the declarations themselves form layers (no cycle between packages);
* at most eight modules directly in ``debench/``;
* docs/architecture.md's layer table names every package once, with the same ``May import:`` list.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "debench"
ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"
MAX_TOP_LEVEL_MODULES = 8


def module_name(path: Path) -> str:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph() -> dict[str, set[str]]:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for mod, path in modules.items():
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = mod.split(".") if is_pkg else mod.split(".")[:-1]
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join([*anchor, base] if base else anchor)
                # ``from pkg import name``: an edge to pkg.name when it is a module, else to pkg
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            for t in targets:
                if t in modules and t != mod:
                    graph[mod].add(t)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []
    counter = 0

    def visit(v: str) -> None:
        nonlocal counter
        index[v] = low[v] = counter
        counter += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def unit_of(module: str) -> str:
    """The layer unit a module belongs to: its package directly under ``debench/``, or the module
    itself when it sits directly in ``debench/`` (``debench`` for the package's ``__init__``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "debench"


def units() -> dict[str, Path]:
    """Every layer unit and the file whose docstring declares it."""
    found = {p.name: p / "__init__.py" for p in PACKAGE.iterdir() if p.is_dir() and any(p.glob("*.py"))}
    found |= {p.stem: p for p in PACKAGE.glob("*.py") if p.name != "__init__.py"}
    found["debench"] = PACKAGE / "__init__.py"
    return found


MAY_IMPORT = re.compile(r"^May import: (.+?)\.$", re.MULTILINE | re.DOTALL)  # a long line may wrap


def read_declaration(text: str, every: set[str]) -> set[str]:
    """What a ``May import:`` line allows: the names in double backticks; ``every package`` allows
    every package (modules directly in ``debench/`` still have to be named)."""
    line = MAY_IMPORT.search(text)
    if line is None:
        raise ValueError("no 'May import:' line")
    names = set(re.findall(r"``([A-Za-z_][A-Za-z0-9_]*)``", line.group(1)))
    if "every package" in line.group(1):
        names |= every
    return names


def declarations() -> dict[str, set[str]]:
    found = units()
    packages = {name for name, path in found.items() if path.name == "__init__.py" and name != "debench"}
    out = {}
    for name, path in found.items():
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        out[name] = read_declaration(doc, packages)
    return out


def test_the_checker_finds_a_planted_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_the_declaration_reader() -> None:
    assert read_declaration("Holds x.\n\nMay import: ``core``, ``task``.\n", set()) == {"core", "task"}
    assert read_declaration("May import: every package, ``api``.", {"core", "run"}) == {"core", "run", "api"}
    assert read_declaration("May import: nothing of debench.", {"core"}) == set()


def test_no_import_cycles_inside_debench() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def test_every_package_declares_what_it_may_import() -> None:
    missing = []
    for path in units().values():
        if not MAY_IMPORT.search(ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""):
            missing.append(str(path.relative_to(PACKAGE.parent)))
    assert not missing, f"end these docstrings with a 'May import:' line: {missing}"


def test_no_import_that_its_package_does_not_declare() -> None:
    allowed = declarations()
    wrong = []
    for mod, deps in import_graph().items():
        here = unit_of(mod)
        for dep in deps:
            there = unit_of(dep)
            if there != here and there not in allowed[here]:
                wrong.append(f"{mod} imports {dep}: '{here}' may not import '{there}'")
    assert not wrong, "\n".join(sorted(wrong))


def test_the_declarations_are_layers() -> None:
    """No two packages may import each other, directly or through others."""
    found = cycles({name: allowed - {name} for name, allowed in declarations().items()})
    assert not found, "packages declared to import each other: " + "; ".join(" <-> ".join(c) for c in found)


def test_at_most_eight_modules_directly_in_debench() -> None:
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(top) <= MAX_TOP_LEVEL_MODULES, f"{len(top)} modules directly in debench/: {top}"


def read_table(page: str, every: set[str]) -> dict[str, set[str]]:
    """docs/architecture.md's layer table: each row's package (``core/``) or module (``api.py``) and
    what its "may import" column allows (names in code spans; "every package" as in a docstring)."""
    section = page.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, set[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) != 3 or cells[0] in ("package", "") or set(cells[0]) <= set("-: "):
            continue
        unit = re.fullmatch(r"`([A-Za-z_][A-Za-z0-9_]*)(?:/|\.py)`", cells[0])
        assert unit, f"docs/architecture.md: a row that names no package: {cells[0]}"
        names = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", cells[2]))
        rows[unit.group(1)] = names | every if "every package" in cells[2] else names
    return rows


def test_the_architecture_page_is_drawn_from_the_packages() -> None:
    packages = {name for name, path in units().items() if path.name == "__init__.py" and name != "debench"}
    table = read_table(ARCHITECTURE.read_text(encoding="utf-8"), packages)
    declared = {name: allowed for name, allowed in declarations().items() if name != "debench"}
    assert set(table) == set(declared), (
        f"rows missing: {sorted(set(declared) - set(table))}; rows for nothing: {sorted(set(table) - set(declared))}"
    )
    differ = {name: (sorted(table[name]), sorted(declared[name])) for name in declared if table[name] != declared[name]}
    assert not differ, (
        f"docs/architecture.md's 'may import' column (first) differs from the docstring (second): {differ}"
    )


def test_the_table_reader() -> None:
    page = (
        "# A\n\n## Layers\n\n| package | holds | may import |\n| --- | --- | --- |\n"
        "| `core/` | x (`y`) | nothing |\n| `run/` | z | `core` |\n"
        "| `cli/` | w | every package, `api` |\n\n## Next\n| `c.py` | | |\n"
    )
    assert read_table(page, {"core", "run"}) == {"core": set(), "run": {"core"}, "cli": {"core", "run", "api"}}
