"""No import cycles inside ``debench/``, and no module importing from a layer above its own (the
table in README.md's "Layout"): every ``import`` statement counts, including the ones inside
functions (a cycle hidden in a function is still a cycle in the design)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "debench"


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


LAYERS = [
    ("foundations", {"errors", "registries", "atomic", "redact", "text", "json_schema", "record_log", "jsonl", "paths", "options", "numeric", "charts"}),
    ("configuration", {"task", "grammars", "transforms", "parsing", "quotes", "prompt_sandbox"}),
    ("data", {"data", "prompts", "samples"}),
    ("models", {"models", "cache", "calls"}),
    ("judging", {"judging"}),
    ("scoring", {"metrics", "scoring", "results", "predictions", "group_summary"}),
    ("running", {"runner", "pipeline", "repeats", "api", "task_files", "registry"}),
    ("studies", {"probes", "speeches", "arena", "compare_runs"}),
    ("publishing", {"leaderboard", "view", "pages"}),
    ("interface", {"cli"}),
    ("test support", {"testing"}),
]
"""README.md's layout table, bottom to top. A new top-level module or package must be placed here."""


def layer_of(module: str) -> int | None:
    top = module.split(".")[1] if "." in module else None
    return next((i for i, (_, names) in enumerate(LAYERS) if top in names), None)


def test_every_module_has_a_layer() -> None:
    missing = sorted({m.split(".")[1] for m in import_graph() if "." in m and layer_of(m) is None})
    assert not missing, f"place these in LAYERS (and README.md's layout table): {missing}"


def test_no_module_imports_from_a_layer_above() -> None:
    upward = []
    for mod, deps in import_graph().items():
        here = layer_of(mod)
        for dep in deps:
            there = layer_of(dep)
            if here is not None and there is not None and there > here:
                upward.append(f"{mod} ({LAYERS[here][0]}) imports {dep} ({LAYERS[there][0]})")
    assert not upward, "\n".join(sorted(upward))
