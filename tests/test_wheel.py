"""The runtime wheel: the package with its data files, the task files, and not the test support
(``debench/testing/``: the stub server, the stand-in vllm, the browser helper), which no runtime
module imports; its metadata carries pyproject.toml's version and ranges, no exact pin."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
import zipfile
from email.parser import Parser
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]

TEST_SUPPORT = "debench.testing"


def imported_modules(path: Path, module: str) -> set[str]:
    """Every module one file imports, absolute or relative, at module level or inside a function
    (``from debench import testing`` counts as ``debench.testing``), and every module named as a
    string (``importlib.import_module("debench.testing.x")``, ``python -m debench.testing.x``)."""
    package = module.rsplit(".", 1)[0] if path.name != "__init__.py" else module
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{parent}.{base}" if base else parent
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and TEST_SUPPORT in node.value:
            found.add(TEST_SUPPORT)
    return found


def runtime_imports_of_test_support(root: Path) -> list[str]:
    out = []
    for path in sorted((root / "debench").rglob("*.py")):
        module = ".".join(path.relative_to(root).with_suffix("").parts).removesuffix(".__init__")
        if module == TEST_SUPPORT or module.startswith(TEST_SUPPORT + "."):
            continue
        hits = sorted(
            m for m in imported_modules(path, module) if m == TEST_SUPPORT or m.startswith(TEST_SUPPORT + ".")
        )
        out += [f"{module} imports {m}" for m in hits]
    return out


def test_no_runtime_module_imports_the_test_support() -> None:
    """What the wheel leaves out must not be needed by what it ships: an import of it from any
    other module of debench/ would fail in an installed debench."""
    assert runtime_imports_of_test_support(REPO) == []


def test_the_test_support_check_catches_each_way_of_importing_it(tmp_path: Path) -> None:
    ways = {
        "a.py": "import debench.testing.stub_server\n",
        "b.py": "def f():\n    from debench import testing\n",
        "sub/c.py": "from ..testing.fake_vllm import main\n",
        "d.py": "import subprocess\nsubprocess.run(['python', '-m', 'debench.testing.stub_server'])\n",
        "e.py": "from debench.models import base\nfrom . import text\n",
    }
    for name, code in ways.items():
        (tmp_path / "debench" / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "debench" / name).write_text(code, encoding="utf-8")
    (tmp_path / "debench" / "testing").mkdir()
    (tmp_path / "debench" / "testing" / "stub_server.py").write_text(
        "import debench.testing.stub_batches\n", encoding="utf-8"
    )
    assert runtime_imports_of_test_support(tmp_path) == [
        "debench.a imports debench.testing.stub_server",
        "debench.b imports debench.testing",
        "debench.d imports debench.testing",
        "debench.sub.c imports debench.testing.fake_vllm",
        "debench.sub.c imports debench.testing.fake_vllm.main",
    ]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """The wheel built offline from the checkout (~1 s: hatchling from the test extra, no build
    isolation, no index)."""
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            str(REPO),
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "-q",
            "-w",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    [built] = out.glob("debench-*.whl")
    return zipfile.ZipFile(built)


def source_files() -> set[str]:
    """What the wheel should hold of the checkout: debench/ without test support and caches, and
    the task files under debench/_tasks/."""
    files = {
        p.relative_to(REPO).as_posix()
        for p in (REPO / "debench").rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }
    files = {f for f in files if not f.startswith("debench/testing/")}
    files |= {
        "debench/_tasks/" + p.relative_to(REPO / "tasks").as_posix() for p in (REPO / "tasks").rglob("*") if p.is_file()
    }
    return files


def test_the_wheel_holds_the_package_and_its_data_and_not_the_test_support(wheel: zipfile.ZipFile) -> None:
    names = set(wheel.namelist())
    assert not {n for n in names if n.startswith("debench/testing")}, "test support shipped in the wheel"
    package = {n for n in names if not n.startswith(f"debench-{PROJECT['version']}.dist-info/")}
    assert package == source_files()
    assert "debench/models/openai_prices.json" in package and "debench/schema/results.schema.json" in package


def test_the_wheels_metadata_is_pyprojects(wheel: zipfile.ZipFile) -> None:
    meta = Parser().parsestr(wheel.read(f"debench-{PROJECT['version']}.dist-info/METADATA").decode("utf-8"))
    assert meta["Version"] == PROJECT["version"]
    requires = meta.get_all("Requires-Dist") or []
    assert len(requires) == len(PROJECT["dependencies"]) + sum(
        len(v) for v in PROJECT["optional-dependencies"].values()
    )
    assert not [r for r in requires if "==" in r.split(";")[0]], requires
