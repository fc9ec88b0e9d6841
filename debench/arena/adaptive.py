"""The adaptive schedule's choice: which debates to run next, given the judgments so far.

The belief about the debaters is a Bradley–Terry posterior: strengths with independent N(0, 2²)
priors (logits), the maximum a posteriori fit to every verdict so far (a tie counts half a win for
each side; a debate's verdicts weigh 1 together, however many judges gave them) and the Laplace
approximation of its covariance (the inverse Hessian). The ranking at stake is that fit's order,
and its uncertainty is, for each *adjacent* pair (c, d) of it, the probability that the two are in
the wrong order, ``Φ(-|Δ| / σ)`` (Δ: the difference of their strengths, σ: its posterior sd).

A candidate debate between a and b is valued by how much it is expected to reduce the sum of those
probabilities — a knowledge-gradient rule (Frazier, Powell & Dayanik 2008) over the ranking's
adjacent pairs. One more game between a and b adds ``w = p (1 - p)`` (p: the fit's probability
that a wins) of information along ``u = e_a - e_b``; for an adjacent direction ``v = e_c - e_d``
its variance becomes ``σ'² = σ² - w (vᵀΣu)² / (1 + w uᵀΣu)``, and before the game is played its
mean moves by ``N(0, σ² - σ'²)`` (the preposterior); the value is ``Φ(-|Δ|/σ) - E Φ(-|Δ'|/σ')``,
summed over the adjacent pairs (Gauss–Hermite quadrature). Pairs whose intervals overlap most
gain most, and a debate between two models that are not adjacent counts for what it tells about
the adjacent pairs through the others. This is what Chatbot Arena's active sampling does in
spirit (pairs sampled to shrink the intervals that matter; Chiang et al. 2024), aimed at the
ranking's neighbours.

A wave of ``k`` debates is chosen from the same judgments: after each choice the covariance takes
the chosen game's information (its outcome unknown: the mean stays), so the wave spreads over
the pairs that need it. Of a chosen pair, the debate is the other leg of a topic the pair has
played once (home and away stay balanced: a pair's legs as side 1 differ by at most one), else a
new topic — the one least used so far — with the side-1 seat to the model that has had it less.
No (pair, topic, side) is ever chosen twice. Equally useful choices are ordered by ``seed`` (a
seeded shuffle of the candidates per wave), so a wave is a function of the judgments and the seed.
Models are known by their place in the list given, never by their names: a pair is keyed in that
order and equal strengths are ranked in it, so renaming the models (or listing the same ones in
another order, which renames their places) renames the choices and changes nothing else.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtr

PRIOR_SD = 2.0
"""Prior standard deviation of each strength (logits)."""
SEPARATION_Z = 1.959963984540054
"""Adjacent strengths whose difference is this many posterior sds from 0 are separated (95%)."""
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(24)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()
TIE_EPS = 1e-12
"""Utilities within this of the best are equally useful (the seeded order decides)."""
TIE_LOGITS = 1e-9
"""Strengths this close are equal in the ranking (the fit of a renamed problem differs by rounding)."""


@dataclass(frozen=True)
class Game:
    """One verdict as a game: ``points`` are side 1's (1 win, 0.5 tie, 0 loss)."""

    side1: str
    side2: str
    points: float
    weight: float = 1.0


@dataclass(frozen=True)
class Slot:
    """A debate that may be run: topic index and the two seats."""

    topic: int
    side1: str
    side2: str


@dataclass(frozen=True)
class Belief:
    models: list[str]
    mean: np.ndarray
    """MAP strengths (logits)."""
    cov: np.ndarray
    """Laplace covariance of the strengths."""

    def ranking(self) -> list[str]:
        """Models by MAP strength, best first; strengths equal to ``TIE_LOGITS`` in the models' order
        (never by name: the choice is the same up to renaming)."""
        order = sorted(range(len(self.models)), key=lambda n: (-round(float(self.mean[n]) / TIE_LOGITS), n))
        return [self.models[n] for n in order]

    def adjacent(self) -> list[tuple[int, int]]:
        """Codes of the ranking's adjacent pairs, the better first."""
        order = [self.models.index(m) for m in self.ranking()]
        return list(itertools.pairwise(order))

    def difference(self, c: int, d: int, cov: np.ndarray | None = None) -> tuple[float, float]:
        """(Δ, σ) of strength c - strength d."""
        s = self.cov if cov is None else cov
        return float(self.mean[c] - self.mean[d]), math.sqrt(max(s[c, c] + s[d, d] - 2 * s[c, d], 0.0))


