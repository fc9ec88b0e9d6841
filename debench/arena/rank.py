"""Ranking models from debate judgments: the whole analysis behind ``debench arena rank``.

With one judge the top level is that judge's analysis (see ``one_judge``). With several, the top
level uses the panel's verdict on each debate (the majority; a shared top count is a tie), and the
report adds each judge's own analysis, the agreement between judges and their self-preference.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from debench.arena.judges import agreement_alpha, by_judge, judge_pairs, panel_verdicts
from debench.arena.judgments import Judgment
from debench.arena.one_judge import rank_one_judge
from debench.arena.ranking_file import ArenaRanking, JudgeAgreement, RankSettings, Rule
from debench.arena.self_preference import self_preference
from debench.errors import UserError

CONTROLS = ("length", "sources")


def analyse_judgments(
    judgments: Sequence[Judgment],
    rule: Rule = "strict",
    reference: Sequence[str] | None = None,
    n_boot: int = 1000,
    seed: int = 0,
    controls: Sequence[str] = ("length",),
    n_perm: int = 10000,
    files: Sequence[str] = (),
) -> ArenaRanking:
    unknown = [c for c in controls if c not in CONTROLS]
    if unknown:
        raise UserError(f"unknown control '{unknown[0]}' (known: {', '.join(CONTROLS)})", field="--control")
    groups = by_judge(judgments)
    judges = list(groups)
    several = len(judges) > 1
    top, notes = rank_one_judge(panel_verdicts(judgments) if several else judgments, rule, reference, n_boot, seed, controls)
    per_judge, agreement = {}, None
    if several:
        for label, lines in groups.items():
            per_judge[label], judge_notes = rank_one_judge(lines, rule, reference, n_boot, seed, controls)
            notes += [f"{label}: {n}" for n in judge_notes]
        agreement = JudgeAgreement(krippendorff_alpha=agreement_alpha(groups, n_boot, seed), pairs=judge_pairs(groups, per_judge))
        if agreement.krippendorff_alpha.alpha is None:
            notes.append("Krippendorff's alpha is undefined: no debate has two verdicts, or every verdict is the same")
    prefs = self_preference(groups, n_boot, n_perm, seed)
    notes += [f"self-preference of {e.judge}: {e.note}" for e in prefs.entries if e.note]
    return ArenaRanking(
        **top.model_dump(),
        judges=judges,
        verdicts=f"majority of {len(judges)} judges per debate (a shared top count is a tie)" if several else f"one judge: {judges[0]}",
        per_judge=per_judge,
        judge_agreement=agreement,
        self_preference=prefs,
        settings=RankSettings(rule=rule, n_boot=n_boot, seed=seed, controls=list(controls), n_permutations=n_perm, judgments_files=list(files)),
        notes=notes,
    )


def rank_judgments(judgments: Sequence[Judgment], rule: Rule = "strict", reference: Sequence[str] | None = None, **options: Any) -> dict[str, Any]:
    """The ranking file's content as plain JSON data (``options``: those of ``analyse_judgments``)."""
    return analyse_judgments(judgments, rule, reference, **options).model_dump(mode="json")
