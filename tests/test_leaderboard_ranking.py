"""Fair ranking: one task set for every judge ranked overall, tiers of entries whose 95% CIs
overlap their leader's, partial runs and undefined metrics shown but not ranked."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import DATA_DIR

from debench.leaderboard.ranking import competition_ranks, overall_ranks, tiers

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "leaderboard" / "submissions"


def seed(model: str, task: str) -> Path:
    """The committed seed run of a baseline on a task."""
    (path,) = [
        p
        for p in (SEEDS / model.replace("/", "__")).glob(f"results_{task}_*.json")
        if re.fullmatch(rf"results_{task}_[0-9a-f]{{12}}\.json", p.name)
    ]
    return path


def test_competition_ranks() -> None:
    assert competition_ranks([0.5, 0.7, 0.5, 0.1], higher_is_better=True) == [2, 1, 2, 4]
    assert competition_ranks([0.5, 0.7, 0.5, 0.1], higher_is_better=False) == [2, 4, 2, 1]


def test_overlapping_cis_share_the_leaders_tier() -> None:
    values = [0.80, 0.74, 0.60, 0.55, 0.20]
    cis = [[0.75, 0.85], [0.70, 0.78], [0.57, 0.63], [0.30, 0.76], None]
    # 0.74 overlaps the leader; 0.60 does not and leads tier 2, which 0.55 (wide CI) joins —
    # 0.55 also overlaps the leader, so it is in tier 1; 0.20 without a CI is a point.
    assert tiers(values, cis, higher_is_better=True) == [1, 1, 2, 1, 3]
    # lower is better: the leader is the smallest value
    assert tiers([0.3, 0.5, 0.31], [[0.2, 0.4], [0.45, 0.55], [0.25, 0.37]], higher_is_better=False) == [1, 2, 1]


def test_touching_intervals_overlap() -> None:
    assert tiers([0.6, 0.4], [[0.5, 0.7], [0.3, 0.5]], higher_is_better=True) == [1, 1]
    assert tiers([0.6, 0.4], [[0.5, 0.7], [0.3, 0.4999]], higher_is_better=True) == [1, 2]


def test_one_good_task_does_not_beat_good_on_all() -> None:
    """X is first on the one task it ran; Y is second there and first on the other: only Y is
    ranked overall (the old mean over the tasks a model happened to run put X first)."""
    cells = {"X": {"t1": 0.9}, "Y": {"t1": 0.8, "t2": 0.7}, "Z": {"t1": 0.1, "t2": 0.2}}
    standing = overall_ranks(cells, ["t1", "t2"], {"t1": True, "t2": True})
    assert "X" not in standing
    assert standing == {"Y": (1.0, 1), "Z": (2.0, 2)}


def test_overall_ranks_among_the_judges_ranked_overall() -> None:
    """Each task's ranks are recomputed among the judges with every task, so a judge missing a
    task neither helps nor hurts the others' mean rank."""
    cells = {"A": {"t1": 0.9, "t2": 0.1}, "B": {"t1": 0.5, "t2": 0.5}, "C": {"t1": 0.99, "t2": 0.99}, "D": {"t2": 0.0}}
    standing = overall_ranks(cells, ["t1", "t2"], {"t1": True, "t2": False})
    # t1 (higher better): C 1, A 2, B 3; t2 (lower better): A 1, B 2, C 3 -> A 1.5, B 2.5, C 2.0
    assert standing == {"A": (1.5, 1), "C": (2.0, 2), "B": (2.5, 3)}
    assert overall_ranks(cells, [], {}) == {}


def _kept(subs, standing="verified"):
    """Validated runs given a standing: the ranking mechanics below take it as given (what earns it is
    ``test_leaderboard_rank_attacks.py`` / ``test_leaderboard_reproduce.py``'s)."""
    return [(s, standing, "given") for s in subs]


@pytest.fixture(scope="module")
def board():
    """A leaderboard from committed seed runs on the real data, each taken as a verified judge, with
    unequal task sets: random and majority on bp_top_team and debateart_winner, last on
    bp_top_team only, first on debateart_winner only, majority also on ibm_speech_likert (tau undefined)."""
    from debench.leaderboard.build import build_leaderboard
    from debench.leaderboard.validate import validate_all

    files = [
        seed("baseline/random", "bp_top_team"),
        seed("baseline/random", "debateart_winner"),
        seed("baseline/majority", "bp_top_team"),
        seed("baseline/majority", "debateart_winner"),
        seed("baseline/majority", "ibm_speech_likert"),
        seed("baseline/last", "bp_top_team"),
        seed("baseline/first", "debateart_winner"),
    ]
    ok, errors = validate_all(files, data_dir=DATA_DIR)
    assert not errors, errors
    return build_leaderboard(_kept(ok))