def _hessian(k: int, i: np.ndarray, j: np.ndarray, h: np.ndarray, precision: float) -> np.ndarray:
    """The prior's precision plus each game's curvature ``h`` on the (i, j) block."""
    flat = np.bincount(np.r_[i * k + i, j * k + j, i * k + j, j * k + i], np.r_[h, h, -h, -h], k * k)
    return precision * np.eye(k) + flat.reshape(k, k)


def belief(models: Sequence[str], games: Iterable[Game], prior_sd: float = PRIOR_SD) -> Belief:
    """The posterior of Bradley–Terry strengths under N(0, prior_sd²) priors (Newton's method; the
    objective is strictly convex)."""
    names = list(models)
    code = {m: n for n, m in enumerate(names)}
    played = [g for g in games if g.side1 != g.side2]
    i = np.array([code[g.side1] for g in played], dtype=np.int64)
    j = np.array([code[g.side2] for g in played], dtype=np.int64)
    y = np.array([g.points for g in played], dtype=float)
    w = np.array([g.weight for g in played], dtype=float)
    k = len(names)
    s = np.zeros(k)
    precision = 1.0 / prior_sd**2
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(s[i] - s[j])))
        g = w * (p - y)
        grad = np.bincount(i, g, k) - np.bincount(j, g, k) + precision * s
        step = np.linalg.solve(_hessian(k, i, j, w * p * (1 - p), precision), grad)
        s -= step
        if np.abs(step).max() < 1e-10:
            break
    p = 1.0 / (1.0 + np.exp(-(s[i] - s[j])))
    return Belief(names, s, np.linalg.inv(_hessian(k, i, j, w * p * (1 - p), precision)))


def misorder(delta: float | np.ndarray, sd: float | np.ndarray) -> np.ndarray:
    """Posterior probability that two models are in the wrong order."""
    return np.asarray(ndtr(-np.abs(delta) / np.maximum(sd, 1e-12)))


def separated(b: Belief, z: float = SEPARATION_Z) -> bool:
    """Every adjacent pair of the ranking is apart: its difference is at least ``z`` posterior sds
    from 0 (the 95% intervals of the differences exclude 0), so no further debate is expected to
    change the order."""
    return all(abs(delta) >= z * sd for delta, sd in (b.difference(c, d) for c, d in b.adjacent()))


@dataclass(frozen=True)
class PairValue:
    utility: float
    """Expected reduction of the summed misorder probabilities of the adjacent pairs."""
    target: tuple[int, int]
    """The adjacent pair whose misorder probability it reduces most."""


def pair_values(b: Belief, cov: np.ndarray, pairs: Sequence[tuple[int, int]]) -> list[PairValue]:
    """The value of one more game for each pair (a, b), under covariance ``cov``."""
    adjacent = b.adjacent()
    if not adjacent or not pairs:
        return [PairValue(0.0, adjacent[0] if adjacent else (0, 0)) for _ in pairs]
    c, d = np.array(adjacent).T
    delta = b.mean[c] - b.mean[d]
    var_v = np.maximum(cov[c, c] + cov[d, d] - 2 * cov[c, d], 1e-300)
    now = misorder(delta, np.sqrt(var_v))
    out = []
    for a, z in pairs:
        p = 1.0 / (1.0 + math.exp(-(b.mean[a] - b.mean[z])))
        w = p * (1 - p)
        var_u = cov[a, a] + cov[z, z] - 2 * cov[a, z]
        cross = cov[c, a] - cov[c, z] - cov[d, a] + cov[d, z]
        gain = w * cross**2 / (1 + w * var_u)
        after_sd = np.sqrt(np.maximum(var_v - gain, 1e-300))
        moved = delta[:, None] + np.sqrt(np.maximum(gain, 0.0))[:, None] * _NODES[None, :]
        expected = (misorder(moved, after_sd[:, None]) * _WEIGHTS).sum(axis=1)
        reduction = now - expected
        best = int(np.argmax(reduction))
        out.append(PairValue(float(reduction.sum()), (int(c[best]), int(d[best]))))
    return out


def _with_game(cov: np.ndarray, mean: np.ndarray, a: int, z: int) -> np.ndarray:
    """The covariance after one more game between a and z (rank-one update)."""
    u = np.zeros(len(mean))
    u[a], u[z] = 1.0, -1.0
    p = 1.0 / (1.0 + math.exp(-(mean[a] - mean[z])))
    w = p * (1 - p)
    su = cov @ u
    return cov - w * np.outer(su, su) / (1 + w * (u @ su))


@dataclass(frozen=True)
class Choice:
    slot: Slot
    utility: float
    target: tuple[str, str]
    target_difference: float
    """Δ of the target pair (logits, the better first) before this wave."""
    target_sd: float
    target_misorder: float
    leg: str
    """'second leg' (the other side of a topic the pair played once) or 'new topic'."""


