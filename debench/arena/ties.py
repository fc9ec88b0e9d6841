"""Draws as draws: Bradley–Terry with Davidson's tie parameter on topic outcomes under a rule.

Under the strict rule a split topic (each model won one leg) is a draw, under the lenient rule only
a split or tied pair of legs that no model took; the plain ratings count a tied leg as half a win,
while this fit gives draws their own probability, nu / (2 + nu) between equal models.
"""

from __future__ import annotations

from collections.abc import Sequence

from debench.arena.bt_bootstrap import by_score, elo_scores, fit_with_draws, games_from
from debench.arena.judgments import Judgment
from debench.arena.outcomes import topic_outcomes
from debench.arena.ranking_file import DavidsonFit, Rule
from debench.arena.topic_bootstrap import percentile_ci


def draw_probability(nu: float) -> float:
    return nu / (2 + nu)


def davidson_fit(models: Sequence[str], judgments: Sequence[Judgment], rule: Rule, n_boot: int, seed: int) -> DavidsonFit | None:
    """None when there is no complete topic under ``rule``."""
    outcomes, _ = topic_outcomes(judgments, rule)
    if not outcomes:
        return None
    games = games_from(models, [(o["a"], o["b"], 0.5 if o["winner"] is None else 1.0 if o["winner"] == o["a"] else 0.0, o["topic"]) for o in outcomes])
    point, draws = fit_with_draws(games, "davidson", n_boot, seed)
    assert point.nu is not None
    nus = [d.nu for d in draws]
    scores = elo_scores(games, point, draws, n_boot)
    return DavidsonFit(
        rule=rule,
        nu=point.nu,
        nu_ci95=percentile_ci(nus, n_boot),
        draw_probability_between_equals=draw_probability(point.nu),
        draw_probability_ci95=percentile_ci([draw_probability(v) for v in nus if v is not None], n_boot),
        bradley_terry=scores,
        ranking=by_score(scores),
        n_topics=len(outcomes),
        n_drawn=sum(1 for o in outcomes if o["winner"] is None),
    )
