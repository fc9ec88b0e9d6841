"""The names of debench's status metrics and reports, without their code (no numpy, no scipy): what
checking a task file needs before a run starts. The metrics themselves are entry points of the
group ``debench.metrics`` (debench's own in its ``pyproject.toml``; ``debench.metrics.base.METRICS``),
whose names are known without importing anything either."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

STATUS_METRICS = {
    "parse_failure_rate": "share of answered samples whose answer could not be parsed",
    "completion_rate": "share of samples whose prompt fit the model's context window",
}
"""Rates computed from the samples' statuses rather than from predictions (see ``debench.scoring.scores``)."""

BUILTIN_REPORTS = frozenset(
    {"prediction_distribution", "gold_distribution", "human_rating_distribution", "mean_by_source"}
)
"""The reports ``debench.metrics.reports`` registers."""

ALT_TEST_METRICS = frozenset({"alt_test_winning_rate", "advantage_probability"})
"""Metrics of the alternative annotator test: a task scoring one also gets the ``alt_test`` report
(its settings, verdict and per-annotator rows; ``debench.metrics.alt_test``)."""

HUMAN_REFERENCE_FOR = {
    "kappa_human": "kappa_loo",
    "krippendorff_alpha_human": "krippendorff_alpha",
}
"""Metrics that measure the humans against each other, and the judge metric each is the yardstick
for; ``<metric>_human`` beside ``<metric>`` is one too."""


def is_human_reference(name: str, names: Iterable[str]) -> bool:
    """``name`` measures the humans, not the judge (``HUMAN_REFERENCE_FOR``, or ``<m>_human`` beside ``<m>``)."""
    return name in HUMAN_REFERENCE_FOR or (name.endswith("_human") and name[: -len("_human")] in set(names))


def judge_metrics(names: Sequence[str]) -> list[str]:
    """The metrics of ``names`` that measure the judge (the human–human references left out), in order."""
    return [n for n in names if not is_human_reference(n, names)]


def primary_metric(names: Sequence[str]) -> str | None:
    """The metric a task's judges are compared and ranked by — the one definition the group summary,
    the leaderboard's ranking and its comparisons use: the first of ``names`` (the task file's order)
    that measures the judge and is not a status rate (``STATUS_METRICS``); None when there is none (a
    task of status rates only has nothing to rank by: the leaderboard refuses it)."""
    return next((n for n in judge_metrics(names) if n not in STATUS_METRICS), None)