@pytest.mark.real_data("ranks the committed submissions, which validate only against the real data's content hashes")
def test_unequal_task_sets(board) -> None:
    assert board.overall_tasks == ["bp_top_team", "debateart_winner"] and board.overall_waiting is None
    rows = {r.model: r for r in board.overview}
    for model in ("baseline/random", "baseline/majority"):
        assert rows[model].overall_rank is not None and rows[model].missing_tasks == [], model
    for model, missing in (("baseline/last", ["debateart_winner"]), ("baseline/first", ["bp_top_team"])):
        assert rows[model].overall_rank is None and rows[model].mean_rank is None, model
        assert rows[model].missing_tasks == missing, model
    # majority ran ibm_speech_likert but is unranked there (a constant judge has no tau): shown, not ranked
    assert rows["baseline/majority"].cells["ibm_speech_likert"].rank is None
    assert {board.overview[0].model, board.overview[1].model} == {
        "baseline/random",
        "baseline/majority",
    }  # ranked overall first


@pytest.mark.real_data("ranks the committed submissions, which validate only against the real data's content hashes")
def test_tiers_on_real_entries(board) -> None:
    bp = next(t for t in board.tasks if t.name == "bp_top_team")
    by_model = {e.model: e for e in bp.verified}
    lead = bp.verified[0]
    assert lead.rank == 1 and lead.tier == 1
    lo, hi = lead.metrics["accuracy"].ci95
    for e in bp.verified:
        a, b = e.metrics["accuracy"].ci95
        overlaps = a <= hi and lo <= b
        assert (e.tier == 1) == overlaps, (e.model, e.metrics["accuracy"])
    assert by_model["baseline/last"].tier == 2  # its CI ends below the leader's
    ibm = next(t for t in board.tasks if t.name == "ibm_speech_likert")
    (unranked,) = ibm.verified
    assert (
        unranked.model == "baseline/majority"
        and unranked.tier is None
        and "undefined" in (unranked.unranked_reason or "")
    )


@pytest.mark.slow
def test_the_overall_ranking_waits_for_two_verified_judges(board) -> None:
    """One verified judge, whatever else the board holds (self-reported judges, baselines): no overall
    rank, and the overview says what it waits for."""
    from debench.leaderboard.build import build_leaderboard
    from debench.leaderboard.validate import validate_all

    files = [
        seed("baseline/random", "bp_top_team"),
        seed("baseline/majority", "bp_top_team"),
        seed("baseline/last", "bp_top_team"),
    ]
    ok, _ = validate_all(files, data_dir=DATA_DIR)
    one = build_leaderboard(
        [(ok[0], "verified", "given"), (ok[1], "self_reported", "given"), (ok[2], "baseline", "given")]
    )
    assert [r.model for r in one.overview] == [ok[0].results.model.name] and one.overview[0].overall_rank is None
    assert one.overall_waiting is not None and "at least 2 verified judges" in one.overall_waiting
    assert [r.model for r in one.overview_self_reported] == [ok[1].results.model.name]
    (t,) = one.tasks
    assert t.verified[0].rank == 1 and t.self_reported[0].rank is None and t.baselines[0].rank is None
    assert t.self_reported[0].unranked_reason == "self-reported: given"
    two = build_leaderboard([(ok[0], "verified", "given"), (ok[1], "verified", "given")])
    assert two.overall_waiting is None and sorted(r.overall_rank for r in two.overview) in ([1, 2], [1, 1])


@pytest.mark.real_data("ranks the committed submissions, which validate only against the real data's content hashes")
def test_partial_runs_are_shown_not_ranked(tmp_path: Path) -> None:
    from lbhelp import eval_run

    from debench.leaderboard.build import build_leaderboard
    from debench.leaderboard.validate import validate_submission

    full = validate_submission(seed("baseline/random", "ibm_speech_likert"), data_dir=DATA_DIR)
    part = validate_submission(
        eval_run(tmp_path, "ibm_speech_likert", "baseline/length", "--limit", "200"), data_dir=DATA_DIR
    )
    b = build_leaderboard(_kept([full, part]))
    (t,) = b.tasks
    assert [e.model for e in t.verified] == ["baseline/random", "baseline/length"]
    assert t.verified[1].rank is None and t.verified[1].unranked_reason == "covers only the first 200 documents"
    assert t.verified[0].rank == 1 and t.verified[0].tier == 1
    rows = {r.model: r for r in b.overview}
    assert rows["baseline/length"].overall_rank is None and rows["baseline/length"].missing_tasks == [
        "ibm_speech_likert"
    ]
