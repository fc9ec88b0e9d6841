"""Length-controlled (style-controlled) Bradley–Terry ratings, as Arena-Hard's style control does.

Each covariate is the normalised difference between the two sides of a debate,
(side 1 - side 2) / (side 1 + side 2) (0 when both are 0), rounded to ``ROUNDING`` (so debates
share cells and a million of them fit in seconds; the rounding moves a coefficient by about
ROUNDING^2 / 12 of the covariate's variance: ~1e-4 of it here), then z-scored over the debates. It
is fitted jointly with the models' strengths, so a strength is what is left of a model's wins once
the judge's taste for length (or for quoted sources) is accounted for; the coefficient says how
much the judge rewards one standard deviation more of it, in logits.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from debench.arena.bradley_terry import PairwiseFits, Problem
from debench.arena.bt_bootstrap import (
    by_score,
    elo_scores,
    kendall_tau_distance,
    leg_problem,
)
from debench.arena.judgment_table import MISSING, JudgmentTable
from debench.arena.ranking_file import Coefficient, Score, StyleControlled
from debench.arena.topic_bootstrap import interval

COVARIATE_FIELDS = {"length": ("side1_words", "side2_words"), "sources": ("side1_sources", "side2_sources")}
ROUNDING = 0.01
STEPS = round(1 / ROUNDING)


def normalised_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    total = a + b
    out: np.ndarray = np.divide(a - b, total, out=np.zeros_like(total), where=total > 0)
    return out


def raw_covariates(legs: JudgmentTable, controls: Sequence[str]) -> tuple[np.ndarray | None, str | None]:
    """One column of rounded normalised differences per control, in steps of ``ROUNDING``
    (integers), or why it cannot be built."""
    columns = []
    for name in controls:
        values = legs.words if name == "length" else legs.sources
        missing = int((values == MISSING).any(axis=1).sum())
        if missing:
            f1, f2 = COVARIATE_FIELDS[name]
            return None, f"{name} control skipped: {missing} of {len(legs)} debates lack {f1}/{f2}"
        columns.append(np.rint(normalised_difference(values[:, 0], values[:, 1]) * STEPS).astype(np.int64))
    return np.column_stack(columns), None


def z_score(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Columns centred and scaled to unit SD (a column that never varies stays 0); means and SDs."""
    mean, sd = raw.mean(axis=0), raw.std(axis=0)
    z = np.divide(raw - mean, sd, out=np.zeros_like(raw), where=sd > 0)
    return z, mean, sd


@dataclass(frozen=True)
class StyleProblem:
    """The controlled fit to make, and what its report needs."""

    problem: Problem
    controls: list[str]
    mean: np.ndarray
    sd: np.ndarray
    n_debates: int


def style_problem(
    table: JudgmentTable, controls: Sequence[str], n_topics: int
) -> tuple[StyleProblem | None, str | None]:
    """The controlled fit on the legs between two different models, or None and why not."""
    legs = table.select(table.ranked)
    if not controls or not len(legs):
        return None, None
    steps, why = raw_covariates(legs, controls)
    if steps is None:
        return None, why
    z, mean, sd = z_score(steps * ROUNDING)
    return StyleProblem(leg_problem(table, n_topics, z, steps), list(controls), mean, sd, len(legs)), None


def style_controlled(
    table: JudgmentTable,
    models: list[int],
    style: StyleProblem,
    fits: PairwiseFits,
    plain: dict[str, Score],
    n_boot: int,
) -> StyleControlled:
    covariates = {}
    for c, name in enumerate(style.controls):
        varies = style.sd[c] > 0
        ci, used = interval(fits.draw_beta[:, c], n_boot) if varies else (None, 0)
        covariates[name] = Coefficient(
            coefficient=float(fits.beta[c]) if varies else None,
            ci95=ci,
            raw_mean=float(style.mean[c]),
            raw_sd=float(style.sd[c]),
            draws_used=used,
        )
    scores = elo_scores(table, models, fits, n_boot)
    ranking, plain_ranking = by_score(scores), by_score(plain)
    return StyleControlled(
        controls=style.controls,
        covariates=covariates,
        bradley_terry=scores,
        ranking=ranking,
        plain_ranking=plain_ranking,
        kendall_tau_distance_to_plain=kendall_tau_distance(ranking, plain_ranking)[0],
        n_debates=style.n_debates,
    )
