"""The real data a submission is checked against, loaded once per data set across many validations.

A run on debench's small sample data cannot enter the leaderboard; a run on the real data must have
its ``content_hash`` and document count. ``REAL_DATA`` is shared by every validation of a build and
by the leaderboard's own runs (``debench.leaderboard.reproduce``).
"""

from __future__ import annotations

import json
from pathlib import Path

from debench.core.errors import UserError
from debench.data.base import LoadedDataset
from debench.leaderboard.files import refusal
from debench.leaderboard.public_text import excerpt
from debench.scoring.results import Results
from debench.task.config import TaskConfig


class RealDataCache:
    """Real data sets loaded once per (data dir, adapter, location, options) across many validations."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str, str | None, str], LoadedDataset] = {}

    def get(self, task: TaskConfig, data_dir: str | Path | None) -> LoadedDataset:
        from debench.data.loading import load_task_data

        key = (
            str(data_dir),
            task.dataset.adapter,
            task.dataset.local_dir,
            json.dumps(task.dataset.options, sort_keys=True),
        )
        if key not in self._cache:
            self._cache[key] = load_task_data(task, "local" if data_dir else "hub", data_dir)
        return self._cache[key]


REAL_DATA = RealDataCache()
"""The real data sets, shared by every validation and by the leaderboard's own runs."""


def checked_real_data(task: TaskConfig, results: Results, path: Path, data_dir: str | Path | None) -> LoadedDataset:
    ds = results.dataset
    if ds.is_sample or ds.source == "sample":
        raise refusal(
            path,
            "dataset.is_sample",
            "results on debench's small sample data cannot enter the leaderboard; run on the "
            "real data (set DEBENCH_DATA_DIR)",
        )
    try:
        real = REAL_DATA.get(task, data_dir)
    except Exception as exc:  # noqa: BLE001 - a user error, or the Hub unreachable / offline
        reason = str(exc) if isinstance(exc, UserError) else f"{type(exc).__name__} from the Hub"
        raise refusal(
            path,
            "dataset",
            f"cannot load the real data of task {task.name} to check against ({excerpt(reason, 120)}); set "
            "DEBENCH_DATA_DIR or --data-dir",
        ) from None
    if ds.content_hash != real.content_hash:
        raise refusal(
            path,
            "dataset.content_hash",
            f"data set hash {ds.content_hash} differs from the real data's {real.content_hash}",
        )
    if ds.n_docs_total != len(real.docs):
        raise refusal(
            path, "dataset.n_docs_total", f"{ds.n_docs_total} documents differs from the real data's {len(real.docs)}"
        )
    return real
