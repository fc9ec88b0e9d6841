"""The names of debench's metrics and reports, without their code (no numpy, no scipy): what
checking a task file needs before a run starts. ``debench.metrics.base.METRICS`` is built from
``BUILTIN``; tests keep both lists true (every module registers exactly the names declared here)."""

from __future__ import annotations

BUILTIN: dict[str, tuple[str, ...]] = {
    "debench.metrics.speech_rating": ("kendall_tau_c", "krippendorff_alpha", "krippendorff_alpha_human", "source_pearson"),
    "debench.metrics.kappa": ("kappa_loo", "kappa_human"),
    "debench.metrics.classification": ("rmse", "accuracy", "macro_f1"),
    "debench.metrics.alt_test": ("alt_test_winning_rate", "advantage_probability"),
    "debench.metrics.debatebench": ("verdict_delta", "mae", *(f"acc_within_{k}" for k in range(2, 10)), "rank_delta"),
}
"""Module -> the metric names it registers when imported."""

BUILTIN_NAMES = frozenset(name for names in BUILTIN.values() for name in names)

STATUS_METRICS = {
    "parse_failure_rate": "share of answered samples whose answer could not be parsed",
    "completion_rate": "share of samples whose prompt fit the model's context window",
}
"""Rates computed from the samples' statuses rather than from predictions (see ``debench.scoring``)."""

BUILTIN_REPORTS = frozenset({"prediction_distribution", "gold_distribution", "human_rating_distribution", "mean_by_source"})
"""The reports ``debench.metrics.reports`` registers."""

ALT_TEST_METRICS = frozenset(BUILTIN["debench.metrics.alt_test"])
"""Metrics of the alternative annotator test: a task scoring one also gets the ``alt_test`` report
(its settings, verdict and per-annotator rows; ``debench.metrics.alt_test``)."""
