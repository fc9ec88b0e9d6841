"""The aggregated fits of ``arena rank`` against the straightforward computation
(``benchmarks.arena_reference``: every judgment one game, every topic resample refitted game by game
with scipy) on the same small files with the same seeded topic resamples: the scores, coefficients,
tie parameters and their intervals are equal up to the optimisers' tolerance."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from arena_synth import SynthJudge, judgment_line, simulate

from benchmarks.arena_reference import read_lines, reference_statistics
from debench.arena.judgment_table import load_judgment_files
from debench.arena.rank import analyse_judgments

ELO_TOL = 1e-4
"""Elo-like points (1e-4 points = 6e-7 logits: both optimisers stop within ~1e-7 logits)."""


def _same_scores(ours: dict, theirs: dict) -> None:
    assert set(ours) == set(theirs)
    for m, s in ours.items():
        assert s["score"] == pytest.approx(theirs[m]["score"], abs=ELO_TOL), m
        assert (s["ci95"] is None) == (theirs[m]["ci95"] is None), m
        if s["ci95"] is not None:
            assert np.allclose(s["ci95"], theirs[m]["ci95"], atol=ELO_TOL), (m, s["ci95"], theirs[m]["ci95"])


def _compare(path: Path, n_boot: int, seed: int) -> dict:
    ours = analyse_judgments(load_judgment_files([path]), n_boot=n_boot, seed=seed, n_perm=0).model_dump(mode="json")
    ref = reference_statistics(read_lines([path]), n_boot=n_boot, seed=seed)
    _same_scores(ours["bradley_terry"], ref["bradley_terry"])
    lc = ours["length_controlled"]
    assert lc["covariates"]["length"]["coefficient"] == pytest.approx(ref["length"]["coefficient"], abs=1e-6)
    assert np.allclose(lc["covariates"]["length"]["ci95"], ref["length"]["ci95"], atol=1e-6)
    _same_scores(lc["bradley_terry"], ref["length"]["bradley_terry"])
    for rule in ("strict", "lenient"):
        dav = ours["davidson"][rule]
        assert dav["nu"] == pytest.approx(ref["davidson"][rule]["nu"], rel=1e-6)
        assert np.allclose(dav["nu_ci95"], ref["davidson"][rule]["nu_ci95"], rtol=1e-5)
        _same_scores(dav["bradley_terry"], ref["davidson"][rule]["bradley_terry"])
    return ours


def test_a_balanced_file_gives_the_reference_figures(tmp_path: Path) -> None:
    legs = simulate({"A": 0.8, "B": 0.1, "C": -0.6}, [SynthJudge("j", length_weight=0.8, nu=0.4)], n_topics=8, seed=11)
    path = tmp_path / "j.jsonl"
    path.write_text("".join(judgment_line(j) for j in legs))
    ours = _compare(path, n_boot=60, seed=3)
    assert all(s["draws_used"] == 60 for s in ours["bradley_terry"].values())


def test_a_sparse_file_where_resamples_miss_models_gives_the_reference_figures(tmp_path: Path) -> None:
    """D played on one topic only: resamples without it give D no value (draws_used < n_boot) in
    both computations, and the intervals of the others are unchanged by it."""
    legs = simulate({"A": 0.8, "B": 0.1, "C": -0.6}, [SynthJudge("j", length_weight=0.8, nu=0.4)], n_topics=7, seed=12)
    rng = np.random.default_rng(0)
    rows = [json.loads(judgment_line(j)) for j in legs]
    for a, b in (("A", "D"), ("D", "A"), ("C", "D"), ("D", "C")):
        rows.append(
            {
                "topic": "topic 0",
                "side1": a,
                "side2": b,
                "winner": int(rng.integers(1, 3)),
                "judge": "j",
                "side1_words": 300,
                "side2_words": 250,
            }
        )
    path = tmp_path / "j.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    ours = _compare(path, n_boot=60, seed=5)
    used = ours["bradley_terry"]["D"]["draws_used"]
    assert 20 < used < 50 and ours["bradley_terry"]["A"]["draws_used"] == 60
