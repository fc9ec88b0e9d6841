"""Shared fixtures: where the real data lives, an isolated cache, a CLI runner."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DATA_DIR = Path(os.environ.get("DEBENCH_DATA_DIR") or REPO.parent / "shared" / "datasets").resolve()


def real_data_dir(name: str) -> Path:
    path = DATA_DIR / name
    if not path.exists():
        pytest.skip(f"real data not found at {path} (set DEBENCH_DATA_DIR)")
    return path


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test gets its own response cache; the Hub is never contacted."""
    monkeypatch.setenv("DEBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


@pytest.fixture
def data_dir() -> Path:
    if not DATA_DIR.exists():
        pytest.skip(f"real data not found at {DATA_DIR} (set DEBENCH_DATA_DIR)")
    return DATA_DIR
