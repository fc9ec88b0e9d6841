"""The straightforward computation of ``arena rank``'s fits, for the benchmark and the tests.

Every judgment is one game, and every topic resample refits all its games, one by one, with
scipy's trust-region Newton method — what ``arena rank`` did before it aggregated (issue 22). It
shares only the definitions with ``debench.arena`` (the penalised likelihoods, ties counting half,
the rounded and z-scored length covariate, topic outcomes under a rule) and the seeded topic
resamples (``TopicDraws``), so on the same input the two must give the same scores and intervals.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from debench.arena.topic_bootstrap import TopicDraws

ELO = 400 / math.log(10)
L2 = 0.01
LOG_NU_MAX = 12.0


@dataclass(frozen=True)
class Fit:
    strengths: np.ndarray
    beta: np.ndarray
    nu: float | None


def fit_per_game(
    n_models: int,
    i: np.ndarray,
    j: np.ndarray,
    y: np.ndarray,
    x: np.ndarray | None = None,
    ties: str = "half",
    start: Fit | None = None,
) -> Fit:
    """Games one by one: d = s_i - s_j + x . beta; ties half (y = 0.5) or Davidson's nu."""
    i, j, y = np.asarray(i, dtype=int), np.asarray(j, dtype=int), np.asarray(y, dtype=float)
    x = np.zeros((len(y), 0)) if x is None else np.asarray(x, dtype=float).reshape(len(y), -1)
    p = x.shape[1]
    fit_nu = ties == "davidson" and bool(np.any(y == 0.5))
    if len(y) == 0:
        return Fit(np.zeros(n_models), np.zeros(p), 0.0 if ties == "davidson" else None)
    if fit_nu and np.all(y == 0.5):
        return Fit(np.zeros(n_models), np.zeros(p), math.exp(LOG_NU_MAX))
    z = np.zeros((len(y), n_models + p))
    z[np.arange(len(y)), i] += 1.0
    z[np.arange(len(y)), j] -= 1.0
    z[:, n_models:] = x
    k = n_models + p
    win, loss, tie = y == 1.0, y == 0.0, y == 0.5

    def terms(theta: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        d = z @ theta[:k]
        grad, hess = np.zeros_like(theta), np.zeros((len(theta), len(theta)))
        if fit_nu:
            a, log_nu = d / 2, theta[k]
            log_den = np.logaddexp(np.logaddexp(a, -a), log_nu)
            nll = float(np.sum(log_den - np.where(win, a, 0.0) + np.where(loss, a, 0.0) - np.where(tie, log_nu, 0.0)))
            pw, pl, pt = np.exp(a - log_den), np.exp(-a - log_den), np.exp(log_nu - log_den)
            margin = pw - pl
            g_d = 0.5 * (margin - (win.astype(float) - loss.astype(float)))
            h_dd = 0.25 * ((pw + pl) - margin**2)
            grad[k] = np.sum(pt - tie)
            hess[k, k] = np.sum(pt * (1 - pt))
            hess[:k, k] = hess[k, :k] = z.T @ (-0.5 * pt * margin)
        else:
            nll = float(np.sum(y * np.logaddexp(0.0, -d) + (1 - y) * np.logaddexp(0.0, d)))
            prob = 1 / (1 + np.exp(-d))
            g_d, h_dd = prob - y, prob * (1 - prob)
        grad[:k] = z.T @ g_d + 2 * L2 * theta[:k]
        hess[:k, :k] = (z * h_dd[:, None]).T @ z + 2 * L2 * np.eye(k)
        return nll + L2 * float(np.sum(theta[:k] ** 2)), grad, hess

    x0 = np.zeros(k + (1 if fit_nu else 0))
    if start is not None:
        x0[:k] = np.r_[start.strengths, start.beta]
        if fit_nu and start.nu:
            x0[k] = math.log(start.nu)
    res = minimize(
        lambda t: terms(t)[:2], x0, jac=True, hess=lambda t: terms(t)[2], method="trust-exact", options={"gtol": 1e-9}
    )
    s = res.x[:n_models]
    nu = None if ties != "davidson" else float(math.exp(min(res.x[k], LOG_NU_MAX))) if fit_nu else 0.0
    return Fit(s - s.mean(), res.x[n_models:k].copy(), nu)


def read_lines(paths: Iterable[Path]) -> list[dict[str, Any]]:
    return [
        json.loads(line)
        for path in paths
        for line in Path(path).read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


def _ci(values: Sequence[float], n_boot: int) -> list[float] | None:
    v = [x for x in values if np.isfinite(x)]
    if n_boot <= 0 or len(v) < max(2, n_boot // 2):
        return None
    lo, hi = np.percentile(v, [2.5, 97.5])
    return [float(lo), float(hi)]


def _bootstrapped(
    n_models: int, games: dict[str, np.ndarray], ties: str, counts: Iterable[np.ndarray], point: Fit
) -> tuple[Fit, list[Fit | None], list[np.ndarray]]:
    """One fit per resample from ``point`` (the fit on all games): each game repeated as often as
    its topic was drawn."""
    x = games.get("x")
    fits, played = [], []
    for row in counts:
        reps = row[games["topic"]].astype(int)
        idx = np.repeat(np.arange(len(reps)), reps)
        played.append(np.bincount(np.r_[games["i"][idx], games["j"][idx]], minlength=n_models) > 0)
        fits.append(
            fit_per_game(
                n_models,
                games["i"][idx],
                games["j"][idx],
                games["y"][idx],
                None if x is None else x[idx],
                ties,
                start=point,
            )
        )
    return point, fits, played


def _scores(
    models: list[str], point: Fit, fits: list[Fit | None], played: list[np.ndarray], n_boot: int
) -> dict[str, dict[str, Any]]:
    out = {}
    for k, m in enumerate(models):
        draws = [
            f.strengths[k] * ELO if f is not None and pl[k] else float("nan")
            for f, pl in zip(fits, played, strict=True)
        ]
        out[m] = {"score": float(point.strengths[k] * ELO), "ci95": _ci(draws, n_boot)}
    return out


def topic_outcomes(lines: list[dict[str, Any]], rule: str) -> list[tuple[str, str, str, str | None]]:
    """(topic, a, b, taker or None) per complete (topic, pair), a < b by name."""
    legs: dict[tuple[str, str, str], list[str | None]] = defaultdict(list)
    for line in lines:
        s1, s2 = line["side1"], line["side2"]
        if s1 == s2:
            continue
        winner = None if line["winner"] is None else s1 if line["winner"] == 1 else s2
        legs[(line["topic"], *sorted((s1, s2)))].append(winner)
    out = []
    for (topic, a, b), won in sorted(legs.items()):
        if len(won) < 2:
            continue
        taker = None
        for m in (a, b):
            if won.count(m) == 2 or (rule == "lenient" and won.count(m) == 1 and won.count(None) == 1):
                taker = m
        out.append((topic, a, b, taker))
    return out


def _timed(
    timings: dict[str, Any], name: str, n_models: int, games: dict[str, np.ndarray], ties: str, counts: list[np.ndarray]
) -> tuple[Fit, list[Fit | None], list[np.ndarray]]:
    start = time.perf_counter()
    point = fit_per_game(n_models, games["i"], games["j"], games["y"], games.get("x"), ties)
    mid = time.perf_counter()
    _, fits, played = _bootstrapped(n_models, games, ties, counts, point)
    timings["fits"][name] = {"point_s": mid - start, "draws_s": time.perf_counter() - mid, "n_draws": len(counts)}
    return point, fits, played


def reference_statistics(
    lines: list[dict[str, Any]], n_boot: int = 1000, seed: int = 0, with_length: bool = True
) -> dict[str, Any]:
    """One judge's plain, length-controlled and Davidson (both rules) fits with their intervals
    (and how long each fit took: ``timings``)."""
    topics = sorted({line["topic"] for line in lines})
    t_index = {t: k for k, t in enumerate(topics)}
    legs = [line for line in lines if line["side1"] != line["side2"]]
    models = sorted({m for line in legs for m in (line["side1"], line["side2"])})
    m_index = {m: k for k, m in enumerate(models)}
    draws = TopicDraws(len(topics), n_boot, seed)
    counts = [row for block in draws.blocks() for row in block]
    games = {
        "i": np.array([m_index[line["side1"]] for line in legs]),
        "j": np.array([m_index[line["side2"]] for line in legs]),
        "y": np.array([0.5 if line["winner"] is None else 1.0 if line["winner"] == 1 else 0.0 for line in legs]),
        "topic": np.array([t_index[line["topic"]] for line in legs]),
    }
    out: dict[str, Any] = {"models": models, "timings": {"fits": {}}}
    timings = out["timings"]
    point, fits, played = _timed(timings, "bradley_terry", len(models), games, "half", counts)
    out["bradley_terry"] = _scores(models, point, fits, played, n_boot)
    if with_length:
        a = np.array([line["side1_words"] for line in legs], dtype=float)
        b = np.array([line["side2_words"] for line in legs], dtype=float)
        raw = np.rint(np.divide(a - b, a + b, out=np.zeros_like(a), where=a + b > 0) * 100) / 100
        sd = raw.std()
        x = ((raw - raw.mean()) / sd if sd > 0 else np.zeros_like(raw))[:, None]
        point, fits, played = _timed(timings, "length", len(models), {**games, "x": x}, "half", counts)
        out["length"] = {
            "coefficient": float(point.beta[0]),
            "ci95": _ci([f.beta[0] for f in fits if f is not None], n_boot),
            "bradley_terry": _scores(models, point, fits, played, n_boot),
        }
    out["davidson"] = {}
    for rule in ("strict", "lenient"):
        outcomes = topic_outcomes(lines, rule)
        if not outcomes:
            continue
        won = {
            "i": np.array([m_index[a] for _, a, _, _ in outcomes]),
            "j": np.array([m_index[b] for _, _, b, _ in outcomes]),
            "y": np.array([0.5 if w is None else 1.0 if w == a else 0.0 for _, a, _, w in outcomes]),
            "topic": np.array([t_index[t] for t, _, _, _ in outcomes]),
        }
        point, fits, played = _timed(timings, f"davidson {rule}", len(models), won, "davidson", counts)
        out["davidson"][rule] = {
            "nu": point.nu,
            "nu_ci95": _ci([f.nu if f is not None and f.nu is not None else float("nan") for f in fits], n_boot),
            "bradley_terry": _scores(models, point, fits, played, n_boot),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.arena_reference", description=__doc__.splitlines()[0])
    p.add_argument("judgments", type=Path)
    p.add_argument("--n-boot", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    start = time.perf_counter()
    lines = read_lines([args.judgments])
    read_s = time.perf_counter() - start
    out = reference_statistics(lines, args.n_boot, args.seed)
    out["timings"]["read_s"] = read_s
    args.out.write_text(json.dumps(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
