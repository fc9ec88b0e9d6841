"""Agreement: the task's primary metric and a chance-corrected one, beside the human-human level and
the baselines on the same documents.

The chance-corrected metric is the task's ``kappa_loo`` where it scores one (speech ratings, with
``kappa_human`` as the human level), else ``cohen_kappa`` for a task whose verdicts are labels,
computed from the run's samples by the same scoring as ``eval``; tasks predicting rankings or scores
have none, and their primary metric is compared instead. Every number but ``cohen_kappa`` is the
results file's own.
"""

from __future__ import annotations

from pathlib import Path

from debench.card.evidence import Evidence
from debench.card.model import AgreementRow, Named, Number, Status
from debench.card.thresholds import MODERATE_KAPPA
from debench.core.numeric import fmt_estimate
from debench.metrics.base import get_metric
from debench.scoring.group_summary import primary_metric
from debench.scoring.results import Results
from debench.task.config import MetricConfig


def _named(name: str, value: object) -> Named:
    return Named(name=name, number=Number.of(value), higher_is_better=get_metric(name).higher_is_better)


def primary(results: Results) -> Named | None:
    p = primary_metric(results)
    if p is None:
        return None
    return Named(name=p.name, number=Number.of(results.metrics[p.name]), higher_is_better=p.higher_is_better)


def chance_corrected(ev: Evidence, results: Results, path: Path) -> Named | None:
    """``kappa_loo`` from the results, or ``cohen_kappa`` computed for a label task, or None."""
    if "kappa_loo" in results.metrics:
        return _named("kappa_loo", results.metrics["kappa_loo"])
    parser = ev.task.parser
    if parser.type == "str" and parser.choices:
        rescored = ev.rescored(results, path, [MetricConfig(name="cohen_kappa")])
        return _named("cohen_kappa", rescored.metrics["cohen_kappa"])
    return None


def show(named: Named) -> str:
    n = named.number
    return f"{named.name} {fmt_estimate(n.value, n.ci95)}"


def beats(judge: Named, value: float) -> bool:
    """The judge is clearly better than ``value``: its 95% CI (else its value) lies beyond it."""
    n = judge.number
    assert n.value is not None
    if judge.higher_is_better:
        return (n.ci95[0] if n.ci95 else n.value) > value
    return (n.ci95[1] if n.ci95 else n.value) < value


def _judged(measure: Named, baselines: dict[str, Named], human: Named | None) -> tuple[Status, str]:
    if measure.number.value is None:
        return "not_measured", f"{measure.name} is undefined ({measure.number.note or 'no value'})"
    defined = {name: b.number.value for name, b in baselines.items() if b.number.value is not None}
    if defined:
        pick = max if measure.higher_is_better else min
        best = pick(defined, key=defined.__getitem__)
        if not beats(measure, defined[best]):
            return "fail", f"{show(measure)} is not clearly better than {best}'s {defined[best]:.3f}"
    against = f"better than every baseline ({', '.join(sorted(defined))})" if defined else "no baseline to compare"
    top = measure.number.ci95[1] if measure.number.ci95 else measure.number.value
    if human is not None and human.number.value is not None:
        if top < human.number.value:
            return "warn", f"{show(measure)}: {against}, below the humans' {human.number.value:.3f}"
        return "pass", f"{show(measure)}: {against}, at the humans' level ({human.number.value:.3f})"
    if measure.name in ("kappa_loo", "cohen_kappa") and measure.number.value < MODERATE_KAPPA:
        return "warn", f"{show(measure)}: {against}, below {MODERATE_KAPPA} (no human-human level here)"
    return "pass", f"{show(measure)}: {against}"


def agreement_row(ev: Evidence) -> AgreementRow:
    judge = primary(ev.results)
    if judge is None:
        return AgreementRow(
            task=ev.task.name,
            status="not_measured",
            reason="the task scores no agreement metric",
            primary=Named(name="none", number=Number(value=None, n=0)),
            chance_corrected=None,
            human_level=None,
            baselines={},
        )
    corrected = chance_corrected(ev, ev.results, ev.runs.results)
    human = _named("kappa_human", ev.results.metrics["kappa_human"]) if "kappa_human" in ev.results.metrics else None
    others = {name: run for name, run in ev.baselines.items() if name != ev.model_name}
    table: dict[str, list[Named]] = {}
    for name, (results, path) in others.items():
        table[name] = [m for m in (primary(results), chance_corrected(ev, results, path)) if m is not None]
    measure = corrected if corrected is not None else judge
    compared = {name: m for name, ms in table.items() for m in ms if m.name == measure.name}
    status, reason = _judged(measure, compared, human)
    return AgreementRow(
        task=ev.task.name,
        status=status,
        reason=reason,
        primary=judge,
        chance_corrected=corrected,
        human_level=human,
        baselines=table,
    )
