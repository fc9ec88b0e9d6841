"""Ranking models from debate judgments (pure functions).

A *leg* is one debate; two legs (sides swapped) make a *topic* between two models. Rules:

* ``strict`` — a model takes the topic when it wins both legs (the paper's stated rule);
* ``lenient`` — also when it wins one leg and the other is a tie (what the paper's tables count).

Anything else is a drawn topic. A topic with only one leg is *incomplete* and counts for no one.
Self-play (the same model on both sides) is reported apart and never enters the ranking.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from itertools import combinations
from typing import Any, Literal

import numpy as np

from debench.arena.bradley_terry import fit_bradley_terry
from debench.arena.judgments import Judgment
from debench.metrics.bootstrap import wilson_ci

Rule = Literal["strict", "lenient"]


def leg_winner(j: Judgment) -> str | None:
    return None if j.winner is None else (j.side1 if j.winner == 1 else j.side2)


def topic_outcomes(judgments: Sequence[Judgment], rule: Rule) -> tuple[list[dict[str, Any]], int]:
    """Per (topic, pair): the model that took it (or None = drawn); and the number incomplete."""
    legs: dict[tuple[str, frozenset[str]], list[Judgment]] = defaultdict(list)
    for j in judgments:
        if j.side1 != j.side2:
            legs[(j.topic, frozenset((j.side1, j.side2)))].append(j)
    outcomes, incomplete = [], 0
    for (topic, pair), js in sorted(legs.items(), key=lambda kv: (kv[0][0], sorted(kv[0][1]))):
        if len(js) < 2:
            incomplete += 1
            continue
        a, b = sorted(pair)
        won = [leg_winner(j) for j in js]
        taker = None
        for m in (a, b):
            wins, ties = won.count(m), won.count(None)
            if wins == 2 or (rule == "lenient" and wins == 1 and ties == 1):
                taker = m
        outcomes.append({"topic": topic, "a": a, "b": b, "winner": taker})
    return outcomes, incomplete


def win_matrix(models: Sequence[str], outcomes: Sequence[dict[str, Any]]) -> dict[str, dict[str, int]]:
    m = {a: {b: 0 for b in models if b != a} for a in models}
    for o in outcomes:
        if o["winner"] is not None:
            loser = o["b"] if o["winner"] == o["a"] else o["a"]
            m[o["winner"]][loser] += 1
    return m


def kendall_tau_distance(ranking: Sequence[str], reference: Sequence[str]) -> tuple[float | None, list[str]]:
    """Share of model pairs ordered differently (0 = same order, 1 = reversed), over the models in
    both rankings; also the ranked models missing from the reference."""
    common = [m for m in ranking if m in reference]
    missing = [m for m in ranking if m not in reference]
    if len(common) < 2:
        return None, missing
    pos = {m: reference.index(m) for m in common}
    discordant = sum(1 for x, y in combinations(common, 2) if pos[x] > pos[y])  # x is ranked above y
    return discordant / math.comb(len(common), 2), missing


def position_bias(judgments: Sequence[Judgment]) -> dict[str, Any]:
    legs = [j for j in judgments if j.side1 != j.side2]
    decided = [j for j in legs if j.winner is not None]
    k = sum(1 for j in decided if j.winner == 1)
    return {
        "side1_win_rate": k / len(decided) if decided else None,
        "ci95": wilson_ci(k, len(decided)),
        "n_decided": len(decided),
        "n_ties": len(legs) - len(decided),
    }


def self_play(judgments: Sequence[Judgment]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for j in judgments:
        if j.side1 == j.side2:
            row = out.setdefault(j.side1, {"side1_wins": 0, "side2_wins": 0, "ties": 0})
            row["side1_wins" if j.winner == 1 else "side2_wins" if j.winner == 2 else "ties"] += 1
    return out


def _games(judgments: Sequence[Judgment]) -> list[tuple[str, str, float]]:
    return [(j.side1, j.side2, 0.5 if j.winner is None else 1.0 if j.winner == 1 else 0.0) for j in judgments if j.side1 != j.side2]


def bradley_terry_with_ci(models: Sequence[str], judgments: Sequence[Judgment], n_boot: int, seed: int) -> dict[str, dict[str, Any]]:
    """BT scores on every leg; 95% CIs by resampling topics (all legs of a topic together)."""
    point = fit_bradley_terry(models, _games(judgments))
    by_topic: dict[str, list[Judgment]] = defaultdict(list)
    for j in judgments:
        by_topic[j.topic].append(j)
    topics = sorted(by_topic)
    rng = np.random.default_rng(seed)
    draws: dict[str, list[float]] = {m: [] for m in models}
    for _ in range(n_boot if len(topics) > 1 else 0):
        sample = [j for t in rng.choice(topics, size=len(topics), replace=True) for j in by_topic[t]]
        fit = fit_bradley_terry(models, _games(sample))
        for m in models:
            draws[m].append(fit[m])
    out = {}
    for m in models:
        ci = [float(x) for x in np.percentile(draws[m], [2.5, 97.5])] if draws[m] else None
        out[m] = {"score": point[m], "ci95": ci}
    return out


def rank_judgments(
    judgments: Sequence[Judgment], rule: Rule = "strict", reference: Sequence[str] | None = None, n_boot: int = 1000, seed: int = 0
) -> dict[str, Any]:
    models = sorted({m for j in judgments if j.side1 != j.side2 for m in (j.side1, j.side2)})
    outcomes, incomplete = topic_outcomes(judgments, rule)
    matrix = win_matrix(models, outcomes)
    topic_wins = {m: sum(matrix[m].values()) for m in models}
    ranked_legs = [j for j in judgments if j.side1 != j.side2]
    bt = bradley_terry_with_ci(models, ranked_legs, n_boot, seed)
    ranking = sorted(models, key=lambda m: (-topic_wins[m], -bt[m]["score"], m))
    out: dict[str, Any] = {
        "rule": rule,
        "models": models,
        "win_matrix": matrix,
        "topic_wins": topic_wins,
        "topics_drawn": sum(1 for o in outcomes if o["winner"] is None),
        "incomplete_pairs": incomplete,
        "ranking": ranking,
        "ranking_order": "topic wins, then Bradley-Terry score, then name",
        "bradley_terry": bt,
        "bradley_terry_scale": "Elo-like: 400/ln(10) points per logit, mean 0; ties count half",
        "position_bias": position_bias(judgments),
        "self_play": self_play(judgments),
        "n_judgments": len(judgments),
    }
    if reference is not None:
        dist, missing = kendall_tau_distance(ranking, reference)
        out["kendall_tau_distance"] = dist
        out["reference"] = list(reference)
        out["reference_missing"] = missing
    return out


def format_matrix(result: dict[str, Any]) -> str:
    models = result["models"]
    w = max([len(m) for m in models] + [5])
    head = " " * w + "  " + "  ".join(f"{m[:w]:>{w}}" for m in models) + "  " + f"{'total':>5}"
    rows = [head]
    for a in models:
        cells = ["—".rjust(w) if a == b else f"{result['win_matrix'][a][b]:>{w}}" for b in models]
        rows.append(f"{a:<{w}}  " + "  ".join(cells) + f"  {result['topic_wins'][a]:>5}")
    return "\n".join(rows)
