"""Where debench keeps its cache (``debench.core.paths.cache_root``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from debench.core.paths import cache_root


@pytest.mark.parametrize("xdg", ["", "relative/cache", "./cache"])
def test_an_empty_or_relative_xdg_cache_home_is_ignored(xdg: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The XDG Base Directory specification: such a value is invalid (``XDG_CACHE_HOME=""`` made the
    cache the relative folder ``debench`` of wherever a command ran)."""
    monkeypatch.delenv("DEBENCH_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", xdg)
    assert cache_root() == Path("~/.cache/debench").expanduser() and cache_root().is_absolute()


def test_the_cache_folder_is_chosen_in_order(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("DEBENCH_CACHE_DIR", str(tmp_path / "own"))
    assert cache_root() == tmp_path / "own"
    monkeypatch.setenv("DEBENCH_CACHE_DIR", "")
    assert cache_root() == tmp_path / "xdg" / "debench"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_root() == Path("~/.cache/debench").expanduser()
