"""Everything one set of verdicts says about the debaters (one judge's, or the panel's).

Win matrix and topic wins under the rule, the design (who met whom), the ranking, Bradley–Terry
scores on every leg with topic-bootstrap CIs (ties half), the judge's side-1 bias, self-play apart,
the distance to a reference ranking, the style-controlled fit and the Davidson fits for both rules.

The ranking: in a balanced design (every model met the same number of opponents in the same number
of complete topics) topic wins, then Bradley–Terry score, then name, as Moniri et al. rank; in an
unbalanced one Bradley–Terry score, then topic wins, then name — topic wins grow with the number of
opponents met, the Bradley–Terry score does not.
"""

from __future__ import annotations

from collections.abc import Sequence

from debench.arena.bradley_terry import fit_many
from debench.arena.bt_bootstrap import (
    SCORE_TOLERANCE,
    davidson_fit,
    elo_scores,
    fit_legs,
    kendall_tau_distance,
    leg_problem,
    outcome_problem,
    score_groups,
)
from debench.arena.judgment_table import JudgmentTable
from debench.arena.outcomes import (
    Outcomes,
    design,
    position_bias,
    self_play,
    topic_outcomes,
    win_matrix,
)
from debench.arena.ranking_file import DavidsonFit, Design, JudgeRanking, Rule
from debench.arena.style_control import style_controlled, style_problem
from debench.arena.topic_bootstrap import TopicDraws

RULES: tuple[Rule, Rule] = ("strict", "lenient")
BALANCED_ORDER = (
    f"topic wins, then Bradley-Terry score, then name (scores within {SCORE_TOLERANCE:g} "
    "Elo-like points count as equal)"
)
UNBALANCED_ORDER = (
    f"Bradley-Terry score, then topic wins, then name (scores within {SCORE_TOLERANCE:g} Elo-like points count as "
    "equal): the design is unbalanced, and topic wins grow with the number of opponents and topics a model had"
)


def ordered(topic_wins: dict[str, int], scores: dict[str, float], balanced: bool) -> list[str]:
    groups = score_groups(scores)
    if balanced:
        return sorted(scores, key=lambda m: (-topic_wins[m], groups[m], m))
    return sorted(scores, key=lambda m: (groups[m], -topic_wins[m], m))


def design_note(d: Design) -> str | None:
    if d.balanced:
        return None
    opp, top = d.opponents.values(), d.topics.values()
    return (
        f"unbalanced design: models met {min(opp)} to {max(opp)} opponents in {min(top)} to {max(top)} "
        "complete topics, so the ranking puts the Bradley-Terry score before topic wins (topic wins "
        "reward meeting more opponents)"
    )


def _outcomes(
    table: JudgmentTable, rule: Rule
) -> tuple[Outcomes, dict[str, dict[str, int]], dict[str, int], Design, list[int]]:
    models = table.debaters()
    outcomes = topic_outcomes(table, rule)
    matrix = win_matrix(table, models, outcomes)
    return (
        outcomes,
        matrix,
        {m: sum(row.values()) for m, row in matrix.items()},
        design(table, models, outcomes),
        models,
    )


def ranking_of(table: JudgmentTable, rule: Rule, n_topics: int) -> list[str]:
    """The ranking alone (point fit, no resamples): what ``rank_one_judge`` ranks by."""
    _, _, topic_wins, d, models = _outcomes(table, rule)
    fits = fit_legs(table, TopicDraws(n_topics, 0, 0))
    return ordered(topic_wins, {table.models[m]: float(fits.strengths[m]) for m in models}, d.balanced)


def rank_one_judge(
    table: JudgmentTable, rule: Rule, reference: Sequence[str] | None, draws: TopicDraws, controls: Sequence[str]
) -> tuple[JudgeRanking, list[str]]:
    """The analysis and notes on what could not be computed (and on the design). Its fits (plain,
    style-controlled, Davidson under both rules) share one pass over the resamples."""
    outcomes, matrix, topic_wins, d, models = _outcomes(table, rule)
    by_rule = {r: outcomes if r == rule else topic_outcomes(table, r) for r in RULES}
    style, why = style_problem(table, controls, draws.n_topics)
    problems = [leg_problem(table, draws.n_topics)] + ([style.problem] if style else [])
    rules = [r for r in RULES if len(by_rule[r])]
    problems += [outcome_problem(len(table.models), draws.n_topics, by_rule[r]) for r in rules]
    fitted = fit_many(problems, draws)
    bt = elo_scores(table, models, fitted[0], draws.n_boot)
    controlled = style_controlled(table, models, style, fitted[1], bt, draws.n_boot) if style else None
    fits: dict[str, DavidsonFit] = {
        r: davidson_fit(table, models, by_rule[r], r, f, draws.n_boot)
        for r, f in zip(rules, fitted[len(fitted) - len(rules) :], strict=True)
    }
    ranking = ordered(topic_wins, {m: s.score for m, s in bt.items()}, d.balanced)
    notes = [n for n in (design_note(d), why) if n]
    notes += [f"no Davidson fit under the {r} rule: no complete topic" for r in RULES if r not in fits]
    notes += [
        f"every topic is drawn under the {r} rule: nu is unbounded (shown at its cap)"
        for r, f in fits.items()
        if f.n_drawn == f.n_topics
    ]
    out = JudgeRanking(
        rule=rule,
        models=[table.models[m] for m in models],
        win_matrix=matrix,
        topic_wins=topic_wins,
        topics_drawn=outcomes.n_drawn,
        incomplete_pairs=outcomes.incomplete,
        ranking=ranking,
        ranking_order=BALANCED_ORDER if d.balanced else UNBALANCED_ORDER,
        design=d,
        bradley_terry=bt,
        bradley_terry_scale="Elo-like: 400/ln(10) points per logit, mean 0; ties count half",
        position_bias=position_bias(table),
        self_play=self_play(table),
        n_judgments=len(table),
        length_controlled=controlled,
        davidson=fits,
    )
    if reference is not None:
        out.kendall_tau_distance, out.reference_missing = kendall_tau_distance(ranking, reference)
        out.reference = list(reference)
    return out, notes
