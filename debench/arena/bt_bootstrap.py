"""Bradley–Terry fits of a judgment table with topic-bootstrap intervals, and the orders they give.

Legs (debates between two different models) are fitted with ties counting half a win for each
side; topic outcomes with Davidson's tie parameter (``ties.py``). Equal scores are ordered by
name: scores closer than ``SCORE_TOLERANCE`` Elo-like points count as equal (models with identical
records get the same score up to rounding, ~1e-12, which must not decide their order).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from debench.arena.bradley_terry import (
    ELO_PER_LOGIT,
    PairwiseFits,
    Problem,
    TieModel,
    fit_many,
)
from debench.arena.cells import aggregate
from debench.arena.judgment_table import JudgmentTable
from debench.arena.outcomes import Outcomes
from debench.arena.ranking_file import Score
from debench.arena.topic_bootstrap import TopicDraws, interval

SCORE_TOLERANCE = 1e-6


def leg_problem(table: JudgmentTable, n_topics: int, covariates: np.ndarray | None = None, covariate_keys: np.ndarray | None = None) -> Problem:
    """Every leg of ``table`` between two different models, side 1 first, a tie half a win;
    ``covariates`` (legs, p), their cells keyed by ``covariate_keys`` (integers, legs x p)."""
    legs = table.select(table.ranked)
    points = np.where(legs.winner == 1, 1.0, np.where(legs.winner == 0, 0.5, 0.0))
    cells, stats = aggregate(len(table.models), n_topics, legs.topic, legs.side1, legs.side2, np.column_stack([points, np.ones(len(legs))]), covariate_keys, covariates)
    return Problem(cells, stats, "half")


def outcome_problem(n_models: int, n_topics: int, outcomes: Outcomes, ties: TieModel = "davidson") -> Problem:
    """Topic outcomes, pair (a, b): a took it, b took it, or drawn."""
    values = np.column_stack([outcomes.taker == outcomes.a, outcomes.taker == outcomes.b, outcomes.taker == -1]).astype(float)
    cells, stats = aggregate(n_models, n_topics, outcomes.topic, outcomes.a, outcomes.b, values)
    return Problem(cells, stats, ties)


def fit_legs(table: JudgmentTable, draws: TopicDraws) -> PairwiseFits:
    """``leg_problem`` fitted (plain Bradley-Terry on the legs)."""
    return fit_many([leg_problem(table, draws.n_topics)], draws)[0]


def elo_scores(table: JudgmentTable, models: Sequence[int], fits: PairwiseFits, n_boot: int) -> dict[str, Score]:
    out = {}
    for m in models:
        ci, used = interval(fits.draw_strengths[:, m] * ELO_PER_LOGIT, n_boot)
        out[table.models[m]] = Score(score=float(fits.strengths[m] * ELO_PER_LOGIT), ci95=ci, draws_used=used)
    return out


def score_groups(scores: dict[str, float]) -> dict[str, int]:
    """0 for the highest score, and so on; scores within ``SCORE_TOLERANCE`` of the next higher one
    share its group."""
    ordered = sorted(scores, key=lambda m: -scores[m])
    groups, g = {}, 0
    for k, m in enumerate(ordered):
        if k and scores[ordered[k - 1]] - scores[m] > SCORE_TOLERANCE:
            g += 1
        groups[m] = g
    return groups


def by_score(scores: dict[str, Score]) -> list[str]:
    """Models by score (higher first), equal scores by name."""
    groups = score_groups({m: s.score for m, s in scores.items()})
    return sorted(scores, key=lambda m: (groups[m], m))
