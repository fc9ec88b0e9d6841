"""Every threshold a card holds a judge to, with its source, and what a user should do at each status.

docs/studies.md ("A judge card") explains the same numbers; a test holds the two together. A
section's status is the worst of its rows (``section``); ``not_measured`` rows count only when no
row was measured.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from debench.card.model import RANK, Criterion, R, Status, Threshold

NORMAN = "Norman, Rivera & Hughes (2026), Reliability without Validity, arXiv 2606.19544"
CALDERON = "Calderon, Reichart & Dror (ACL 2025), The Alternative Annotator Test for LLM-as-a-Judge"
LANDIS_KOCH = "Landis & Koch (1977): kappa of 0.41-0.60 is 'moderate' agreement, 0.21-0.40 'fair'"

MODERATE_KAPPA = 0.41
"""Without a human-human level, a chance-corrected agreement below this is a warning."""
LOW_ANNOTATOR_KAPPA = 0.40
"""Annotators agreeing below this ('fair' or worse) get half the task file's epsilon."""
LOW_AGREEMENT_EPSILON_FACTOR = 0.5
FLIP_LIMIT = 0.10
"""A verdict that changes under a change of order or length in more than this share of debates."""
RETEST_PASS = 0.95
RETEST_FAIL = 0.80
VERBOSITY_MARGIN = 0.10
"""How much more the judge's score may follow a speech's length than the humans' does."""
ALPHA = 0.05
"""The level of the memorization probe's one-sided test (the alt-test's alpha)."""


@dataclass(frozen=True)
class Spec:
    """One criterion: its question, thresholds and, per status, what to do."""

    name: str
    question: str
    thresholds: tuple[Threshold, ...]
    advice: dict[Status, str]


AGREEMENT = Spec(
    "agreement",
    "Does the judge agree with the human labels, beyond chance and beyond judges that read no argument?",
    (
        Threshold(
            rule="fail: the chance-corrected agreement (kappa_loo for ratings, cohen_kappa for verdicts; else the "
            "primary metric) is not clearly better than the best baseline's: its 95% CI reaches that value",
            source="debench: the papers report baselines beside every judge (Debatrix, Debatable Intelligence); "
            f"chance-corrected because raw agreement overstates quality ({NORMAN}: kappa 33-41 points below exact "
            "match)",
        ),
        Threshold(
            rule="warn: better than the baselines but below the human-human level (its CI's upper bound under "
            f"kappa_human) or, where the task has none, a kappa below {MODERATE_KAPPA}; pass: otherwise",
            source=f"the human-human level of the task's annotators (Debatable Intelligence); {LANDIS_KOCH}",
        ),
    ),
    {
        "pass": "It agrees with the human labels as the humans agree with each other: use it, and report kappa.",
        "warn": "It beats the baselines but not the human level: use it for rankings of many debates, not "
        "single verdicts, and report the chance-corrected number, not raw accuracy.",
        "fail": "Do not use it to judge these debates: it does no better than a judge that reads no argument.",
        "not_measured": "Run eval on a task with gold labels (ibm_speech_likert, debateart_winner, bp_top_team).",
    },
)

REPLACEABILITY = Spec(
    "replaceability",
    "May the judge replace one human annotator (the alternative annotator test)?",
    (
        Threshold(
            rule="pass: the alt-test passes (omega >= 0.5) at the card's epsilon and a constant baseline does not; "
            "warn: both pass (the test cannot tell the judge from a constant one); fail: the judge does not pass",
            source=CALDERON,
        ),
        Threshold(
            rule="epsilon: the task file's (its annotators' profile: 0.2 experts, 0.15 skilled, 0.1 crowd-workers), "
            f"halved when the annotators' kappa_human is below {LOW_ANNOTATOR_KAPPA}",
            source=f"{CALDERON}: 'when inter-annotator agreement is low, a smaller epsilon'; the halving and the "
            f"bound are debench's ({LANDIS_KOCH})",
        ),
    ),
    {
        "pass": "It may stand in for one annotator of these ratings.",
        "warn": "Read agreement instead: single ratings here are so noisy that a constant judge passes the test too.",
        "fail": "Keep human raters: it cannot stand in for one of them.",
        "not_measured": "The test needs a task with three or more named annotators (ibm_speech_likert), on enough "
        "documents (30 or more per annotator).",
    },
)

