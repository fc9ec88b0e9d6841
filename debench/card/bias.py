"""Bias audit: the flip rates of ``debench probe``'s order and length probes, and, for speech
ratings, whether the judge's score follows the speech's length more than the humans' does.

Flip rates (and the probes' own effects) are the probe report's own numbers. Verbosity is Kendall's
tau-c (the task's ``kendall_tau_c``, by ``eval``'s scoring) between a score and the speech's number
of words: the judge's scores from the run's samples, beside the humans' mean ratings.
"""

from __future__ import annotations

from debench.card.evidence import Evidence
from debench.card.model import BiasRow, Named, Number, Status
from debench.card.thresholds import FLIP_LIMIT, VERBOSITY_MARGIN
from debench.core.numeric import fmt_estimate
from debench.data.samples import SampleRecord
from debench.probes.report import ProbeSummary
from debench.scoring.scores import score
from debench.task.config import MetricConfig

TAU = "kendall_tau_c"


def _flip_judged(flip: Number) -> tuple[Status, str]:
    if flip.value is None:
        return "not_measured", "no pair had both verdicts parsed"
    shown = f"flip rate {fmt_estimate(flip.value, flip.ci95)} over {flip.n} debates"
    if flip.ci95 is not None and flip.ci95[0] > FLIP_LIMIT:
        return "fail", f"{shown}: above {FLIP_LIMIT} beyond doubt"
    if flip.value > FLIP_LIMIT:
        return "warn", f"{shown}: above {FLIP_LIMIT}"
    return "pass", shown


def probe_row(task: str, summary: ProbeSummary) -> BiasRow:
    flip = Number.of(summary.flip_rate)
    status, reason = _flip_judged(flip)
    effect = summary.effect
    return BiasRow(
        task=task,
        status=status,
        reason=f"{summary.probe}: {reason}",
        probe=summary.probe,
        measure="flip rate",
        value=flip,
        effect=None if effect is None else Named(name=effect.name, number=Number.of(effect.rate)),
    )


def length_tau(ev: Evidence, predictions: dict[str, SampleRecord]) -> Number:
    """Kendall's tau-c between the predictions and each speech's number of words, with its CI."""
    by_length = [d.model_copy(update={"target": sum(len(s.text.split()) for s in d.speeches)}) for d in ev.docs]
    variant = ev.task.model_copy(update={"metrics": [MetricConfig(name=TAU)], "reports": []})
    return Number.of(score(variant, by_length, predictions, n_bootstrap=ev.n_bootstrap).metrics[TAU])


def verbosity_row(ev: Evidence) -> BiasRow:
    judge = length_tau(ev, ev.records(ev.results, ev.runs.results))
    humans = {d.doc_id: SampleRecord(doc_id=d.doc_id, status="ok", prediction=d.target) for d in ev.docs}
    human = length_tau(ev, humans)
    measure = "Kendall's tau-c of the score with the speech's words"
    if judge.value is None or human.value is None:
        status: Status = "not_measured"
        reason = f"verbosity: undefined ({judge.note or human.note})"
    else:
        shown = f"verbosity: tau-c with length {fmt_estimate(judge.value, judge.ci95)}, humans {human.value:.2f}"
        low = judge.ci95[0] if judge.ci95 else judge.value
        status, reason = (
            ("warn", f"{shown}: follows length more") if low > human.value + VERBOSITY_MARGIN else ("pass", shown)
        )
    return BiasRow(
        task=ev.task.name,
        status=status,
        reason=reason,
        probe="verbosity",
        measure=measure,
        value=judge,
        reference=Named(name="humans' mean rating", number=human),
    )


def bias_rows(ev: Evidence) -> list[BiasRow]:
    """One row per probe of the probe report, and a verbosity row for a speech-rating task; a
    ``not_measured`` row when neither applies."""
    rows = [probe_row(ev.task.name, s) for s in ev.probes.probes.values()] if ev.probes is not None else []
    if any(m.name == TAU for m in ev.task.metrics):
        rows.append(verbosity_row(ev))
    if not rows:
        reason = ev.runs.absent.get("bias", "no probe report (debench probe)")
        rows.append(
            BiasRow(
                task=ev.task.name,
                status="not_measured",
                reason=reason,
                probe="none",
                measure="flip rate",
                value=Number(value=None, n=0),
            )
        )
    return rows