@dataclass
class _Taken:
    """The debates already run or chosen: the slots, the legs per ordered seats, the topics each pair
    played, each topic's use and each model's side-1 seats."""

    slots: set[Slot]
    legs: Counter[tuple[str, str]] = field(default_factory=Counter)
    per_pair_topic: dict[tuple[str, str], Counter[int]] = field(default_factory=dict)
    topic_use: Counter[int] = field(default_factory=Counter)
    seat1: Counter[str] = field(default_factory=Counter)

    @classmethod
    def of(cls, taken: Iterable[Slot], position: dict[str, int]) -> _Taken:
        """The state of the debates ``taken``; a pair is keyed in the models' order (``position``),
        as ``open_pairs``, ``next_slot`` and ``add`` look it up, whatever the names."""
        state = cls(set(taken))
        for s in state.slots:
            state.legs[(s.side1, s.side2)] += 1
            pair = (s.side1, s.side2) if position[s.side1] < position[s.side2] else (s.side2, s.side1)
            state.per_pair_topic.setdefault(pair, Counter())[s.topic] += 1
            state.topic_use[s.topic] += 1
            state.seat1[s.side1] += 1
        return state

    def open_pairs(self, pairs: list[tuple[str, str]], n_topics: int) -> list[tuple[str, str]]:
        """The pairs with a debate left to play: fewer than two legs on every topic."""
        return [p for p in pairs if sum(self.per_pair_topic.get(p, Counter()).values()) < 2 * n_topics]

    def next_slot(self, x: str, y: str, n_topics: int, ranks: np.ndarray) -> tuple[Slot, str]:
        """The pair's next debate and which leg it is: the other leg of a topic the pair played once
        (the least used such topic), else a new topic with side 1 to the model that had it less."""
        played = self.per_pair_topic.setdefault((x, y), Counter())
        once = [t for t in range(n_topics) if played[t] == 1]
        if once:
            t = min(once, key=lambda t: (self.topic_use[t], ranks[t]))
            return (Slot(t, y, x) if Slot(t, x, y) in self.slots else Slot(t, x, y)), "second leg"
        t = min((t for t in range(n_topics) if played[t] == 0), key=lambda t: (self.topic_use[t], ranks[t]))
        x_first = (self.seat1[x], self.legs[(x, y)]) <= (self.seat1[y], self.legs[(y, x)])
        return (Slot(t, x, y) if x_first else Slot(t, y, x)), "new topic"

    def add(self, slot: Slot, x: str, y: str) -> None:
        """Count the debate chosen for the pair (x, y)."""
        self.slots.add(slot)
        self.legs[(slot.side1, slot.side2)] += 1
        self.per_pair_topic.setdefault((x, y), Counter())[slot.topic] += 1
        self.topic_use[slot.topic] += 1
        self.seat1[slot.side1] += 1


def _most_useful(values: list[PairValue]) -> int:
    """The first of the candidates whose utility is within ``TIE_EPS`` of the best."""
    top = max(v.utility for v in values)
    return next(n for n, v in enumerate(values) if v.utility >= top - TIE_EPS)


def _choice(b: Belief, slot: Slot, value: PairValue, leg: str) -> Choice:
    c, d = value.target
    delta, sd = b.difference(c, d)
    return Choice(slot, value.utility, (b.models[c], b.models[d]), delta, sd, float(misorder(delta, sd)), leg)


def choose(
    models: Sequence[str], n_topics: int, games: Sequence[Game], taken: Iterable[Slot], k: int, seed: int, wave: int
) -> list[Choice]:
    """The next wave: at most ``k`` debates not in ``taken``, chosen from ``games`` alone."""
    names = list(models)
    code = {m: n for n, m in enumerate(names)}
    b = belief(names, games)
    cov = b.cov.copy()
    state = _Taken.of(taken, code)
    rng = np.random.default_rng([seed, wave])
    pairs = [(x, y) for n, x in enumerate(names) for y in names[n + 1 :]]
    pairs = [pairs[n] for n in rng.permutation(len(pairs))]
    ranks = rng.permutation(max(n_topics, 1))  # seeded order of equally used topics
    out: list[Choice] = []
    for _ in range(k):
        open_pairs = state.open_pairs(pairs, n_topics)
        if not open_pairs:
            break
        values = pair_values(b, cov, [(code[x], code[y]) for x, y in open_pairs])
        pick = _most_useful(values)
        x, y = open_pairs[pick]
        slot, leg = state.next_slot(x, y, n_topics, ranks)
        out.append(_choice(b, slot, values[pick], leg))
        state.add(slot, x, y)
        cov = _with_game(cov, b.mean, code[x], code[y])
    return out
