"""``debench arena rank`` end to end: read judgment files, analyse, write ``ranking.json`` (and the
ratings chart, an SVG), and the text summary printed on the terminal."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from debench.arena.judgment_table import load_judgment_files
from debench.arena.judgments import load_reference
from debench.arena.rank import analyse_judgments
from debench.arena.ranking_file import (
    ArenaRanking,
    JudgeAgreement,
    JudgeRanking,
    Rule,
    SelfPreference,
    StyleControlled,
)
from debench.core.atomic import write_atomic
from debench.core.charts import Estimate, Forest, ForestRow, forest
from debench.core.errors import UserError
from debench.core.numeric import fmt, fmt_estimate
from debench.core.paths import portable_path
from debench.core.svg import Svg


def rank_files(
    judgments: Sequence[Path],
    rule: Rule,
    reference: Path | None,
    output: Path,
    plot: Path | None,
    n_boot: int,
    seed: int,
    controls: Sequence[str] = ("length",),
    n_perm: int = 10000,
    ratings: Sequence[str] = (),
) -> ArenaRanking:
    """Rank, write ``output`` and, with ``plot``, the ratings chart (an ``.svg`` file: any other
    name is refused before the work starts)."""
    if plot is not None and Path(plot).suffix.lower() != ".svg":
        raise UserError("the ratings chart is an SVG drawing: name the file *.svg", path=str(plot), field="--plot")
    result = analyse_judgments(
        load_judgment_files(judgments),
        rule,
        load_reference(reference) if reference else None,
        n_boot,
        seed,
        controls,
        n_perm,
        files=[portable_path(str(p)) for p in judgments],
        ratings=ratings,
    )
    write_atomic(output, result.model_dump_json(indent=2) + "\n")
    if plot:
        ratings_chart(result, subtitle=result.verdicts).save(Path(plot))
    return result


def ratings_chart(result: JudgeRanking, subtitle: str = "") -> Svg:
    """The plain Bradley–Terry ratings with their 95% intervals and, when the judgments carry the
    covariates, the style-controlled ones beside them on the same scale (a rating that moves
    under control is seen moving); models by plain rating, best first."""
    plain, controlled = result.bradley_terry, result.length_controlled
    rows = []
    for m in sorted(plain, key=lambda m: (-plain[m].score, m)):
        points = [
            Estimate(
                plain[m].score,
                plain[m].ci95,
                text=fmt(plain[m].score, ".0f"),
                title=f"{m}, plain: {fmt_estimate(plain[m].score, plain[m].ci95, '.1f')}",
            )
        ]
        if controlled is not None:
            c = controlled.bradley_terry.get(m)
            points.append(
                Estimate(None)
                if c is None
                else Estimate(
                    c.score,
                    c.ci95,
                    text=fmt(c.score, ".0f"),
                    title=f"{m}, controlled: {fmt_estimate(c.score, c.ci95, '.1f')}",
                )
            )
        rows.append(ForestRow(m, points))
    title = f"Debate arena ratings ({result.rule} rule)" + ("" if controlled else ": no style control (see notes)")
    series = ["plain Bradley–Terry", f"controlled for {', '.join(controlled.controls)}"] if controlled else []
    return forest(
        Forest(
            title + (f"\n{subtitle}" if subtitle else ""),
            rows,
            series=series,
            axis="score (Elo-like, 95% CI over topics)",
            empty="no ranked model",
        )
    )


def format_matrix(result: JudgeRanking) -> str:
    models = result.models
    w = max([len(m) for m in models] + [5])
    head = " " * w + "  " + "  ".join(f"{m[:w]:>{w}}" for m in models) + "  " + f"{'total':>5}"
    rows = [head]
    for a in models:
        cells = ["—".rjust(w) if a == b else f"{result.win_matrix[a][b]:>{w}}" for b in models]
        rows.append(f"{a:<{w}}  " + "  ".join(cells) + f"  {result.topic_wins[a]:>5}")
    return "\n".join(rows)


def schedule_lines(result: ArenaRanking) -> list[str]:
    s = result.schedule
    if s is None:
        return []
    how = {
        "round_robin": "every pair on every topic, home and away (round robin)",
        "adaptive": f"chosen adaptively in {s.n_waves} waves (see the note on intervals)",
        "other": "neither a full round robin nor an adaptive schedule",
    }[s.how]
    return [f"debates: {s.n_debates} of the {s.n_possible} of a round robin, {how}"]


def summary_lines(result: ArenaRanking) -> list[str]:
    lines = [
        f"verdicts: {result.verdicts}",
        *schedule_lines(result),
        f"win matrix (topics won by row against column, {result.rule} rule):",
        format_matrix(result),
    ]
    lines.append("ranking: " + " > ".join(result.ranking) + f"  ({result.ranking_order})")
    pb = result.position_bias
    if pb.side1_win_rate is not None:
        lines.append(f"judge position bias: side 1 won {pb.side1_win_rate:.1%} of {pb.n_decided} decided debates")
    if result.kendall_tau_distance is not None:
        lines.append(f"normalized Kendall tau distance to the reference: {result.kendall_tau_distance:.4f}")
    if result.length_controlled is not None:
        lines += style_control_lines(result.length_controlled)
    lines += rating_lines(result)
    if result.per_judge:
        for label, r in result.per_judge.items():
            lines.append(f"judge {label}: " + " > ".join(r.ranking))
    if result.judge_agreement is not None:
        lines += agreement_lines(result.judge_agreement)
    lines += self_preference_lines(result.self_preference)
    lines += [
        f"note: {n}" for n in ([result.self_preference.note] if result.self_preference.note else []) + result.notes
    ]
    return lines


def style_control_lines(lc: StyleControlled) -> list[str]:
    """The style-controlled ranking beside the plain one, and each covariate's coefficient."""
    lines = [
        "style-controlled ranking: "
        + " > ".join(lc.ranking)
        + f" (plain Bradley-Terry: {' > '.join(lc.plain_ranking)})"
    ]
    for name, c in lc.covariates.items():
        value = "no variation" if c.coefficient is None else fmt_estimate(c.coefficient, c.ci95, "+.3f")
        lines.append(f"  {name} coefficient (logits per SD): {value}")
    return lines


