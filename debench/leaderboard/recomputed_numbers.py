"""A results file's numbers against their recomputation from its samples.

Every metric (value, 95% CI, n), the sample counts and the reports must equal what the installed
task computes from the samples; a re-scored run (the task's scoring side changed since it,
``debench.leaderboard.task_binding``) is held only to the metrics scored as they are now and to the
counts. Numbers are compared by ``debench.core.numeric``.
"""

from __future__ import annotations

import json
from pathlib import Path

from debench.core.numeric import close, same, shown
from debench.leaderboard.files import refusal
from debench.scoring.results import Results
from debench.scoring.scores import MetricValue, ScoreReport


def differs(theirs: MetricValue, mine: MetricValue) -> str | None:
    """The first field (value, ci95, n) in which a claimed metric differs from its recomputation."""
    if not close(theirs.value, mine.value):
        return "value"
    if (theirs.ci95 is None) != (mine.ci95 is None) or (
        theirs.ci95 is not None
        and mine.ci95 is not None
        and not all(close(a, b) for a, b in zip(theirs.ci95, mine.ci95, strict=True))
    ):
        return "ci95"
    return "n" if theirs.n != mine.n else None


def check_numbers(results: Results, report: ScoreReport, path: Path, checked: set[str], rescored: bool) -> None:
    """The file's numbers against the recomputation: every metric and report, or (``rescored``)
    only the ``checked`` metrics and the counts."""
    if not rescored:
        _check_metric_names(results, report, path)
    _check_metrics(results, report, path, checked)
    _check_counts(results, report, path)
    if not rescored:
        _check_reports(results, report, path)


def _check_metric_names(results: Results, report: ScoreReport, path: Path) -> None:
    claimed, recomputed = set(results.metrics), set(report.metrics)
    for name in sorted(recomputed - claimed):
        raise refusal(path, f"metrics.{name}", "missing: the task reports this metric")
    for name in sorted(claimed - recomputed):
        raise refusal(path, f"metrics.{name}", "not a metric of this task")


def _check_metrics(results: Results, report: ScoreReport, path: Path, checked: set[str]) -> None:
    for name, mine in report.metrics.items():
        if name not in checked or name not in results.metrics:
            continue
        theirs = results.metrics[name]
        field = differs(theirs, mine)
        if field is not None:
            raise refusal(
                path,
                f"metrics.{name}.{field}",
                f"{shown(getattr(theirs, field))} does not match "
                f"{shown(getattr(mine, field))} recomputed from the samples",
            )


def _check_counts(results: Results, report: ScoreReport, path: Path) -> None:
    for name in ("n_samples", "n_parse_failures", "n_errors", "n_not_completed"):
        a, b = getattr(results, name), getattr(report, name)
        if a != b:
            raise refusal(path, name, f"{a} does not match {b} counted in the samples")


def _check_reports(results: Results, report: ScoreReport, path: Path) -> None:
    for name, mine in report.reports.items():
        if not same(results.reports.get(name), json.loads(json.dumps(mine))):
            raise refusal(path, f"reports.{name}", "does not match the report recomputed from the samples")
    for name in sorted(set(results.reports) - set(report.reports)):
        raise refusal(path, f"reports.{name}", "not a report of this task")
