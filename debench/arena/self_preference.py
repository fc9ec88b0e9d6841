"""Self-preference: does a judge that is also a debater favour its own model? (pure functions)

A judge and a debater are the same model, in this order of evidence:

1. both carry model ids (``judge_model_id``; ``side1_model_id`` / ``side2_model_id``: the
   underlying model, generation settings excluded): the same model when they share one — names
   are then ignored;
2. otherwise when the judge's ``judge_model_id`` equals the debater's name (``model_id_as_name``);
3. otherwise when the debater has no model id and the judge's label equals its name (``name``;
   a debater with model ids is matched by ids only, as ``docs/arena.md`` says).

On every debate with exactly one own side that the judge and at least one other judge (of a
different model) decided, the own side scores 1 for a win, 0.5 for a tie and 0 for a loss under
the judge, against the mean of the other judges' points. The difference of the two rates is paired
over debates: its CI resamples topics, its p-value permutes which judge of each debate counts as
the own one (under no self-preference the labels are exchangeable). Debates whose verdicts are
alike as multisets permute alike, so the permutations are drawn per kind of debate (a multinomial
count of which verdict is the "own" one): the same distribution as shuffling debate by debate, at
a cost that does not grow with the debates.
"""

from __future__ import annotations

from typing import Literal

import numpy as np

from debench.arena.judgment_table import JudgmentTable, group_ids
from debench.arena.ranking_file import SelfPreference, SelfPreferenceEntry
from debench.arena.topic_bootstrap import TopicDraws, interval

Identity = Literal["model_id", "model_id_as_name", "name"]
IDENTITY_ORDER: tuple[Identity, ...] = ("model_id", "model_id_as_name", "name")
LEVEL = 0.05
POINT_VALUES = np.array([0.0, 0.5, 1.0])


class ModelIdentity:
    """Which judges and debaters share an underlying model."""

    def __init__(self, table: JudgmentTable):
        self.judge_ids = table.judge_ids
        self.debater_ids = table.debater_ids

    def same(self, judge: str, debater: str) -> Identity | None:
        a, b = self.judge_ids.get(judge, frozenset()), self.debater_ids.get(debater, frozenset())
        if a and b:
            return "model_id" if a & b else None
        if debater in a:
            return "model_id_as_name"
        return "name" if not b and judge == debater else None


def points(winner: np.ndarray, side: np.ndarray) -> np.ndarray:
    """The given side's points under each verdict: win 1, tie 0.5, loss 0."""
    return np.where(winner == 0, 0.5, (winner == side).astype(float))


def permutation_p_value(values: np.ndarray, k: np.ndarray, observed: float, n_perm: int, seed: int) -> float:
    """Two-sided p-value of the mean (own - mean of the others) when the own judge of each debate
    is drawn at random among its ``k + 1`` judges. ``values``: per debate, how many of its k + 1
    verdicts give the own side 0, 0.5 and 1 point."""
    rng = np.random.default_rng(seed)
    kinds, mult = np.unique(np.column_stack([k, values]).astype(np.int64), axis=0, return_counts=True)
    stats = np.zeros(n_perm)
    for (kk, *counts), m in zip(kinds, mult, strict=True):
        chosen = rng.multinomial(m, np.array(counts) / (kk + 1), size=n_perm) @ POINT_VALUES
        stats += (1 + 1 / kk) * chosen - m * (np.array(counts) @ POINT_VALUES) / kk
    stats /= len(k)
    return float((1 + np.sum(np.abs(stats) >= abs(observed) - 1e-12)) / (1 + n_perm))


def _rates(topics: np.ndarray, columns: np.ndarray, draws: TopicDraws) -> tuple[list[list[float] | None], int]:
    """Topic-bootstrap CIs of the means of ``columns`` ((debates, q)) and the draws used."""
    per_topic = np.zeros((draws.n_topics, columns.shape[1] + 1))
    np.add.at(per_topic, topics, np.column_stack([columns, np.ones(len(columns))]))
    totals = draws.totals(per_topic)
    if not len(totals):
        return [None] * columns.shape[1], 0
    with np.errstate(divide="ignore", invalid="ignore"):
        means = totals[:, :-1] / np.where(totals[:, -1:] > 0, totals[:, -1:], np.nan)
    cis = [interval(means[:, c], draws.n_boot) for c in range(columns.shape[1])]
    return [ci for ci, _ in cis], cis[0][1]


