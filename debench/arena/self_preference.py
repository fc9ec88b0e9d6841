"""Self-preference: does a judge that is also a debater favour its own model? (pure functions)

A judge and a debater are the same model when their model ids match (``judge_model_id`` and
``side1_model_id``/``side2_model_id``: the underlying model, generation settings excluded); when
either has no id, when their names are equal. On every debate with exactly one own side that the
judge and at least one other judge (of a different model) decided, the own side scores 1 for a win,
0.5 for a tie and 0 for a loss under the judge, against the mean of the other judges' points. The
difference of the two rates is paired over debates: its CI resamples topics, its p-value permutes
which judge of each debate counts as the own one (under no self-preference the labels are
exchangeable).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from debench.arena.judges import Debate
from debench.arena.judgments import Judgment
from debench.arena.outcomes import ranked_legs
from debench.arena.ranking_file import SelfPreference, SelfPreferenceEntry
from debench.arena.topic_bootstrap import percentile_ci, topic_resamples

Identity = Literal["model_id", "name"]
LEVEL = 0.05


class ModelIdentity:
    """Which judges and debaters share an underlying model."""

    def __init__(self, judgments: Sequence[Judgment]):
        self.judge_ids: dict[str, set[str]] = {}
        self.debater_ids: dict[str, set[str]] = {}
        for j in judgments:
            self.judge_ids.setdefault(j.judge_label, set()).update([j.judge_model_id] if j.judge_model_id else [])
            self.debater_ids.setdefault(j.side1, set()).update([j.side1_model_id] if j.side1_model_id else [])
            self.debater_ids.setdefault(j.side2, set()).update([j.side2_model_id] if j.side2_model_id else [])

    def same(self, judge: str, debater: str) -> Identity | None:
        a, b = self.judge_ids.get(judge, set()), self.debater_ids.get(debater, set())
        if a and b:
            return "model_id" if a & b else None
        return "name" if judge == debater else None


def points(winner: int | None, side: int) -> float:
    """The given side's points under a verdict: win 1, tie 0.5, loss 0."""
    return 0.5 if winner is None else float(winner == side)


def permutation_p_value(rows: np.ndarray, k: np.ndarray, observed: float, n_perm: int, seed: int) -> float:
    """Two-sided p-value of the mean (own - mean of others) when the own judge of each debate is
    drawn at random among its ``k + 1`` judges. ``rows``: own points first, then the others', padded."""
    rng = np.random.default_rng(seed)
    totals = rows.sum(axis=1)
    arange = np.arange(len(rows))
    hits, done = 0, 0
    while done < n_perm:
        size = min(1000, n_perm - done)
        pick = np.floor(rng.random((size, len(rows))) * (k + 1)).astype(int)
        chosen = rows[arange, pick]
        stats = (chosen - (totals - chosen) / k).mean(axis=1)
        hits += int(np.sum(np.abs(stats) >= abs(observed) - 1e-12))
        done += size
    return (1 + hits) / (1 + n_perm)


def _paired_points(
    judge: str, own: set[str], groups: dict[str, list[Judgment]], identity: ModelIdentity
) -> tuple[list[str], np.ndarray, list[list[float]], set[str]]:
    """Per debate with exactly one own side decided by ``judge``: topic, own points, the other
    (different-model) judges' points; and the other judges that took part."""
    verdicts: dict[Debate, dict[str, int | None]] = {}
    for label, lines in groups.items():
        for j in ranked_legs(lines):
            verdicts.setdefault(j.debate, {})[label] = j.winner
    topics, own_pts, others, used = [], [], [], set()
    for j in ranked_legs(groups[judge]):
        sides = [s for s, name in ((1, j.side1), (2, j.side2)) if name in own]
        if len(sides) != 1:
            continue
        side, name = sides[0], j.side1 if sides[0] == 1 else j.side2
        other = {lab: w for lab, w in verdicts[j.debate].items() if lab != judge and identity.same(lab, name) is None}
        topics.append(j.topic)
        own_pts.append(points(j.winner, side))
        others.append([points(w, side) for w in other.values()])
        used.update(other)
    return topics, np.array(own_pts), others, used


def _rate_ci(values: np.ndarray, resamples: list[np.ndarray], n_boot: int) -> list[float] | None:
    return percentile_ci([float(values[idx].mean()) for idx in resamples], n_boot)


def self_preference_entry(
    judge: str, groups: dict[str, list[Judgment]], identity: ModelIdentity, n_boot: int, n_perm: int, seed: int
) -> SelfPreferenceEntry | None:
    """None when ``judge`` is no debater's model."""
    debaters = sorted({m for j in ranked_legs([x for lines in groups.values() for x in lines]) for m in (j.side1, j.side2)})
    matches = {d: identity.same(judge, d) for d in debaters}
    own = {d for d, how in matches.items() if how is not None}
    if not own:
        return None
    topics, own_pts, others, used = _paired_points(judge, own, groups, identity)
    entry = SelfPreferenceEntry(
        judge=judge, debaters=sorted(own), identity="model_id" if "model_id" in matches.values() else "name", n_debates=0, other_judges=sorted(used)
    )
    if len(groups) == 1:
        resamples = list(topic_resamples(topics, n_boot, seed))
        entry.n_debates = len(topics)
        entry.own_judge_rate = float(own_pts.mean()) if len(topics) else None
        entry.own_judge_ci95 = _rate_ci(own_pts, resamples, n_boot) if len(topics) else None
        entry.note = "the only judge is also a debater: with no other judge to compare with, its self-preference cannot be measured"
        return entry
    keep = [k for k, o in enumerate(others) if o]
    if not keep:
        entry.note = "no debate of its own model was also judged by a judge of another model: self-preference not measured"
        return entry
    topics = [topics[k] for k in keep]
    own_pts = own_pts[keep]
    k = np.array([len(others[i]) for i in keep], dtype=float)
    rows = np.zeros((len(keep), 1 + int(k.max())))
    rows[:, 0] = own_pts
    for r, i in enumerate(keep):
        rows[r, 1 : 1 + len(others[i])] = others[i]
    other_mean = rows[:, 1:].sum(axis=1) / k
    diff = own_pts - other_mean
    resamples = list(topic_resamples(topics, n_boot, seed))
    entry.n_debates = len(keep)
    entry.own_judge_rate, entry.own_judge_ci95 = float(own_pts.mean()), _rate_ci(own_pts, resamples, n_boot)
    entry.other_judges_rate, entry.other_judges_ci95 = float(other_mean.mean()), _rate_ci(other_mean, resamples, n_boot)
    entry.difference, entry.difference_ci95 = float(diff.mean()), _rate_ci(diff, resamples, n_boot)
    entry.p_value = permutation_p_value(rows, k, entry.difference, n_perm, seed) if n_perm > 0 else None
    entry.detected = None if entry.p_value is None else bool(entry.p_value < LEVEL and entry.difference > 0)
    return entry


def self_preference(groups: dict[str, list[Judgment]], n_boot: int, n_perm: int, seed: int) -> SelfPreference:
    identity = ModelIdentity([j for lines in groups.values() for j in lines])
    entries = [e for judge in groups if (e := self_preference_entry(judge, groups, identity, n_boot, n_perm, seed)) is not None]
    note = None if entries else "no judge is also a debater (by model id, or by name where ids are absent)"
    return SelfPreference(level=LEVEL, n_permutations=n_perm, entries=entries, note=note)