def rating_lines(result: ArenaRanking) -> list[str]:
    """Davidson's tie parameter under each rule, then each ``--rating`` method's scores."""
    lines = [
        f"Davidson tie parameter ({rule} rule): nu = {fmt_estimate(fit.nu, fit.nu_ci95, '.3f')}, {fit.n_drawn} "
        f"of {fit.n_topics} topics drawn"
        for rule, fit in result.davidson.items()
    ]
    for name, rating in result.ratings.items():
        shown = ", ".join(
            f"{m} {fmt_estimate(rating.scores[m].score, rating.scores[m].ci95, '.3f')}" for m in rating.ranking
        )
        lines.append(f"rating {name}: {shown}")
    return lines


def agreement_lines(agreement: JudgeAgreement) -> list[str]:
    """Krippendorff's alpha over the panel, then each pair of judges."""
    a = agreement.krippendorff_alpha
    lines = [
        "inter-judge agreement: Krippendorff's alpha (nominal) = "
        + ("undefined" if a.alpha is None else fmt_estimate(a.alpha, a.ci95, ".3f"))
        + f" over {a.n_debates} debates"
    ]
    for p in agreement.pairs:
        tau = "n/a" if p.kendall_tau_distance is None else f"{p.kendall_tau_distance:.4f}"
        every = "n/a" if p.kendall_tau_distance_all_verdicts is None else f"{p.kendall_tau_distance_all_verdicts:.4f}"
        agree = "n/a" if p.verdict_agreement is None else f"{p.verdict_agreement:.1%}"
        lines.append(
            f"  {p.judges[0]} vs {p.judges[1]}: on the {p.n_debates} debates both judged, Kendall tau "
            f"distance {tau} over {p.n_models} models and the same verdict on {agree} of them (over all "
            f"their own verdicts: distance {every})"
        )
    return lines


def self_preference_lines(prefs: SelfPreference) -> list[str]:
    """Each judge that also debated: its own side's points under its judgment against the others'."""
    return [
        f"self-preference of {e.judge} ({', '.join(e.debaters)}): own side's points {e.own_judge_rate:.1%} under its "
        f"own judgment vs {e.other_judges_rate:.1%} under the others ({e.n_debates} debates), difference "
        f"{fmt_estimate(e.difference, e.difference_ci95, '+.3f')}"
        + ("" if e.p_value is None else f", permutation p = {e.p_value:.4f}")
        for e in prefs.entries
        if e.difference is not None
    ]
