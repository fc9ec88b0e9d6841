"""``win_rate``: each debater's share of the legs it won against a different model, a tie counting
half (an entry point of ``debench.arena_ratings``; ``debench arena rank --rating win_rate``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from debench.arena.judgment_table import JudgmentTable


@dataclass(frozen=True)
class WinRate:
    description: str = "share of the legs won against a different model (a tie counts half), 0 to 1"
    higher_is_better: bool = True

    def scores(self, table: JudgmentTable, weights: np.ndarray) -> np.ndarray:
        ranked = table.ranked
        topic, side1, side2, winner = (
            table.topic[ranked],
            table.side1[ranked],
            table.side2[ranked],
            table.winner[ranked],
        )
        n_models = len(table.models)
        # per leg: the points each side took (1, 0.5 or 0) and the leg itself, one column per model
        won = np.zeros((len(topic), n_models))
        played = np.zeros((len(topic), n_models))
        rows = np.arange(len(topic))
        points1 = np.where(winner == 1, 1.0, np.where(winner == 0, 0.5, 0.0))
        np.add.at(won, (rows, side1), points1)
        np.add.at(won, (rows, side2), 1.0 - points1)
        np.add.at(played, (rows, side1), 1.0)
        np.add.at(played, (rows, side2), 1.0)
        leg_weights = np.asarray(weights, dtype=float)[:, topic]  # (b, legs)
        with np.errstate(all="ignore"):
            out: np.ndarray = (leg_weights @ won) / (leg_weights @ played)
        return out


WIN_RATE = WinRate()
