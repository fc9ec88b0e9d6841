"""Who won what (pure functions): legs, topics under a rule, the win matrix, side-1 bias, self-play.

A *leg* is one debate; two legs (sides swapped) make a *topic* between two models. Rules:

* ``strict`` — a model takes the topic when it wins both legs (the paper's stated rule);
* ``lenient`` — also when it wins one leg and the other is a tie (what the paper's tables count).

Anything else is a drawn topic. A topic with only one leg is *incomplete* and counts for no one.
Self-play (the same model on both sides) is reported apart and never enters the ranking.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from debench.arena.judgments import Judgment
from debench.arena.ranking_file import PositionBias, Rule, SelfPlayCounts
from debench.metrics.bootstrap import wilson_ci


def leg_winner(j: Judgment) -> str | None:
    return None if j.winner is None else (j.side1 if j.winner == 1 else j.side2)


def ranked_legs(judgments: Sequence[Judgment]) -> list[Judgment]:
    """The legs between two different models (self-play left out)."""
    return [j for j in judgments if j.side1 != j.side2]


def topic_outcomes(judgments: Sequence[Judgment], rule: Rule) -> tuple[list[dict[str, Any]], int]:
    """Per (topic, pair): the model that took it (or None = drawn); and the number incomplete."""
    legs: dict[tuple[str, frozenset[str]], list[Judgment]] = defaultdict(list)
    for j in ranked_legs(judgments):
        legs[(j.topic, frozenset((j.side1, j.side2)))].append(j)
    outcomes, incomplete = [], 0
    for (topic, pair), js in sorted(legs.items(), key=lambda kv: (kv[0][0], sorted(kv[0][1]))):
        if len(js) < 2:
            incomplete += 1
            continue
        a, b = sorted(pair)
        won = [leg_winner(j) for j in js]
        taker = None
        for m in (a, b):
            wins, ties = won.count(m), won.count(None)
            if wins == 2 or (rule == "lenient" and wins == 1 and ties == 1):
                taker = m
        outcomes.append({"topic": topic, "a": a, "b": b, "winner": taker})
    return outcomes, incomplete


def win_matrix(models: Sequence[str], outcomes: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    m = {a: {b: 0 for b in models if b != a} for a in models}
    for o in outcomes:
        if o["winner"] is not None:
            loser = o["b"] if o["winner"] == o["a"] else o["a"]
            m[o["winner"]][loser] += 1
    return m


def position_bias(judgments: Sequence[Judgment]) -> PositionBias:
    legs = ranked_legs(judgments)
    decided = [j for j in legs if j.winner is not None]
    k = sum(1 for j in decided if j.winner == 1)
    return PositionBias(
        side1_win_rate=k / len(decided) if decided else None,
        ci95=wilson_ci(k, len(decided)),
        n_decided=len(decided),
        n_ties=len(legs) - len(decided),
    )


def self_play(judgments: Sequence[Judgment]) -> dict[str, SelfPlayCounts]:
    out: dict[str, SelfPlayCounts] = {}
    for j in judgments:
        if j.side1 == j.side2:
            row = out.setdefault(j.side1, SelfPlayCounts(side1_wins=0, side2_wins=0, ties=0))
            if j.winner == 1:
                row.side1_wins += 1
            elif j.winner == 2:
                row.side2_wins += 1
            else:
                row.ties += 1
    return out
