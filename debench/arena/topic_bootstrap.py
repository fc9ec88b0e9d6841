"""Resampling topics: every item of a drawn topic comes along, so the intervals respect that
debates on one topic are not independent (both legs, every pair, every judge).

One seeded set of resamples serves a whole analysis: draw k chooses, with replacement, as many
topics as the input names (all topics of all judgment files, in name order), and every statistic
(each Bradley–Terry fit, alpha, self-preference) is computed on that same multiset of topics.
The draws are ``metrics.bootstrap.resample_counts`` over the topics — per draw, how many times each
topic was drawn — so they are the resamples of a per-document bootstrap with topics as documents,
and intervals are ``metrics.bootstrap.percentile_ci``. A draw in which a statistic is undefined (a
model that played no game in it, an alpha without two verdicts on one debate) does not count;
each interval reports how many draws did (``draws_used``) and is null when fewer than half did.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from debench.metrics.bootstrap import percentile_ci, resample_counts


@dataclass(frozen=True)
class TopicDraws:
    n_topics: int
    n_boot: int
    seed: int

    @property
    def active(self) -> bool:
        """False with no resamples asked for, or fewer than 2 topics (no interval at all)."""
        return self.n_boot > 0 and self.n_topics >= 2

    def blocks(self, max_rows: int | None = None) -> Iterator[np.ndarray]:
        """(b, n_topics) counts of consecutive draws, in order, at most ``max_rows`` rows each."""
        if not self.active:
            return
        for block in resample_counts(self.n_topics, self.n_boot, self.seed):
            step = len(block) if max_rows is None else max(1, max_rows)
            for start in range(0, len(block), step):
                yield block[start : start + step]

    def totals(self, per_topic: np.ndarray) -> np.ndarray:
        """Per draw, the sum over its topics of ``per_topic`` ((n_topics,) or (n_topics, q)):
        (n_boot,) or (n_boot, q). Empty (0 rows) when inactive. (einsum, not a matrix product:
        BLAS's threads cost more than the sums on a busy machine.)"""
        per_topic = np.asarray(per_topic, dtype=float)
        flat = per_topic.reshape(len(per_topic), -1)
        out = [np.einsum("bt,tq->bq", block, flat) for block in self.blocks()]
        return np.concatenate(out).reshape(-1, *per_topic.shape[1:]) if out else np.zeros((0, *per_topic.shape[1:]))


def interval(draws: np.ndarray, n_boot: int) -> tuple[list[float] | None, int]:
    """The percentile 95% interval of the usable draws (finite values) and how many there were."""
    draws = np.asarray(draws, dtype=float)
    used = int(np.isfinite(draws).sum())
    if n_boot <= 0 or len(draws) == 0:
        return None, used
    ci, _ = percentile_ci(draws, n_boot)
    return ci, used
