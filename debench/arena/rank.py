"""Ranking models from debate judgments: the whole analysis behind ``debench arena rank``.

With one judge the top level is that judge's analysis (see ``one_judge``). With several, the top
level uses the panel's verdict on each debate (the majority; a shared top count is a tie), and the
report adds each judge's own analysis, the agreement between judges and their self-preference.
Every statistic resamples the same topics (``topic_bootstrap``); ``conventions`` in the output
says how each number was computed.
"""

from __future__ import annotations

from collections.abc import Sequence

from debench.arena.adaptive_schedule import schedule_summary
from debench.arena.bradley_terry import L2_PENALTY
from debench.arena.bt_bootstrap import SCORE_TOLERANCE
from debench.arena.judges import agreement_alpha, by_judge, coverage_note, judge_pairs, panel_verdicts
from debench.arena.judgment_table import JudgmentTable, table_of
from debench.arena.judgments import Judgment
from debench.arena.newton import POINT_TOLERANCE, RESAMPLE_TOLERANCE
from debench.arena.one_judge import rank_one_judge
from debench.arena.ranking_file import ArenaRanking, JudgeAgreement, JudgeRanking, RankSettings, Rating, Rule
from debench.arena.self_preference import self_preference
from debench.arena.style_control import ROUNDING
from debench.arena.topic_bootstrap import TopicDraws
from debench.core.errors import UserError

CONTROLS = ("length", "sources")


def conventions(n_boot: int, seed: int, several: bool) -> list[str]:
    out = [
        (
            f"Bradley-Terry: maximum likelihood with an L2 penalty of {L2_PENALTY} x the sum of squared strengths and "
            f"coefficients (not on Davidson's nu), fitted by Newton's method until a step is below {POINT_TOLERANCE:g} "
            f"logits ({RESAMPLE_TOLERANCE:g} for a resample, leaving an error ~1e-8), that step taken; scores on an "
            "Elo-like scale, 400/ln(10) points per logit, mean 0 over the ranked models"
        ),
        "bradley_terry and length_controlled: every debate between two different models is one game, side 1 first; a "
        "tied debate counts half a win for each side",
        "davidson: topic outcomes under each rule (won, or drawn: no model took it); drawn topics get their own "
        "probability, nu / (2 + nu) between equal models",
        "topic wins: strict rule = both legs won; lenient rule = both legs won, or one won and one tied; a topic with "
        "one leg is incomplete and counts for no one",
        (
            "ranking: topic wins, then Bradley-Terry score, then name in a balanced design; Bradley-Terry score, then "
            "topic wins, then name when models met different numbers of opponents or complete topics (see design); "
            f"scores within {SCORE_TOLERANCE:g} Elo-like points count as equal"
        ),
        "style covariates: normalised difference (side 1 - side 2) / (side 1 + side 2), rounded to "
        f"{ROUNDING}, z-scored over the debates",
        (
            f"intervals: 95% percentile intervals over {n_boot} topic resamples (seed {seed}): each resample draws as "
            "many topics as the judgments name, with replacement, and every statistic is computed on the same "
            "resamples; draws_used counts the resamples that gave a value (a model with no game in a resample gives "
            "none); an interval needs at least half of them"
        ),
        "ratings (--rating): each method's scores on the top-level verdicts, point value on all topics, "
        "intervals and draws_used as above",
        "self-play (a model against itself) is never ranked; a judge may decide a self-play topic twice "
        "(both legs), counted in self_play",
        (
            "self-preference: a judge and a debater are the same model when their model ids match (both given: ids "
            "alone decide), else when the judge's judge_model_id equals the debater's name, else when the judge's "
            "label equals the debater's name"
        ),
    ]
    if several:
        out += [
            "several judges: the top level uses the panel's majority verdict on each debate (a shared top count is a "
            "tie); per_judge holds each judge's own analysis",
            (
                "judge pairs: kendall_tau_distance compares the two judges' rankings on the debates both "
                "judged (n_debates, over n_models models); kendall_tau_distance_all_verdicts compares their "
                "rankings over all their own verdicts"
            ),
            "Krippendorff's alpha: nominal (side 1, side 2, tie), over the debates between two different "
            "models with at least two verdicts",
        ]
    return out


