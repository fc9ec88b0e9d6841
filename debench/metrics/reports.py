"""Descriptive reports stored beside the metrics (distributions, per-group means).

Named in a task file's ``reports:`` list; each is ``fn(preds, docs) -> JSON-able dict``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain
from typing import Any

import numpy as np

from debench.core.registries import Registry
from debench.data.base import Doc
from debench.metrics.likert import judge_scores
from debench.metrics.speech_rating import Sources

Report = Callable[[Sequence[Any], Sequence[Doc]], dict[str, Any]]
REPORTS: Registry[Report] = Registry("report")
register_report = REPORTS.register
get_report = REPORTS.get
report_names = REPORTS.names


def _key(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return " > ".join(map(str, value))
    return str(value)


@register_report("prediction_distribution")
def prediction_distribution(preds: Sequence[Any], docs: Sequence[Doc]) -> dict[str, Any]:
    """How often each prediction was given (for lists, the first element: e.g. the top team)."""
    counts = Counter(_key(p[0] if isinstance(p, (list, tuple)) and p else p) for p in preds if not isinstance(p, dict))
    return dict(sorted(counts.items()))


@register_report("gold_distribution")
def gold_distribution(preds: Sequence[Any], docs: Sequence[Doc]) -> dict[str, Any]:
    """The gold labels of the same documents (for lists of winners, each winner counts)."""
    counts: Counter[str] = Counter()
    for d in docs:
        if isinstance(d.target, (list, tuple)):
            counts.update(map(str, d.target))
        elif d.label is not None:
            counts[_key(d.label)] += 1
    return dict(sorted(counts.items()))


@register_report("human_rating_distribution")
def human_rating_distribution(preds: Sequence[Any], docs: Sequence[Doc]) -> dict[str, Any]:
    """All individual human ratings of the same documents (speech-rating tasks)."""
    counts = Counter(map(str, chain.from_iterable(d.meta.get("ratings", []) for d in docs)))
    return dict(sorted(counts.items()))


@register_report("mean_by_source")
def mean_by_source(preds: Sequence[Any], docs: Sequence[Doc]) -> dict[str, Any]:
    """Judge mean and human mean per speech source over the speeches the judge scored, with their
    number (the same sums ``source_pearson`` correlates)."""
    sources = Sources.of(docs)
    n, judge_sum, human_sum = (s[0] for s in sources.sums(np.ones((1, len(docs))), judge_scores(preds)))
    return {
        name: {"judge_mean": float(judge_sum[i] / n[i]), "human_mean": float(human_sum[i] / n[i]), "n": int(n[i])}
        for i, name in enumerate(sources.names)
        if n[i] > 0
    }
