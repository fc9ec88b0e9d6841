"""Replaceability: the alternative annotator test (``debench.metrics.alt_test``) at an epsilon chosen
by the annotators' agreement, beside a constant baseline's result at the same epsilon.

The epsilon of a task file describes its annotators' profile (Calderon et al.: 0.2 experts, 0.15
skilled annotators, 0.1 crowd-workers). The paper adds that a smaller epsilon suits annotators who
agree little; the card halves the task's epsilon when their ``kappa_human`` is below 0.40 (on the
IBM speeches, 0.271: 0.05 instead of 0.1), and says so. At the task's epsilon the numbers are the
results file's own; at another, the run's samples are scored again by the same alt-test. A
constant judge (``baseline/majority``, "always 4") is tested beside the judge: on noisy single
ratings it passes too, and the test then cannot tell the two apart.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from debench.card.evidence import Evidence
from debench.card.model import AltTest, Epsilon, Named, Number, ReplaceabilityRow, Status
from debench.card.thresholds import LOW_AGREEMENT_EPSILON_FACTOR, LOW_ANNOTATOR_KAPPA
from debench.metrics.params import DEFAULT_EPSILON
from debench.scoring.results import Results
from debench.scoring.scores import MetricValue, alt_test_args
from debench.task.config import MetricConfig

CONSTANT_BASELINE = "baseline/majority"


def choose_epsilon(task_epsilon: float, kappa_human: MetricValue | None) -> Epsilon:
    agreement = None if kappa_human is None else Named(name="kappa_human", number=Number.of(kappa_human))
    if kappa_human is None or kappa_human.value is None:
        why = "the annotators' agreement is unknown on these documents"
        if kappa_human is not None and kappa_human.note:
            why += f" ({kappa_human.note})"
        return Epsilon(value=task_epsilon, task_value=task_epsilon, agreement=agreement, why=why + ": the task's")
    if kappa_human.value < LOW_ANNOTATOR_KAPPA:
        value = round(task_epsilon * LOW_AGREEMENT_EPSILON_FACTOR, 6)
        why = (
            f"the annotators agree little (kappa_human {kappa_human.value:.3f} < {LOW_ANNOTATOR_KAPPA}): half the "
            f"task's {task_epsilon:g}, as Calderon et al. advise a smaller epsilon when agreement is low"
        )
        return Epsilon(value=value, task_value=task_epsilon, agreement=agreement, why=why)
    why = f"the annotators agree (kappa_human {kappa_human.value:.3f} >= {LOW_ANNOTATOR_KAPPA}): the task's"
    return Epsilon(value=task_epsilon, task_value=task_epsilon, agreement=agreement, why=why)


def alt_test_of(metrics: dict[str, MetricValue], report: dict[str, Any], epsilon: float) -> AltTest:
    """The alt-test as a results file (or a scoring) holds it: its metrics and its ``alt_test`` report."""
    omega = metrics.get("alt_test_winning_rate")
    rho = metrics.get("advantage_probability")
    return AltTest(
        epsilon=epsilon,
        winning_rate=omega.value if omega is not None else report.get("winning_rate"),
        advantage_probability=Number.of(rho) if rho is not None else Number(value=None, n=0),
        passed=report.get("passed"),
        n_annotators=int(report.get("n_annotators", 0)),
        note=report.get("note"),
    )


def _at(ev: Evidence, results: Results, path: Path, args: dict[str, Any], epsilon: float) -> AltTest:
    """The alt-test of one run at ``epsilon``: the results file's own at the task's epsilon."""
    if epsilon == float(args.get("epsilon", DEFAULT_EPSILON)):
        return alt_test_of(results.metrics, results.reports.get("alt_test", {}), epsilon)
    metrics = [
        MetricConfig(name=n, args={**args, "epsilon": epsilon})
        for n in ("alt_test_winning_rate", "advantage_probability")
    ]
    rescored = ev.rescored(results, path, metrics)
    return alt_test_of(rescored.metrics, rescored.reports.get("alt_test", {}), epsilon)


def _judged(judge: AltTest, constant: AltTest | None, constant_name: str | None) -> tuple[Status, str]:
    eps = f"at epsilon {judge.epsilon:g}"
    if judge.passed is None:
        return "not_measured", judge.note or "the alt-test is undefined on these documents"
    omega = f"omega {judge.winning_rate:.2f}" if judge.winning_rate is not None else "omega undefined"
    if not judge.passed:
        return "fail", f"{omega} < 0.5 {eps}: it beats fewer than half of the annotators"
    if constant is not None and constant.passed:
        return "warn", f"{omega} passes {eps}, but so does {constant_name} (omega {constant.winning_rate:.2f})"
    return "pass", f"{omega} passes {eps}" + ("" if constant is None else f"; {constant_name} does not")


def replaceability_row(ev: Evidence) -> ReplaceabilityRow | None:
    """None when the task does not score the alt-test (no several named annotators)."""
    args = alt_test_args(ev.task)
    if args is None:
        return None
    task_epsilon = float(args.get("epsilon", DEFAULT_EPSILON))
    epsilon = choose_epsilon(task_epsilon, ev.results.metrics.get("kappa_human"))
    judge_path = ev.runs.results
    at_task = _at(ev, ev.results, judge_path, args, task_epsilon)
    if at_task.passed is None:  # undefined at any epsilon (too few annotators with enough documents)
        at_card = at_task.model_copy(update={"epsilon": epsilon.value})
    else:
        at_card = _at(ev, ev.results, judge_path, args, epsilon.value)
    constant_name = CONSTANT_BASELINE if CONSTANT_BASELINE in ev.baselines else None
    constant = None
    if constant_name is not None and at_card.passed is not None:
        results, path = ev.baselines[constant_name]
        constant = _at(ev, results, path, args, epsilon.value)
    status, reason = _judged(at_card, constant, constant_name)
    return ReplaceabilityRow(
        task=ev.task.name,
        status=status,
        reason=reason,
        epsilon=epsilon,
        at_task_epsilon=at_task,
        at_card_epsilon=at_card,
        constant_baseline=constant_name,
        constant_at_card_epsilon=constant,
    )
