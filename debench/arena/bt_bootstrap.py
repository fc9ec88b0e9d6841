"""Bradley–Terry fits of a judgment table with topic-bootstrap intervals, the orders they give, and
the distance between two orders.

Legs (debates between two different models) are fitted with ties counting half a win for each
side; topic outcomes with Davidson's tie parameter (``davidson_fit``: draws as draws. Under the
strict rule a split topic, each model having won one leg, is a draw, under the lenient rule only a
split or tied pair of legs that no model took; the plain ratings count a tied leg as half a win,
while this fit gives draws their own probability, nu / (2 + nu) between equal models).

Equal scores are ordered by name: scores closer than ``SCORE_TOLERANCE`` Elo-like points count as
equal (models with identical records get the same score up to rounding, ~1e-12, which must not
decide their order). ``kendall_tau_distance``: the normalized Kendall tau distance between two
rankings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations

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
from debench.arena.ranking_file import DavidsonFit, Rule, Score
from debench.arena.topic_bootstrap import TopicDraws, interval

SCORE_TOLERANCE = 1e-6


def leg_problem(
    table: JudgmentTable, n_topics: int, covariates: np.ndarray | None = None, covariate_keys: np.ndarray | None = None
) -> Problem:
    """Every leg of ``table`` between two different models, side 1 first, a tie half a win;
    ``covariates`` (legs, p), their cells keyed by ``covariate_keys`` (integers, legs x p)."""
    legs = table.select(table.ranked)
    points = np.where(legs.winner == 1, 1.0, np.where(legs.winner == 0, 0.5, 0.0))
    cells, stats = aggregate(
        len(table.models),
        n_topics,
        legs.topic,
        legs.side1,
        legs.side2,
        np.column_stack([points, np.ones(len(legs))]),
        covariate_keys,
        covariates,
    )
    return Problem(cells, stats, "half")


def outcome_problem(n_models: int, n_topics: int, outcomes: Outcomes, ties: TieModel = "davidson") -> Problem:
    """Topic outcomes, pair (a, b): a took it, b took it, or drawn."""
    values = np.column_stack([outcomes.taker == outcomes.a, outcomes.taker == outcomes.b, outcomes.taker == -1]).astype(
        float
    )
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


def draw_probability(nu: np.ndarray) -> np.ndarray:
    p: np.ndarray = nu / (2 + nu)
    return p


def davidson_fit(
    table: JudgmentTable, models: list[int], outcomes: Outcomes, rule: Rule, fits: PairwiseFits, n_boot: int
) -> DavidsonFit:
    """The report of ``outcome_problem(outcomes)`` fitted with Davidson's ties (at least one
    complete topic under ``rule``)."""
    assert fits.nu is not None and fits.draw_nu is not None
    nu_ci, used = interval(fits.draw_nu, n_boot)
    p_ci, _ = interval(draw_probability(fits.draw_nu), n_boot)
    scores = elo_scores(table, models, fits, n_boot)
    return DavidsonFit(
        rule=rule,
        nu=fits.nu,
        nu_ci95=nu_ci,
        draw_probability_between_equals=float(fits.nu / (2 + fits.nu)),
        draw_probability_ci95=p_ci,
        draws_used=used,
        bradley_terry=scores,
        ranking=by_score(scores),
        n_topics=len(outcomes),
        n_drawn=outcomes.n_drawn,
    )


def kendall_tau_distance(ranking: Sequence[str], reference: Sequence[str]) -> tuple[float | None, list[str]]:
    """Share of model pairs ordered differently (0 = same order, 1 = reversed), over the models in
    both rankings; also the ranked models missing from the reference."""
    common = [m for m in ranking if m in reference]
    missing = [m for m in ranking if m not in reference]
    if len(common) < 2:
        return None, missing
    pos = {m: list(reference).index(m) for m in common}
    discordant = sum(1 for x, y in combinations(common, 2) if pos[x] > pos[y])  # x is ranked above y
    return discordant / math.comb(len(common), 2), missing
