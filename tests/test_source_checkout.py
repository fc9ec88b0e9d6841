"""debench works the same from a source checkout that is not installed (on ``PYTHONPATH``, no
package metadata at all) as installed: its built-in model kinds, metrics, methods and rating
methods come from the one list in ``pyproject.toml`` (``debench.core.entry_points``)."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest

from debench.core import entry_points, version

REPO = Path(__file__).resolve().parent.parent
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]

NOT_INSTALLED = """
import site, sys
site.addsitedir(sys.argv.pop(1))  # every installed package but debench
sys.path.insert(0, sys.argv.pop(1))  # the checkout
from importlib import metadata
try:
    metadata.distribution("debench")
except metadata.PackageNotFoundError:
    pass
else:
    raise SystemExit("debench's metadata is still found")
from debench.cli import main
sys.argv[0] = "debench"
main()
"""


@pytest.fixture(scope="module")
def without_debench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A site folder holding every installed package but debench (its metadata and its editable
    install's path file left out)."""
    site = tmp_path_factory.mktemp("site")
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.startswith(("debench", "_editable_impl_debench", "__editable__.debench")):
            (site / entry.name).symlink_to(entry)
    return site


def _debench(without: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-S", "-c", NOT_INSTALLED, str(without), str(REPO), *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=600)


@pytest.mark.slow  # two interpreters importing debench (~5 s)
def test_a_checkout_that_is_not_installed_runs_the_built_ins(without_debench: Path, tmp_path: Path) -> None:
    proc = _debench(without_debench, tmp_path, "plugins")
    assert proc.returncode == 0, proc.stderr
    for group in entry_points.GROUPS:
        for name in PROJECT["entry-points"][group]:
            assert name in proc.stdout, (group, name)
    run = ["eval", "--task", "bp_top_team", "--model", "baseline/longest", "--data-source", "sample", "--no-progress"]
    here = _debench(without_debench, tmp_path, *run, "--output-dir", "a")
    assert here.returncode == 0, here.stderr  # was: unknown metric 'accuracy' (known: , parse_failure_rate, ...)
    from clihelp import run_cli

    installed = run_cli(*run, "--output-dir", str(tmp_path / "b"), cwd=tmp_path)
    table = [line for line in here.stdout.splitlines() if not line.lstrip().startswith(("results:", "samples:"))]
    assert table == [
        line for line in installed.stdout.splitlines() if not line.lstrip().startswith(("results:", "samples:"))
    ]


def test_the_checkouts_list_is_pyprojects_and_the_installed_metadatas() -> None:
    """Run from this checkout, debench declares exactly pyproject.toml's entry points; so does the
    metadata of its (editable) install, unless pyproject.toml changed since (then reinstall)."""
    from importlib import metadata

    own = entry_points.checkout_entry_points()
    assert own == {group: PROJECT["entry-points"][group] for group in entry_points.GROUPS}
    for group in entry_points.GROUPS:
        assert {n: d.value for n, d in entry_points.declared(group).items() if d.distribution == "debench"} == own[
            group
        ]
        installed = {ep.name: ep.value for ep in metadata.distribution("debench").entry_points if ep.group == group}
        assert installed == own[group], f"{group}: the installed metadata is stale: pip install -e ."


def test_a_package_outside_a_checkout_reads_its_metadata(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No pyproject.toml of debench's beside the package (a wheel): the installed metadata is the list."""
    monkeypatch.setattr(version, "CHECKOUT_PYPROJECT", tmp_path / "pyproject.toml")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "another"\n', encoding="utf-8")
    entry_points.forget()
    try:
        assert entry_points.checkout_entry_points() is None
        assert set(entry_points.declared("debench.models")) >= set(PROJECT["entry-points"]["debench.models"])
    finally:
        monkeypatch.undo()
        entry_points.forget()
