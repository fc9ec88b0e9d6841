"""Everything one set of verdicts says about the debaters (one judge's, or the panel's).

Win matrix and topic wins under the rule, the ranking (topic wins, then Bradley–Terry score, then
name), Bradley–Terry scores on every leg with topic-bootstrap CIs (ties half), the judge's side-1
bias, self-play apart, the distance to a reference ranking, the style-controlled fit and the
Davidson fits for both rules.
"""

from __future__ import annotations

from collections.abc import Sequence

from debench.arena.bt_bootstrap import elo_scores, fit_with_draws, leg_games
from debench.arena.judgments import Judgment
from debench.arena.outcomes import position_bias, ranked_legs, self_play, topic_outcomes, win_matrix
from debench.arena.ranking_distance import kendall_tau_distance
from debench.arena.ranking_file import JudgeRanking, Rule, Score
from debench.arena.style_control import style_controlled
from debench.arena.ties import davidson_fit

RULES: tuple[Rule, Rule] = ("strict", "lenient")


def debaters(judgments: Sequence[Judgment]) -> list[str]:
    """The models that met a different model, sorted."""
    return sorted({m for j in ranked_legs(judgments) for m in (j.side1, j.side2)})


def bradley_terry_with_ci(models: Sequence[str], legs: Sequence[Judgment], n_boot: int, seed: int) -> dict[str, Score]:
    """Plain BT scores on every leg (ties half); 95% CIs by resampling topics."""
    games = leg_games(models, legs)
    point, draws = fit_with_draws(games, "half", n_boot, seed)
    return elo_scores(games, point, draws, n_boot)


def rank_one_judge(
    judgments: Sequence[Judgment],
    rule: Rule,
    reference: Sequence[str] | None,
    n_boot: int,
    seed: int,
    controls: Sequence[str],
) -> tuple[JudgeRanking, list[str]]:
    """The analysis and notes on what could not be computed."""
    models = debaters(judgments)
    legs = ranked_legs(judgments)
    outcomes, incomplete = topic_outcomes(judgments, rule)
    matrix = win_matrix(models, outcomes)
    topic_wins = {m: sum(matrix[m].values()) for m in models}
    bt = bradley_terry_with_ci(models, legs, n_boot, seed)
    ranking = sorted(models, key=lambda m: (-topic_wins[m], -bt[m].score, m))
    controlled, why = style_controlled(models, legs, controls, bt, n_boot, seed)
    fits = {r: davidson_fit(models, judgments, r, n_boot, seed) for r in RULES}
    notes = [why] if why else []
    notes += [f"no Davidson fit under the {r} rule: no complete topic" for r, f in fits.items() if f is None]
    notes += [f"every topic is drawn under the {r} rule: nu is unbounded (shown at its cap)" for r, f in fits.items() if f and f.n_drawn == f.n_topics]
    out = JudgeRanking(
        rule=rule,
        models=models,
        win_matrix=matrix,
        topic_wins=topic_wins,
        topics_drawn=sum(1 for o in outcomes if o["winner"] is None),
        incomplete_pairs=incomplete,
        ranking=ranking,
        ranking_order="topic wins, then Bradley-Terry score, then name",
        bradley_terry=bt,
        bradley_terry_scale="Elo-like: 400/ln(10) points per logit, mean 0; ties count half",
        position_bias=position_bias(judgments),
        self_play=self_play(judgments),
        n_judgments=len(judgments),
        length_controlled=controlled,
        davidson={r: f for r, f in fits.items() if f is not None},
    )
    if reference is not None:
        out.kendall_tau_distance, out.reference_missing = kendall_tau_distance(ranking, reference)
        out.reference = list(reference)
    return out, notes
