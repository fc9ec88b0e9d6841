"""``net_wins``: per debater, (legs won - legs lost) / legs played against a different model, a tie
counting zero: from -1 (lost every leg) to 1 (won every leg)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from debench.plugin_types import JudgmentTable


@dataclass(frozen=True)
class NetWins:
    description: str = "(legs won - legs lost) / legs played against a different model; ties count 0; -1 to 1"
    higher_is_better: bool = True

    def scores(self, table: JudgmentTable, weights: np.ndarray) -> np.ndarray:
        ranked = table.ranked
        topic, side1, side2, winner = (
            table.topic[ranked],
            table.side1[ranked],
            table.side2[ranked],
            table.winner[ranked],
        )
        legs = np.arange(len(topic))
        net = np.zeros((len(topic), len(table.models)))
        played = np.zeros_like(net)
        sign = np.select([winner == 1, winner == 2], [1.0, -1.0], 0.0)
        np.add.at(net, (legs, side1), sign)
        np.add.at(net, (legs, side2), -sign)
        np.add.at(played, (legs, side1), 1.0)
        np.add.at(played, (legs, side2), 1.0)
        w = np.asarray(weights, dtype=float)[:, topic]
        with np.errstate(all="ignore"):
            out: np.ndarray = (w @ net) / (w @ played)
        return out


NET_WINS = NetWins()
