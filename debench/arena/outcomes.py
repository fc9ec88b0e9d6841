"""Who won what (pure functions over a judgment table): topics under a rule, the win matrix, the
design (who met whom), side-1 bias and self-play.

A *leg* is one debate; two legs (sides swapped) make a *topic* between two models. Rules:

* ``strict`` — a model takes the topic when it wins both legs (the paper's stated rule);
* ``lenient`` — also when it wins one leg and the other is a tie (what the paper's tables count).

Anything else is a drawn topic. A topic with only one leg is *incomplete* and counts for no one.
Self-play (the same model on both sides) is reported apart and never enters the ranking.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from debench.arena.judgment_table import JudgmentTable, group_ids
from debench.arena.ranking_file import Design, PositionBias, Rule, SelfPlayCounts
from debench.metrics.bootstrap import wilson_ci

DRAWN = -1


@dataclass(frozen=True)
class Outcomes:
    """One row per complete (topic, pair of models), in the order of topic, then the pair's names."""

    topic: np.ndarray
    a: np.ndarray
    """The pair's first model (the lower code: first by name)."""
    b: np.ndarray
    taker: np.ndarray
    """The model that took the topic, or ``DRAWN``."""
    incomplete: int
    """(topic, pair) with one leg only."""

    def __len__(self) -> int:
        return len(self.topic)

    @property
    def n_drawn(self) -> int:
        return int((self.taker == DRAWN).sum())


def leg_winner(table: JudgmentTable) -> np.ndarray:
    """Per row, the winning model's code, or ``DRAWN`` for a tie."""
    return np.where(table.winner == 1, table.side1, np.where(table.winner == 2, table.side2, DRAWN))


def topic_outcomes(table: JudgmentTable, rule: Rule) -> Outcomes:
    legs = table.select(table.ranked)
    a, b = np.minimum(legs.side1, legs.side2), np.maximum(legs.side1, legs.side2)
    won = leg_winner(legs)
    gid, first = group_ids(legs.topic, a, b)
    n = len(first)
    n_legs = np.bincount(gid, minlength=n)
    wins_a = np.bincount(gid, weights=won == a, minlength=n)
    wins_b = np.bincount(gid, weights=won == b, minlength=n)
    ties = np.bincount(gid, weights=won == DRAWN, minlength=n)
    lenient = rule == "lenient"
    takes_a = (wins_a == 2) | (lenient & (wins_a == 1) & (ties == 1))
    takes_b = (wins_b == 2) | (lenient & (wins_b == 1) & (ties == 1))
    complete = n_legs >= 2
    taker = np.where(takes_b, b[first], np.where(takes_a, a[first], DRAWN))
    return Outcomes(
        legs.topic[first][complete], a[first][complete], b[first][complete], taker[complete], int((~complete).sum())
    )


def win_matrix(table: JudgmentTable, models: list[int], outcomes: Outcomes) -> dict[str, dict[str, int]]:
    names = table.models
    k = len(table.models)
    won = outcomes.taker != DRAWN
    loser = np.where(outcomes.taker == outcomes.a, outcomes.b, outcomes.a)[won]
    counts = np.bincount(outcomes.taker[won] * k + loser, minlength=k * k).reshape(k, k)
    return {names[x]: {names[y]: int(counts[x, y]) for y in models if y != x} for x in models}


def design(table: JudgmentTable, models: list[int], outcomes: Outcomes) -> Design:
    k = len(table.models)
    meetings = np.bincount(np.r_[outcomes.a, outcomes.b], minlength=k)
    pairs = np.unique(np.c_[outcomes.a, outcomes.b], axis=0) if len(outcomes) else np.zeros((0, 2), dtype=np.int64)
    opponents = np.bincount(pairs.ravel(), minlength=k)
    opp = {table.models[m]: int(opponents[m]) for m in models}
    met = {table.models[m]: int(meetings[m]) for m in models}
    return Design(balanced=len(set(opp.values())) <= 1 and len(set(met.values())) <= 1, opponents=opp, topics=met)


def position_bias(table: JudgmentTable) -> PositionBias:
    w = table.winner[table.ranked]
    decided = int((w != 0).sum())
    k = int((w == 1).sum())
    return PositionBias(
        side1_win_rate=k / decided if decided else None,
        ci95=wilson_ci(k, decided),
        n_decided=decided,
        n_ties=len(w) - decided,
    )


def self_play(table: JudgmentTable) -> dict[str, SelfPlayCounts]:
    own = ~table.ranked
    m, w = table.side1[own], table.winner[own]
    k = len(table.models)
    counts = [np.bincount(m, weights=w == v, minlength=k) for v in (1, 2, 0)]
    legs = np.bincount(m, minlength=k)
    return {
        table.models[x]: SelfPlayCounts(
            side1_wins=int(counts[0][x]), side2_wins=int(counts[1][x]), ties=int(counts[2][x]), n_legs=int(legs[x])
        )
        for x in np.flatnonzero(legs)
    }