CONSISTENCY = Spec(
    "consistency",
    "Does the judge give the same verdict when asked again?",
    (
        Threshold(
            rule=f"pass: test-retest agreement >= {RETEST_PASS}; warn: >= {RETEST_FAIL}; fail: below {RETEST_FAIL}",
            source=f"{NORMAN} (above {RETEST_PASS}: high test-retest reliability); the {RETEST_FAIL} floor is "
            "debench's",
        ),
    ),
    {
        "pass": "Its verdicts are stable across reruns.",
        "warn": "Some verdicts change on a rerun: take the majority of several runs (eval --repeats).",
        "fail": "Its verdicts change too often on a rerun: take the majority of several runs or lower its temperature.",
        "not_measured": "Run the card with --repeats 2 or more and a temperature above 0 (or --force at 0).",
    },
)

BIAS = Spec(
    "bias",
    "Does the verdict follow the speaking order, the labels or the length instead of the content?",
    (
        Threshold(
            rule=f"per probe (swap_sides, relabel_teams, pad_length, trim_length): fail when the flip rate's 95% CI "
            f"lies above {FLIP_LIMIT}, warn when the flip rate is above {FLIP_LIMIT}, pass otherwise",
            source=f"{NORMAN} (position bias above {FLIP_LIMIT}: severe); the same bound for length is debench's",
        ),
        Threshold(
            rule="verbosity (speech ratings): warn when Kendall's tau-c of the judge's score with the speech's "
            f"length exceeds the humans' by more than {VERBOSITY_MARGIN} (its CI's lower bound)",
            source="debench: the humans' own correlation with length is the reference",
        ),
    ),
    {
        "pass": "No sign that the verdicts follow order or length.",
        "warn": "Some verdicts follow order or length: judge each debate in both orders and read the probe pairs.",
        "fail": "Its verdicts follow the order or the length: judge each debate in both orders and average, or choose "
        "another judge.",
        "not_measured": "Bias probes need a task whose verdict names a side (debateart_winner, bp_top_team).",
    },
)

MEMORIZATION = Spec(
    "memorization",
    "Does the judge know who won these public debates without reading them?",
    (
        Threshold(
            rule=f"metadata only (motion, debaters, site, rounds; no speech): warn when the accuracy is above the "
            f"majority label's (one-sided exact binomial test, p < {ALPHA}); fail when, moreover, it reaches the "
            "lower bound of the judge's accuracy with the full transcripts",
            source=f"debench; the test's level is the alt-test's alpha ({CALDERON})",
        ),
    ),
    {
        "pass": "No sign that it knows these debates' outcomes.",
        "warn": "It names winners above chance without the speeches: its scores on these tasks partly measure "
        "recall; check it on debates it cannot have seen.",
        "fail": "Its scores on these tasks measure what it remembers: judge it on debates it cannot have seen (your "
        "own, or newer than its training data).",
        "not_measured": "The probe applies to the public debate tasks (debateart_*, bp_top_team).",
    },
)

COST = Spec(
    "cost",
    "What does one judged document cost?",
    (Threshold(rule="none: reported, not judged", source="the run's own token counts and the provider's prices"),),
    {
        "info": "Weigh it against the other sections.",
        "not_measured": "No run to count.",
    },
)


def worst(statuses: Sequence[Status]) -> Status:
    """The worst status; ``not_measured`` when there is none (or only ``info`` and ``not_measured``)."""
    judged = [s for s in statuses if s in ("pass", "warn", "fail")]
    if judged:
        return max(judged, key=lambda s: RANK[s])
    return "info" if "info" in statuses else "not_measured"


def section(kind: type[Criterion[R]], spec: Spec, rows: list[R], empty: str) -> Criterion[R]:
    """The criterion (``kind``: ``Criterion[<its row type>]``) with its rows: the worst row's status,
    and the reasons of the rows at it; ``empty``: the reason when there is no row."""
    status = worst([r.status for r in rows])
    tasks_by_reason: dict[str, list[str]] = {}
    for r in rows:
        if r.status == status:
            tasks_by_reason.setdefault(r.reason, []).append(r.task)
    reason = "; ".join(f"{', '.join(dict.fromkeys(t))}: {why}" for why, t in tasks_by_reason.items()) or empty
    return kind(
        name=spec.name,
        question=spec.question,
        thresholds=list(spec.thresholds),
        status=status,
        reason=reason,
        advice=spec.advice.get(status, ""),
        rows=rows,
    )
