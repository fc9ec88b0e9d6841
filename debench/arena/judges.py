"""Several judges on the same debates (pure functions): grouping, the panel's majority verdicts,
inter-judge agreement (Krippendorff's alpha, nominal, topic-bootstrap CI) and pairwise comparisons."""

from __future__ import annotations

import warnings
from collections import Counter
from collections.abc import Sequence
from itertools import combinations

import numpy as np

from debench.arena.judgments import Judgment
from debench.arena.outcomes import ranked_legs
from debench.arena.ranking_distance import kendall_tau_distance
from debench.arena.ranking_file import Alpha, JudgePair, JudgeRanking
from debench.arena.topic_bootstrap import percentile_ci, topic_resamples
from debench.metrics.bootstrap import wilson_ci

Debate = tuple[str, str, str]
VERDICT_CODES = (0, 1, 2)  # tie, side 1, side 2


def by_judge(judgments: Sequence[Judgment]) -> dict[str, list[Judgment]]:
    """Each judge's verdicts, judges in order of first appearance."""
    out: dict[str, list[Judgment]] = {}
    for j in judgments:
        out.setdefault(j.judge_label, []).append(j)
    return out


def majority_verdict(winners: Sequence[int | None]) -> int | None:
    """The most frequent verdict; a tie when the top count is shared (or is the tie itself)."""
    counts = Counter(winners).most_common()
    if len(counts) > 1 and counts[0][1] == counts[1][1]:
        return None
    return counts[0][0]


def panel_verdicts(judgments: Sequence[Judgment]) -> list[Judgment]:
    """One judgment per debate carrying the judges' majority verdict (scores and reason dropped;
    words and sources from the first line that has them)."""
    grouped: dict[Debate, list[Judgment]] = {}
    for j in judgments:
        grouped.setdefault(j.debate, []).append(j)
    out = []
    for lines in grouped.values():
        first = lines[0]
        extra = {
            f: next((getattr(j, f) for j in lines if getattr(j, f) is not None), None)
            for f in ("side1_words", "side2_words", "side1_sources", "side2_sources", "side1_model_id", "side2_model_id")
        }
        out.append(Judgment(topic=first.topic, side1=first.side1, side2=first.side2, winner=majority_verdict([j.winner for j in lines]), **extra))
    return out


def verdict_counts(groups: dict[str, list[Judgment]]) -> tuple[list[Debate], np.ndarray]:
    """The debates between two models judged by at least one judge, and per debate how many judges
    gave each verdict (columns: tie, side 1, side 2)."""
    index: dict[Debate, int] = {}
    rows: list[list[int]] = []
    for lines in groups.values():
        for j in ranked_legs(lines):
            k = index.setdefault(j.debate, len(rows))
            if k == len(rows):
                rows.append([0, 0, 0])
            rows[k][0 if j.winner is None else j.winner] += 1
    return list(index), np.array(rows, dtype=float).reshape(-1, 3)


def nominal_alpha(counts: np.ndarray) -> float | None:
    """Krippendorff's alpha (nominal) from per-debate verdict counts; None when undefined (fewer
    than two judges on any debate, or every verdict the same)."""
    import krippendorff

    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            a = krippendorff.alpha(value_counts=counts, value_domain=list(VERDICT_CODES), level_of_measurement="nominal")
    except ValueError:
        return None
    return float(a) if np.isfinite(a) else None


def agreement_alpha(groups: dict[str, list[Judgment]], n_boot: int, seed: int) -> Alpha:
    debates, counts = verdict_counts(groups)
    paired = counts.sum(axis=1) >= 2
    topics = [d[0] for d in debates]
    draws = [nominal_alpha(counts[idx]) for idx in topic_resamples(topics, n_boot, seed)]
    return Alpha(alpha=nominal_alpha(counts), ci95=percentile_ci(draws, n_boot), n_debates=int(paired.sum()), n_judges=len(groups))


def judge_pairs(groups: dict[str, list[Judgment]], rankings: dict[str, JudgeRanking]) -> list[JudgePair]:
    """For each pair of judges: the distance between their rankings and how often their verdicts agree."""
    out = []
    for a, b in combinations(groups, 2):
        verdicts_b = {j.debate: j.winner for j in ranked_legs(groups[b])}
        common = [(j.winner, verdicts_b[j.debate]) for j in ranked_legs(groups[a]) if j.debate in verdicts_b]
        equal = sum(1 for x, y in common if x == y)
        out.append(
            JudgePair(
                judges=[a, b],
                kendall_tau_distance=kendall_tau_distance(rankings[a].ranking, rankings[b].ranking)[0],
                verdict_agreement=equal / len(common) if common else None,
                ci95=wilson_ci(equal, len(common)),
                n_debates=len(common),
            )
        )
    return out
