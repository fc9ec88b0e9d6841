"""The normalized Kendall tau distance between two rankings (pure function)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import combinations


def kendall_tau_distance(ranking: Sequence[str], reference: Sequence[str]) -> tuple[float | None, list[str]]:
    """Share of model pairs ordered differently (0 = same order, 1 = reversed), over the models in
    both rankings; also the ranked models missing from the reference."""
    common = [m for m in ranking if m in reference]
    missing = [m for m in ranking if m not in reference]
    if len(common) < 2:
        return None, missing
    pos = {m: list(reference).index(m) for m in common}
    discordant = sum(1 for x, y in combinations(common, 2) if pos[x] > pos[y])  # x is ranked above y
    return discordant / math.comb(len(common), 2), missing