def self_preference_entry(
    table: JudgmentTable, judge: int, identity: ModelIdentity, draws: TopicDraws, n_perm: int
) -> SelfPreferenceEntry | None:
    """None when ``judge`` is no debater's model."""
    label = table.judges[judge]
    debaters = table.debaters()
    matches = {d: identity.same(label, table.models[d]) for d in debaters}
    own = np.array(sorted(d for d, how in matches.items() if how is not None), dtype=np.int64)
    if not len(own):
        return None
    how = next(i for i in IDENTITY_ORDER if i in matches.values())
    ranked = table.select(table.ranked)
    gid, _ = group_ids(ranked.topic, ranked.side1, ranked.side2)
    mine = ranked.judge == judge
    own1, own2 = np.isin(ranked.side1, own), np.isin(ranked.side2, own)
    pick = mine & (own1 ^ own2)
    side = np.where(own1, 1, 2)
    own_model = np.where(own1, ranked.side1, ranked.side2)
    entry = SelfPreferenceEntry(judge=label, debaters=[table.models[d] for d in own], identity=how, n_debates=0)
    own_points = points(ranked.winner[pick], side[pick])
    if len(table.judges) == 1:
        entry.n_debates = int(pick.sum())
        if entry.n_debates:
            entry.own_judge_rate = float(own_points.mean())
            (entry.own_judge_ci95,), entry.draws_used = _rates(ranked.topic[pick], own_points[:, None], draws)
        entry.note = (
            "the only judge is also a debater: with no other judge to compare with, its "
            "self-preference cannot be measured"
        )
        return entry
    # per debate of this judge with one own side: the own side, its model; the other judges' points
    n_groups = int(gid.max()) + 1 if len(gid) else 0
    debate_side, debate_model = np.zeros(n_groups, dtype=np.int64), np.full(n_groups, -1)
    debate_side[gid[pick]], debate_model[gid[pick]] = side[pick], own_model[pick]
    same = np.array(
        [[identity.same(j, table.models[m]) is not None for m in range(len(table.models))] for j in table.judges]
    )
    other = ~mine & (debate_model[gid] >= 0)
    other[other] = ~same[ranked.judge[other], debate_model[gid[other]]]
    other_points = points(ranked.winner[other], debate_side[gid[other]])
    value_counts = np.column_stack(
        [np.bincount(gid[other], weights=other_points == v, minlength=n_groups) for v in POINT_VALUES]
    )
    k_all = value_counts.sum(axis=1)
    rows = np.flatnonzero(pick)
    keep = k_all[gid[rows]] > 0
    entry.other_judges = sorted(table.judges[j] for j in np.unique(ranked.judge[other & (k_all[gid] > 0)]))
    if not keep.any():
        entry.note = (
            "no debate of its own model was also judged by a judge of another model: self-preference not measured"
        )
        return entry
    g = gid[rows[keep]]
    own_pts = own_points[keep]
    k = k_all[g]
    other_mean = (value_counts[g] @ POINT_VALUES) / k
    diff = own_pts - other_mean
    entry.n_debates = len(g)
    entry.own_judge_rate, entry.other_judges_rate, entry.difference = (
        float(own_pts.mean()),
        float(other_mean.mean()),
        float(diff.mean()),
    )
    (entry.own_judge_ci95, entry.other_judges_ci95, entry.difference_ci95), entry.draws_used = _rates(
        ranked.topic[rows[keep]], np.column_stack([own_pts, other_mean, diff]), draws
    )
    if n_perm > 0:
        all_values = value_counts[g] + (own_pts[:, None] == POINT_VALUES[None, :])
        entry.p_value = permutation_p_value(all_values, k, entry.difference, n_perm, draws.seed)
        entry.detected = bool(entry.p_value < LEVEL and entry.difference > 0)
    return entry


def self_preference(table: JudgmentTable, draws: TopicDraws, n_perm: int) -> SelfPreference:
    identity = ModelIdentity(table)
    entries = [
        e
        for j in range(len(table.judges))
        if (e := self_preference_entry(table, j, identity, draws, n_perm)) is not None
    ]
    note = None if entries else "no judge is also a debater (by model id, or by name where ids are absent)"
    return SelfPreference(level=LEVEL, n_permutations=n_perm, entries=entries, note=note)