def analyse_judgments(
    judgments: Sequence[Judgment] | JudgmentTable,
    rule: Rule = "strict",
    reference: Sequence[str] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    controls: Sequence[str] = ("length",),
    n_perm: int = 10000,
    files: Sequence[str] = (),
    ratings: Sequence[str] = (),
) -> ArenaRanking:
    _check_options(controls, ratings)
    table = table_of(judgments)
    _check_table(table, reference)
    draws = TopicDraws(len(table.topics), n_boot, seed)
    several = len(table.judges) > 1
    top_table = panel_verdicts(table) if several else table
    top, notes = rank_one_judge(top_table, rule, reference, draws, controls)
    per_judge: dict[str, JudgeRanking] = {}
    agreement = None
    if several:
        per_judge, agreement, panel_notes = _panel(table, rule, reference, draws, controls)
        notes += panel_notes
    schedule, schedule_notes = schedule_summary(table)
    notes += schedule_notes
    rated = _rated(ratings, top_table, draws)
    prefs = self_preference(table, draws, n_perm)
    notes += [f"self-preference of {e.judge}: {e.note}" for e in prefs.entries if e.note]
    return ArenaRanking(
        **top.model_dump(),
        judges=table.judges,
        verdicts=f"majority of {len(table.judges)} judges per debate (a shared top count is a tie)"
        if several
        else f"one judge: {table.judges[0]}",
        per_judge=per_judge,
        judge_agreement=agreement,
        self_preference=prefs,
        schedule=schedule,
        ratings=rated,
        settings=RankSettings(
            rule=rule,
            n_boot=n_boot,
            seed=seed,
            bradley_terry_l2=L2_PENALTY,
            score_tolerance=SCORE_TOLERANCE,
            covariate_rounding=ROUNDING,
            controls=list(controls),
            n_permutations=n_perm,
            judgments_files=list(files),
        ),
        conventions=conventions(n_boot, seed, several),
        notes=notes,
    )


def _check_options(controls: Sequence[str], ratings: Sequence[str]) -> None:
    """Unknown controls and rating methods are refused before any work."""
    unknown = [c for c in controls if c not in CONTROLS]
    if unknown:
        raise UserError(f"unknown control '{unknown[0]}' (known: {', '.join(CONTROLS)})", field="--control")
    if ratings:
        from debench.arena.ratings import RATINGS

        for name in ratings:
            RATINGS.get(name)  # an unknown or broken method is refused before any work


def _check_table(table: JudgmentTable, reference: Sequence[str] | None) -> None:
    """Some judgments, and a reference ranking naming only models they have."""
    if not len(table):
        raise UserError("no judgments to rank")
    strangers = [m for m in (reference or ()) if m not in table.models]
    if strangers:
        known = ", ".join(table.models)
        raise UserError(
            f"the reference ranking names {', '.join(repr(m) for m in strangers[:3])}, which no "
            f"judgment has (models: {known})"[:400],
            field="--reference",
        )


def _panel(
    table: JudgmentTable, rule: Rule, reference: Sequence[str] | None, draws: TopicDraws, controls: Sequence[str]
) -> tuple[dict[str, JudgeRanking], JudgeAgreement, list[str]]:
    """Several judges: each one's own analysis, their agreement, and the notes on both."""
    notes = []
    uneven = coverage_note(table)
    if uneven:
        notes.append(uneven)
    per_judge = {}
    for label, lines in by_judge(table).items():
        per_judge[label], judge_notes = rank_one_judge(lines, rule, reference, draws, controls)
        notes += [f"{label}: {n}" for n in judge_notes]
    agreement = JudgeAgreement(
        krippendorff_alpha=agreement_alpha(table, draws), pairs=judge_pairs(table, per_judge, rule)
    )
    if agreement.krippendorff_alpha.alpha is None:
        notes.append("Krippendorff's alpha is undefined: no debate has two verdicts, or every verdict is the same")
    return per_judge, agreement, notes


def _rated(ratings: Sequence[str], top_table: JudgmentTable, draws: TopicDraws) -> dict[str, Rating]:
    """Each ``--rating`` method's scores on the top-level verdicts."""
    if not ratings:
        return {}
    from debench.arena.ratings import rate

    return {name: rate(name, top_table, top_table.debaters(), draws) for name in ratings}
