"""Length-controlled (style-controlled) Bradley–Terry ratings, as Arena-Hard's style control does.

Each covariate is the normalised difference between the two sides of a debate,
(side 1 - side 2) / (side 1 + side 2) (0 when both are 0), z-scored over the debates. It is fitted
jointly with the models' strengths, so a strength is what is left of a model's wins once the
judge's taste for length (or for quoted sources) is accounted for; the coefficient says how much the
judge rewards one standard deviation more of it, in logits.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from debench.arena.bt_bootstrap import by_score, elo_scores, fit_with_draws, leg_games
from debench.arena.judgments import Judgment
from debench.arena.ranking_distance import kendall_tau_distance
from debench.arena.ranking_file import Coefficient, Score, StyleControlled
from debench.arena.topic_bootstrap import percentile_ci

COVARIATE_FIELDS = {"length": ("side1_words", "side2_words"), "sources": ("side1_sources", "side2_sources")}


def normalised_difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    total = a + b
    return np.divide(a - b, total, out=np.zeros_like(total), where=total > 0)


def raw_covariates(legs: Sequence[Judgment], controls: Sequence[str]) -> tuple[np.ndarray | None, str | None]:
    """One column of normalised differences per control, or why it cannot be built."""
    columns = []
    for name in controls:
        f1, f2 = COVARIATE_FIELDS[name]
        missing = sum(1 for j in legs if getattr(j, f1) is None or getattr(j, f2) is None)
        if missing:
            return None, f"{name} control skipped: {missing} of {len(legs)} debates lack {f1}/{f2}"
        columns.append(normalised_difference(np.array([getattr(j, f1) for j in legs]), np.array([getattr(j, f2) for j in legs])))
    return np.column_stack(columns), None


def z_score(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Columns centred and scaled to unit SD (a column that never varies stays 0); means and SDs."""
    mean, sd = raw.mean(axis=0), raw.std(axis=0)
    z = np.divide(raw - mean, sd, out=np.zeros_like(raw), where=sd > 0)
    return z, mean, sd


def style_controlled(
    models: Sequence[str], legs: Sequence[Judgment], controls: Sequence[str], plain: dict[str, Score], n_boot: int, seed: int
) -> tuple[StyleControlled | None, str | None]:
    """The controlled fit on ``legs`` (two different models each), or None and why not."""
    if not controls or not legs:
        return None, None
    raw, why = raw_covariates(legs, controls)
    if raw is None:
        return None, why
    z, mean, sd = z_score(raw)
    games = leg_games(models, legs, z)
    point, draws = fit_with_draws(games, "half", n_boot, seed)
    covariates = {
        name: Coefficient(
            coefficient=float(point.beta[c]) if sd[c] > 0 else None,
            ci95=percentile_ci([float(d.beta[c]) for d in draws], n_boot) if sd[c] > 0 else None,
            raw_mean=float(mean[c]),
            raw_sd=float(sd[c]),
        )
        for c, name in enumerate(controls)
    }
    scores = elo_scores(games, point, draws, n_boot)
    ranking, plain_ranking = by_score(scores), by_score(plain)
    return (
        StyleControlled(
            controls=list(controls),
            covariates=covariates,
            bradley_terry=scores,
            ranking=ranking,
            plain_ranking=plain_ranking,
            kendall_tau_distance_to_plain=kendall_tau_distance(ranking, plain_ranking)[0],
            n_debates=len(legs),
        ),
        None,
    )
