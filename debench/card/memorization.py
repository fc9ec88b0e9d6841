"""Memorization: the memorization probe's accuracy from the metadata only (``probes.memorization``),
beside the majority label's and the judge's accuracy with the full transcripts (``eval``)."""

from __future__ import annotations

from debench.card.evidence import Evidence
from debench.card.model import MemorizationRow, Number, Status
from debench.card.thresholds import ALPHA
from debench.core.numeric import fmt_estimate
from debench.probes.memorization import MemorizationReport


def _judged(report: MemorizationReport, full: Number | None) -> tuple[Status, str]:
    acc, base = report.accuracy, report.majority_accuracy
    if acc.value is None or report.p_value is None:
        return "not_measured", "no metadata-only verdict parsed"
    shown = (
        f"accuracy without the speeches {fmt_estimate(acc.value, acc.ci95)} (n={acc.n}), "
        f"majority label '{report.majority_label}' {base.value or 0:.2f}, one-sided p = {report.p_value:.2g}"
    )
    if report.p_value >= ALPHA:
        return "pass", shown
    floor = None if full is None or full.value is None else (full.ci95[0] if full.ci95 else full.value)
    if floor is not None and acc.value >= floor:
        return (
            "fail",
            f"{shown}; with the speeches it does no better ({fmt_estimate(full.value, full.ci95) if full else ''})",
        )
    return "warn", shown


def memorization_row(ev: Evidence) -> MemorizationRow:
    report = ev.memorization
    full = Number.of(ev.results.metrics["accuracy"]) if "accuracy" in ev.results.metrics else None
    if report is None:
        reason = ev.runs.absent.get("memorization", "no memorization report")
        empty = Number(value=None, n=0)
        return MemorizationRow(
            task=ev.task.name,
            status="not_measured",
            reason=reason,
            accuracy=empty,
            majority_label=None,
            majority_accuracy=empty,
            full_transcript_accuracy=full,
            p_value=None,
        )
    status, reason = _judged(report, full)
    return MemorizationRow(
        task=ev.task.name,
        status=status,
        reason=reason,
        accuracy=Number.of(report.accuracy),
        majority_label=report.majority_label,
        majority_accuracy=Number.of(report.majority_accuracy),
        full_transcript_accuracy=full,
        p_value=report.p_value,
    )
