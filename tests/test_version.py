"""debench's version is pyproject.toml's, read from the package metadata when asked for:
``debench.__version__``, ``debench --version`` and the results report it; a source tree that is not
installed says so."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from clihelp import run_cli

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "debench"
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_the_version_is_pyprojects_and_the_cli_and_results_report_it() -> None:
    import debench
    from debench.scoring.results import package_versions

    assert debench.__version__ == metadata.version("debench") == PROJECT["version"]
    out = run_cli("--version")
    assert out.returncode == 0 and out.stdout == f"debench, version {PROJECT['version']}\n", out
    assert package_versions()["debench"] == PROJECT["version"]


def test_from_a_source_tree_not_installed_the_version_says_so(tmp_path: Path) -> None:
    """``python -S`` (no site-packages: debench is not installed there) with the checkout on the path:
    pyproject.toml's version, marked ``+source``; without a pyproject.toml beside it, ``0+unknown``."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    code = (
        "import debench, importlib.util; assert importlib.util.find_spec('pydantic') is "
        "None; print(debench.__version__)"
    )
    proc = subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"{PROJECT['version']}+source"

    code = "import debench; print(debench.__version__)"
    # a copy of the package's version lookup with no pyproject.toml beside it
    (tmp_path / "lone" / "debench" / "core").mkdir(parents=True)
    for name in ("__init__.py", "core/__init__.py", "core/version.py"):
        (tmp_path / "lone" / "debench" / name).write_bytes((PACKAGE / name).read_bytes())
    env["PYTHONPATH"] = str(tmp_path / "lone")
    proc = subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "0+unknown"


def test_importing_debench_reads_no_metadata() -> None:
    """The version is looked up when asked for, not at ``import debench`` (the CLI's start-up)."""
    code = "import sys, debench.cli; print('importlib.metadata' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"


def test_a_package_s_version_read_from_its_metadata_header_is_importlib_s() -> None:
    """``package_version`` (the results' ``versions``) reads only the metadata's header: the same
    version as ``importlib.metadata.version`` for every installed package, None for one that is not."""
    from debench.core.version import package_version

    names = {dist.metadata["Name"] for dist in metadata.distributions()}
    assert len(names) > 10
    for name in sorted(names):
        assert package_version(name) == metadata.version(name), name
    assert package_version("no-such-package-for-debench") is None
