"""Several judges on the same debates (pure functions over a judgment table): grouping, the
panel's majority verdicts, inter-judge agreement (Krippendorff's alpha, nominal, topic-bootstrap
CI) and pairwise comparisons.

Alpha is ``debench.metrics.alpha``'s, from coincidence matrices (Krippendorff 2011): each debate
judged by m >= 2 judges adds, for every ordered pair of two of its verdicts, 1 / (m - 1) to cell
(first, second). The matrices add over debates, so a topic resample's alpha is its topics'
matrices summed.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from debench.arena.bt_bootstrap import kendall_tau_distance
from debench.arena.judgment_table import MISSING, JudgmentTable, group_ids
from debench.arena.one_judge import ranking_of
from debench.arena.ranking_file import Alpha, JudgePair, JudgeRanking, Rule
from debench.arena.topic_bootstrap import TopicDraws, interval
from debench.metrics.alpha import alpha, unit_coincidences
from debench.metrics.bootstrap import wilson_ci

PANEL = "(panel)"


def by_judge(table: JudgmentTable) -> dict[str, JudgmentTable]:
    """Each judge's verdicts, judges in name order."""
    return {label: table.select(table.judge == k) for k, label in enumerate(table.judges)}


def majority(counts: np.ndarray) -> np.ndarray:
    """Per row of verdict counts (tie, side 1, side 2): the most frequent verdict; a tie (0) when
    the top count is shared (or is the tie's)."""
    top = counts.max(axis=1, keepdims=True)
    unique = (counts == top).sum(axis=1) == 1
    return np.where(unique, counts.argmax(axis=1), 0)


def verdict_counts(table: JudgmentTable, rows: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per debate ((topic, side 1, side 2, leg) equal): how many judges gave each verdict (columns:
    tie, side 1, side 2), each row's debate, and each debate's first row."""
    sub = table if rows is None else table.select(rows)
    gid, first = sub.debate_ids()
    counts = np.column_stack([np.bincount(gid, weights=sub.winner == v, minlength=len(first)) for v in (0, 1, 2)])
    return counts, gid, first


UNEVEN_COVERAGE = 0.5
"""A panel whose least-covering judge decided fewer than this share of the debates its best-covering
judge decided gets a note (``coverage_note``)."""


def coverage(table: JudgmentTable) -> dict[str, int]:
    """How many debates each judge decided."""
    _, gid, _ = verdict_counts(table)
    pairs = np.unique(np.column_stack([table.judge, gid]), axis=0)
    per_judge = np.bincount(pairs[:, 0], minlength=len(table.judges))
    return {label: int(per_judge[i]) for i, label in enumerate(table.judges)}


def coverage_note(table: JudgmentTable) -> str | None:
    """A note when the judges decided very different numbers of debates: the majority verdict of a
    debate two judges decided is a tie whenever they disagree, so a panel's ranking then mixes
    debates decided by one judge with debates often tied, and can differ much from every judge's."""
    counts = coverage(table)
    if len(counts) < 2 or min(counts.values()) >= UNEVEN_COVERAGE * max(counts.values()):
        return None
    _, _, first = verdict_counts(table)
    listed = ", ".join(f"{label} {n:,}" for label, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
    return (
        f"uneven coverage: the judges decided very different numbers of the {len(first):,} debates ({listed}); "
        "where fewer judges decided a debate, one verdict decides it or a disagreement ties it, so the panel's ranking "
        "mixes the two: read it beside per_judge"
    )


def panel_verdicts(table: JudgmentTable) -> JudgmentTable:
    """One row per debate carrying the judges' majority verdict; words and sources from the first
    judge (in name order, then line order) whose line has them, whatever the order of the lines."""
    counts, gid, first = verdict_counts(table)
    panel = table.select(first)
    n = len(table)
    rank = table.judge.astype(np.int64) * n + np.arange(n)
    unset = (len(table.judges) + 1) * n
    fill = []
    for values in (table.words, table.sources):
        out = values[first].copy()
        for side in (0, 1):
            present = values[:, side] != MISSING
            pick = np.full(len(first), unset)
            np.minimum.at(pick, gid[present], rank[present])
            found = pick < unset
            out[found, side] = values[pick[found] % n, side]
        fill.append(out)
    return JudgmentTable(
        topics=table.topics,
        models=table.models,
        judges=[PANEL],
        topic=panel.topic,
        side1=panel.side1,
        side2=panel.side2,
        judge=np.zeros(len(first), dtype=np.int32),
        winner=majority(counts).astype(np.int8),
        leg=panel.leg,
        words=fill[0],
        sources=fill[1],
        judge_ids={},
        debater_ids=table.debater_ids,
    )


def agreement_alpha(table: JudgmentTable, draws: TopicDraws) -> Alpha:
    """Over the debates between two different models."""
    ranked = table.ranked
    counts, _, first = verdict_counts(table, ranked)
    per_debate = unit_coincidences(counts)
    topics = table.topic[ranked][first]
    per_topic = np.zeros((draws.n_topics, 3, 3))
    np.add.at(per_topic, topics, per_debate)
    point, _ = alpha(per_topic.sum(axis=0), "nominal")
    ci, used = interval(alpha(draws.totals(per_topic), "nominal")[0], draws.n_boot)
    return Alpha(
        alpha=float(point) if np.isfinite(point) else None,
        ci95=ci,
        draws_used=used,
        n_debates=int((counts.sum(axis=1) >= 2).sum()),
        n_judges=len(np.unique(table.judge)),
    )


def judge_pairs(table: JudgmentTable, rankings: dict[str, JudgeRanking], rule: Rule) -> list[JudgePair]:
    """For each pair of judges: their rankings on the debates both judged and the distance between
    them (and between their rankings over all their own verdicts), and how often their verdicts
    on those debates agree."""
    ranked = table.select(table.ranked)
    gid, _ = group_ids(ranked.topic, ranked.side1, ranked.side2)
    out = []
    for a, b in combinations(range(len(table.judges)), 2):
        in_a, in_b = ranked.judge == a, ranked.judge == b
        shared = np.zeros(gid.max() + 1 if len(gid) else 0, dtype=bool)
        shared[np.intersect1d(gid[in_a], gid[in_b])] = True
        rows_a, rows_b = in_a & shared[gid], in_b & shared[gid]
        order_a, order_b = np.argsort(gid[rows_a]), np.argsort(gid[rows_b])
        agree = int((ranked.winner[rows_a][order_a] == ranked.winner[rows_b][order_b]).sum())
        n = int(rows_a.sum())
        la, lb = table.judges[a], table.judges[b]
        sub_a, sub_b = ranked.select(rows_a), ranked.select(rows_b)
        shared_rankings = (
            {la: ranking_of(sub_a, rule, len(table.topics)), lb: ranking_of(sub_b, rule, len(table.topics))}
            if n
            else {la: [], lb: []}
        )
        distance, _ = kendall_tau_distance(shared_rankings[la], shared_rankings[lb])
        out.append(
            JudgePair(
                judges=[la, lb],
                kendall_tau_distance=distance,
                n_models=len(set(shared_rankings[la]) & set(shared_rankings[lb])),
                shared_rankings=shared_rankings,
                kendall_tau_distance_all_verdicts=kendall_tau_distance(rankings[la].ranking, rankings[lb].ranking)[0],
                verdict_agreement=agree / n if n else None,
                ci95=wilson_ci(agree, n),
                n_debates=n,
            )
        )
    return out
