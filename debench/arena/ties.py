"""Draws as draws: Bradley–Terry with Davidson's tie parameter on topic outcomes under a rule.

Under the strict rule a split topic (each model won one leg) is a draw, under the lenient rule only
a split or tied pair of legs that no model took; the plain ratings count a tied leg as half a win,
while this fit gives draws their own probability, nu / (2 + nu) between equal models.
"""

from __future__ import annotations

import numpy as np

from debench.arena.bradley_terry import PairwiseFits
from debench.arena.bt_bootstrap import by_score, elo_scores
from debench.arena.judgment_table import JudgmentTable
from debench.arena.outcomes import Outcomes
from debench.arena.ranking_file import DavidsonFit, Rule
from debench.arena.topic_bootstrap import interval


def draw_probability(nu: np.ndarray) -> np.ndarray:
    p: np.ndarray = nu / (2 + nu)
    return p


def davidson_fit(table: JudgmentTable, models: list[int], outcomes: Outcomes, rule: Rule, fits: PairwiseFits, n_boot: int) -> DavidsonFit:
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
