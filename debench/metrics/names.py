"""The names of debench's status metrics and reports, without their code (no numpy, no scipy): what
checking a task file needs before a run starts. The metrics themselves are entry points of the
group ``debench.metrics`` (debench's own in its ``pyproject.toml``; ``debench.metrics.base.METRICS``),
whose names are known without importing anything either."""

from __future__ import annotations

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
