"""No import cycles inside ``debench/``, and no module importing from a layer above its own (the
layer table of ``docs/architecture.md``, read from the page itself so that it cannot drift from
the imports): every ``import`` statement counts, including the ones inside functions (a cycle
hidden in a function is still a cycle in the design)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "debench"
ARCHITECTURE = PACKAGE.parent / "docs" / "architecture.md"


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
    """Strongly connected components with more than one module (Tarjan)."""
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
        for w in sorted(graph[v]):
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


def test_the_checker_finds_a_planted_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]


def test_no_import_cycles_inside_debench() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles: " + "; ".join(" <-> ".join(c) for c in found)


def _outside_parentheses(text: str) -> str:
    """``text`` without any parenthesized part (nested ones too)."""
    while True:
        shorter = re.sub(r"\([^()]*\)", "", text)
        if shorter == text:
            return text
        text = shorter


def read_layers(page: str) -> list[tuple[str, set[str]]]:
    """The layer table under the page's ``## Layers`` heading, bottom to top: each row's layer name and
    the top-level modules and packages of ``debench/`` it names in code spans outside parentheses
    (``errors.py`` -> ``errors``, ``data/`` -> ``data``; what a parenthesis says about a row's
    modules is description, not a layer)."""
    section = page.split("\n## Layers\n", 1)[1].split("\n## ", 1)[0]
    layers = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else []
        if len(cells) != 2 or cells[0] in ("layer", "") or set(cells[0]) <= set("-: "):
            continue
        names = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)(?:\.py|/)`", _outside_parentheses(cells[1])))
        layers.append((cells[0], names))
    return layers


LAYERS = read_layers(ARCHITECTURE.read_text(encoding="utf-8"))
"""docs/architecture.md's layer table, bottom to top. A new top-level module or package must be placed there."""


def test_the_layer_table_is_read() -> None:
    """The parser sees every row, keeps what is outside parentheses, and a name there must exist."""
    page = (
        "# A\n\n## Layers\n\n| layer | modules |\n| --- | --- |\n"
        "| low | `a.py` (the `hidden.py` inside (`deeper.py`)), `pkg/` (`pkg/sub.py`) |\n| high | `b.py` |\n\n## Next\n| x | `c.py` |\n"
    )
    assert read_layers(page) == [("low", {"a", "pkg"}), ("high", {"b"})]
    assert [name for name, _ in LAYERS][:2] == ["foundations", "configuration"]
    assert len(LAYERS) >= 10 and all(names for _, names in LAYERS)


def test_every_name_in_the_table_exists() -> None:
    top = {p.stem for p in PACKAGE.glob("*.py")} | {p.name for p in PACKAGE.iterdir() if p.is_dir() and any(p.glob("*.py"))}
    stale = sorted(name for _, names in LAYERS for name in names if name not in top)
    assert not stale, f"docs/architecture.md's layer table names what debench/ does not have: {stale}"


def layer_of(module: str) -> int | None:
    top = module.split(".")[1] if "." in module else None
    return next((i for i, (_, names) in enumerate(LAYERS) if top in names), None)


def test_every_module_has_a_layer() -> None:
    missing = sorted({m.split(".")[1] for m in import_graph() if "." in m and layer_of(m) is None})
    assert not missing, f"place these in docs/architecture.md's layer table: {missing}"


def test_no_module_imports_from_a_layer_above() -> None:
    upward = []
    for mod, deps in import_graph().items():
        here = layer_of(mod)
        for dep in deps:
            there = layer_of(dep)
            if here is not None and there is not None and there > here:
                upward.append(f"{mod} ({LAYERS[here][0]}) imports {dep} ({LAYERS[there][0]})")
    assert not upward, "\n".join(sorted(upward))
