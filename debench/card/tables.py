"""What a person reads of a card: each section as a table of text cells, the same for ``card.md``
and ``card.html`` (``card.page``) and for the two cards of ``--compare`` (``card.compare``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from debench.card.model import (
    AgreementRow,
    AltTest,
    BiasRow,
    ConsistencyRow,
    CostRow,
    Criterion,
    JudgeCard,
    MemorizationRow,
    Named,
    Number,
    ReplaceabilityRow,
    Row,
)
from debench.core.numeric import fmt_estimate


@dataclass
class Table:
    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)


@dataclass
class Section:
    name: str
    status: str
    question: str
    reason: str
    advice: str
    thresholds: list[tuple[str, str]]
    table: Table


def num(n: Number | None) -> str:
    """``0.27 [0.24, 0.30] (n=631)``, or ``—`` with why."""
    if n is None:
        return "—"
    if n.value is None:
        return "—" + (f" ({n.note})" if n.note else "")
    return f"{fmt_estimate(n.value, n.ci95)} (n={n.n})"


def named(m: Named | None) -> str:
    return "—" if m is None else f"{m.name} {num(m.number)}"


def alt(a: AltTest | None) -> str:
    if a is None:
        return "—"
    if a.passed is None:
        return f"undefined at ε {a.epsilon:g}" + (f" ({a.note})" if a.note else "")
    verdict = "passes" if a.passed else "fails"
    omega = "—" if a.winning_rate is None else f"{a.winning_rate:.2f}"
    return f"ω {omega}, ρ {num(a.advantage_probability)}: {verdict} at ε {a.epsilon:g}"


def _agreement(r: AgreementRow) -> list[str]:
    base = "; ".join(f"{name}: " + ", ".join(named(m) for m in ms) for name, ms in r.baselines.items())
    return [named(r.primary), named(r.chance_corrected), named(r.human_level), base or "—"]


def _replaceability(r: ReplaceabilityRow) -> list[str]:
    constant = f"{r.constant_baseline}: {alt(r.constant_at_card_epsilon)}" if r.constant_baseline else "—"
    return [f"{r.epsilon.value:g} ({r.epsilon.why})", alt(r.at_task_epsilon), alt(r.at_card_epsilon), constant]


def _consistency(r: ConsistencyRow) -> list[str]:
    temperature = "—" if r.temperature is None else f"{r.temperature:g}"
    return ["—" if r.repeats is None else str(r.repeats), temperature, num(r.agreement)]


def _bias(r: BiasRow) -> list[str]:
    return [r.probe, f"{r.measure} {num(r.value)}", named(r.reference), named(r.effect)]


def _memorization(r: MemorizationRow) -> list[str]:
    majority = "—" if r.majority_label is None else f"'{r.majority_label}' {num(r.majority_accuracy)}"
    p = "—" if r.p_value is None else f"{r.p_value:.2g}"
    return [num(r.accuracy), majority, p, num(r.full_transcript_accuracy)]


def _cost(r: CostRow) -> list[str]:
    def per(x: float | None, spec: str) -> str:
        return "—" if x is None else format(x, spec)

    return [str(r.n_samples), per(r.prompt_tokens_per_doc, ",.0f"), per(r.completion_tokens_per_doc, ",.0f"),
            per(r.usd_per_doc, ".5f")]  # fmt: skip


COLUMNS: dict[str, tuple[list[str], Callable[[Any], list[str]]]] = {
    "agreement": (["primary metric", "chance-corrected", "human–human", "baselines"], _agreement),
    "replaceability": (["card's ε (why)", "at the task's ε (eval)", "at the card's ε", "constant baseline"],
                       _replaceability),
    "consistency": (["repeats", "temperature", "test–retest agreement"], _consistency),
    "bias": (["probe", "value", "reference", "probe's effect"], _bias),
    "memorization": (["accuracy, metadata only", "majority label", "one-sided p", "accuracy, full transcripts"],
                     _memorization),
    "cost": (["documents", "prompt tokens / doc", "completion tokens / doc", "$ / doc"], _cost),
}  # fmt: skip
"""Per section: the columns between "task" and "status", and how a row fills them."""


def section_view(c: Criterion[Any]) -> Section:
    headers, cells = COLUMNS[c.name]
    rows: Sequence[Row] = c.rows
    table = Table(["task", *headers, "status", "why"], [[r.task, *cells(r), r.status, r.reason] for r in rows])
    return Section(
        name=c.name,
        status=c.status,
        question=c.question,
        reason=c.reason,
        advice=c.advice,
        thresholds=[(t.rule, t.source) for t in c.thresholds],
        table=table,
    )


def sections(card: JudgeCard) -> list[Section]:
    c = card.criteria
    return [section_view(s) for s in (c.agreement, c.replaceability, c.consistency, c.bias, c.memorization, c.cost)]


def scope(card: JudgeCard) -> str:
    """Which tasks, methods and documents the card covers."""
    tasks = ", ".join(f"{t} ({card.methods.get(t, '?')})" for t in card.tasks)
    docs = "all documents" if card.limit is None else f"the first {card.limit} documents"
    sample = " — SAMPLE DATA, not the real data sets" if card.is_sample else ""
    return f"{tasks}; {docs}{sample}"
