"""Resampling topics (pure functions): every item of a drawn topic comes along, so the intervals
respect that debates on one topic are not independent (both legs, every pair, every judge)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np


def topic_resamples(topics: Sequence[str], n_boot: int, seed: int) -> Iterator[np.ndarray]:
    """``n_boot`` index arrays into ``topics`` (one label per item), each drawn by choosing as many
    topics as there are, with replacement, and taking all their items. None with fewer than 2 topics."""
    groups: dict[str, list[int]] = {}
    for k, t in enumerate(topics):
        groups.setdefault(t, []).append(k)
    if len(groups) < 2:
        return
    members = [np.array(groups[t], dtype=int) for t in sorted(groups)]
    rng = np.random.default_rng(seed)
    for _ in range(n_boot):
        yield np.concatenate([members[c] for c in rng.integers(0, len(members), size=len(members))])


def percentile_ci(draws: Sequence[float | None], n_boot: int) -> list[float] | None:
    """2.5th and 97.5th percentiles of the defined draws; None when fewer than half of the
    ``n_boot`` resamples gave a value (an interval from a minority would mislead)."""
    values = [float(v) for v in draws if v is not None and np.isfinite(v)]
    if n_boot <= 0 or len(values) < max(2, n_boot // 2):
        return None
    lo, hi = np.percentile(values, [2.5, 97.5])
    return [float(lo), float(hi)]
