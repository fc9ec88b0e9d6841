"""Bradley–Terry fits with topic-bootstrap intervals (pure functions over arrays of games)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from debench.arena.bradley_terry import ELO_PER_LOGIT, PairwiseFit, TieModel, fit_pairwise
from debench.arena.judgments import Judgment
from debench.arena.ranking_file import Score
from debench.arena.topic_bootstrap import percentile_ci, topic_resamples


@dataclass(frozen=True)
class Games:
    """Pairwise games between ``models``: first side ``i``, second side ``j``, result ``y`` for i
    (1, 0.5 tie, 0), the topic of each game, and covariates ``x`` (first minus second)."""

    models: list[str]
    i: np.ndarray
    j: np.ndarray
    y: np.ndarray
    topics: np.ndarray
    x: np.ndarray = field(default_factory=lambda: np.zeros((0, 0)))

    def subset(self, idx: np.ndarray) -> Games:
        x = self.x[idx] if self.x.size else self.x
        return Games(self.models, self.i[idx], self.j[idx], self.y[idx], self.topics[idx], x)

    def fit(self, ties: TieModel, start: PairwiseFit | None = None) -> PairwiseFit:
        return fit_pairwise(len(self.models), self.i, self.j, self.y, self.x if self.x.size else None, ties=ties, start=start)


def games_from(models: Sequence[str], pairs: Sequence[tuple[str, str, float, str]], x: np.ndarray | None = None) -> Games:
    """``pairs``: (first model, second model, result for the first, topic)."""
    index = {m: k for k, m in enumerate(models)}
    return Games(
        list(models),
        np.array([index[a] for a, _, _, _ in pairs], dtype=int),
        np.array([index[b] for _, b, _, _ in pairs], dtype=int),
        np.array([r for _, _, r, _ in pairs], dtype=float),
        np.array([t for _, _, _, t in pairs], dtype=object),
        np.zeros((0, 0)) if x is None else np.asarray(x, dtype=float),
    )


def leg_games(models: Sequence[str], legs: Sequence[Judgment], x: np.ndarray | None = None) -> Games:
    """One game per leg, side 1 first; a tie is 0.5."""
    return games_from(models, [(j.side1, j.side2, 0.5 if j.winner is None else 1.0 if j.winner == 1 else 0.0, j.topic) for j in legs], x)


def fit_with_draws(games: Games, ties: TieModel, n_boot: int, seed: int) -> tuple[PairwiseFit, list[PairwiseFit]]:
    """The fit on all games and one fit per topic resample (each started from the full fit)."""
    point = games.fit(ties)
    return point, [games.subset(idx).fit(ties, start=point) for idx in topic_resamples(games.topics, n_boot, seed)]


def elo_scores(games: Games, point: PairwiseFit, draws: Sequence[PairwiseFit], n_boot: int) -> dict[str, Score]:
    return {
        m: Score(
            score=float(point.strengths[k] * ELO_PER_LOGIT),
            ci95=percentile_ci([float(d.strengths[k] * ELO_PER_LOGIT) for d in draws], n_boot),
        )
        for k, m in enumerate(games.models)
    }


def by_score(scores: dict[str, Score]) -> list[str]:
    return sorted(scores, key=lambda m: (-scores[m].score, m))
