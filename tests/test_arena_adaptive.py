"""The adaptive schedule (``debench arena --schedule adaptive``): its choice, its record, resuming,
and the ranking it reaches against the full round robin in a stand-in world on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import statistics
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from debench.arena.adaptive import Game, Slot, belief, choose, separated
from debench.arena.adaptive_schedule import SCHEDULE_SCHEMA_PATH, read_decisions
from debench.arena.bt_bootstrap import kendall_tau_distance
from debench.arena.judgment_table import load_judgment_files
from debench.arena.protocol import Topic
from debench.arena.rank import analyse_judgments
from debench.arena.run import ArenaOutput, run_arena
from debench.arena.tournament import ArenaSettings
from debench.core.errors import UserError
from debench.core.json_schema import validate_with_schema_file
from debench.models.factory import make_model, parse_model_args
from debench.testing.arena_world import ArenaWorld
from debench.testing.stub_server import FaultPlan, StubServer

WORLD = ArenaWorld({f"m{k}": (5 - k) * 0.6 for k in range(6)}, seed=3)
TOPICS = [Topic(f"Should rule {n} be adopted?") for n in range(8)]
ROUND_ROBIN = len(TOPICS) * 6 * 5


UNSORTED = ArenaWorld(
    {"zed": 0.0, "kest": 2.4, "binx": 4.2, "arno": 1.2, "quill": 3.0, "mira": 0.6, "dove": 1.8, "hale": 3.6}, seed=11
)
"""Eight debaters of fixed strengths 0.6 logits apart, listed neither in alphabetical order nor by strength."""


def _arena(srv: StubServer, out: Path, world: ArenaWorld = WORLD, **settings: Any) -> ArenaOutput:
    args = parse_model_args("max_retries=0")
    debaters = {m: make_model(f"openai/{m}", api_bases=[srv.base_url], model_args=args) for m in world.strengths}
    judges = {"judge": make_model(f"openai/{world.judge}", api_bases=[srv.base_url], model_args=args)}
    options: dict[str, Any] = {"rounds": 2, "progress": False, "concurrency": 8, "use_cache": False, **settings}
    return asyncio.run(run_arena(debaters, judges, TOPICS, out, ArenaSettings(**options)))


def _ranking(path: Path) -> list[str]:
    return analyse_judgments(load_judgment_files([path]), "strict", n_boot=0, n_perm=0).ranking


@pytest.mark.slow  # four tournaments of eight debaters through the stub server (~15 s)
def test_half_budget_reaches_the_round_robins_ranking(tmp_path: Path) -> None:
    """The issue's measure: eight debaters of well-separated strengths, listed out of alphabetical
    order, Kendall tau >= 0.9 to the full round robin's ranking with half its debates, in the median
    of three seeds of the schedule; no debate twice and the budget kept."""
    taus = []
    full_size = len(TOPICS) * 8 * 7
    with UNSORTED.serve() as srv:
        full = _arena(srv, tmp_path / "rr", UNSORTED)
        assert len(full.records) == full_size
        target = _ranking(full.judgments_path)
        for seed in range(3):
            out = _arena(srv, tmp_path / f"a{seed}", UNSORTED, schedule="adaptive", budget=full_size // 2, seed=seed)
            ids = [d.debate_id for d in read_decisions(out.out_dir / "schedule.jsonl")]
            assert len(out.records) == len(ids) == len(set(ids)) == full_size // 2 and out.adaptive is not None
            distance, _ = kendall_tau_distance(_ranking(out.judgments_path), target)
            assert distance is not None
            taus.append(1 - 2 * distance)
    assert statistics.median(taus) >= 0.9, taus


def test_models_in_any_order_play_the_whole_round_robin_once(tmp_path: Path) -> None:
    """``--models zed,kest,binx,arno`` (not in alphabetical order) with a budget above the round
    robin: every debate once, then the schedule stops by itself (it stopped after 4 debates with
    "two jobs share the key" when the chosen debates were looked up by the sorted pair)."""
    world = ArenaWorld({m: UNSORTED.strengths[m] for m in ["zed", "kest", "binx", "arno"]}, seed=2)
    topics = TOPICS[:3]
    with world.serve() as srv:
        args = parse_model_args("max_retries=0")
        debaters = {m: make_model(f"openai/{m}", api_bases=[srv.base_url], model_args=args) for m in world.strengths}
        judges = {"judge": make_model(f"openai/{world.judge}", api_bases=[srv.base_url], model_args=args)}
        settings = ArenaSettings(
            rounds=2, progress=False, concurrency=5, use_cache=False, schedule="adaptive", budget=50
        )
        out = asyncio.run(run_arena(debaters, judges, topics, tmp_path, settings))
    ids = [d.debate_id for d in read_decisions(out.out_dir / "schedule.jsonl")]
    assert out.adaptive is not None and out.adaptive.stopped == "every debate of the round robin has been run"
    assert len(ids) == len(set(ids)) == len(out.records) == 3 * 4 * 3
    assert {(r.side1, r.side2) for r in out.records} == {
        (a, b) for a in world.strengths for b in world.strengths if a != b
    }


def _debate_keys(path: Path) -> list[str]:
    return [json.loads(line)["debate_id"] for line in path.read_text().splitlines() if line.strip()]


def test_interrupted_run_rerun_never_repeats_and_keeps_the_budget(tmp_path: Path) -> None:
    budget = 50
    with WORLD.serve() as srv:
        whole = _arena(srv, tmp_path / "whole", schedule="adaptive", budget=budget)
        # the same run, failing midway through a wave (every request after the 100th fails)
        srv.set_faults(FaultPlan(script=["ok"] * 100 + ["500"] * 10_000))
        cut = _arena(srv, tmp_path / "cut", schedule="adaptive", budget=budget)
        assert cut.adaptive is not None and "errors" in cut.adaptive.stopped and cut.n_errors > 0
        chosen_before = len(read_decisions(cut.out_dir / "schedule.jsonl"))
        assert chosen_before < budget
        finished_before = {r.debate_id for r in cut.records if r.status == "ok"}
        srv.set_faults(FaultPlan())
        srv.reset_stats()
        rerun = _arena(srv, tmp_path / "cut", schedule="adaptive", budget=budget)
        judge_prompts = [r for r in srv.stats.requests if r["model"] == WORLD.judge]
        assert rerun.out_dir == cut.out_dir and rerun.adaptive is not None
        decisions = read_decisions(rerun.out_dir / "schedule.jsonl")
        ids = [d.debate_id for d in decisions]
        assert len(ids) == len(set(ids)) == budget
        assert sorted(_debate_keys(rerun.out_dir / "debates.jsonl")) == sorted(ids)
        # no debate finished before the interruption was run again
        assert len(judge_prompts) == budget - len(finished_before)
        # the waves do not depend on when the run was interrupted: the same choices as the uninterrupted run
        assert [(d.wave, d.debate_id) for d in decisions] == [
            (d.wave, d.debate_id) for d in read_decisions(whole.out_dir / "schedule.jsonl")
        ]
        lines = [json.loads(x) for x in rerun.judgments_path.read_text().splitlines()]
        assert len(lines) == budget and {x["wave"] for x in lines} == {d.wave for d in decisions}
        # the same budget again runs nothing; a larger one continues the same run
        srv.reset_stats()
        again = _arena(srv, tmp_path / "cut", schedule="adaptive", budget=budget)
        assert srv.stats.total_requests == 0 and len(again.records) == budget
        more = _arena(srv, tmp_path / "cut", schedule="adaptive", budget=budget + 10)
        ids_more = [d.debate_id for d in read_decisions(more.out_dir / "schedule.jsonl")]
        assert (
            more.out_dir == cut.out_dir
            and ids_more[:budget] == ids
            and len(ids_more) == len(set(ids_more)) == budget + 10
        )
        with pytest.raises(UserError, match="already chosen 60 debates"):
            _arena(srv, tmp_path / "cut", schedule="adaptive", budget=budget)


def test_schedule_records_why_and_ranking_says_how_debates_were_chosen(tmp_path: Path) -> None:
    with WORLD.serve() as srv:
        out = _arena(srv, tmp_path, schedule="adaptive", budget=24, concurrency=6)
    assert out.adaptive is not None and out.adaptive.n_waves == 4
    for line in (out.out_dir / "schedule.jsonl").read_text().splitlines():
        validate_with_schema_file(json.loads(line), SCHEDULE_SCHEMA_PATH)
    first = read_decisions(out.out_dir / "schedule.jsonl")
    assert [d.wave for d in first] == [w for w in range(4) for _ in range(6)]
    assert all(d.judgments_used == 6 * d.wave for d in first)  # each wave from the earlier waves' verdicts
    assert "expected to settle" in first[-1].why
    config = json.loads((out.out_dir / "arena_config.json").read_text())
    assert config["schedule"]["debates_chosen"] == 24 and config["schedule"]["stopped"].startswith("the budget")
    ranked = analyse_judgments(load_judgment_files([out.judgments_path]), "strict", n_boot=20, n_perm=0)
    assert ranked.schedule is not None and ranked.schedule.how == "adaptive" and ranked.schedule.n_waves == 4
    assert (ranked.schedule.n_debates, ranked.schedule.n_possible) == (24, ROUND_ROBIN)
    assert any(n.startswith("adaptive design") for n in ranked.notes)
    assert (
        set(ranked.bradley_terry)
        and ranked.position_bias.n_decided == 24
        and set(ranked.davidson) <= {"strict", "lenient"}
    )


def test_round_robin_is_reported_as_such(tmp_path: Path) -> None:
    with WORLD.serve() as srv:
        out = _arena(srv, tmp_path)
    assert out.adaptive is None and not (out.out_dir / "schedule.jsonl").exists()
    assert "wave" not in out.judgments_path.read_text()
    ranked = analyse_judgments(load_judgment_files([out.judgments_path]), "strict", n_boot=0, n_perm=0)
    assert ranked.schedule is not None and (ranked.schedule.how, ranked.schedule.n_debates) == (
        "round_robin",
        ROUND_ROBIN,
    )
    assert not any("adaptive" in n for n in ranked.notes)


def _exhaust(models: list[str], n_topics: int, k: int, seed: int) -> list[list[Slot]]:
    rng = np.random.default_rng(7)
    games: list[Game] = []
    taken: list[Slot] = []
    waves = []
    for wave in range(10_000):
        chosen = choose(models, n_topics, games, taken, k, seed, wave)
        if not chosen:
            break
        waves.append([c.slot for c in chosen])
        for c in chosen:
            taken.append(c.slot)
            games.append(Game(c.slot.side1, c.slot.side2, float(rng.random() < 0.5)))
    return waves


def test_choice_runs_every_debate_once_with_home_and_away_balanced() -> None:
    models, n_topics = ["a", "b", "c", "d"], 3
    waves = _exhaust(models, n_topics, 5, seed=0)
    slots = [s for w in waves for s in w]
    assert len(slots) == len(set(slots)) == n_topics * 4 * 3
    seen: Counter[tuple[str, str]] = Counter()
    for s in slots:
        seen[(s.side1, s.side2)] += 1
        assert abs(seen[(s.side1, s.side2)] - seen[(s.side2, s.side1)]) <= 1
    assert all(len(w) == 5 for w in waves[:-1])


def test_seed_breaks_ties_and_the_same_inputs_give_the_same_wave() -> None:
    models = [f"m{k}" for k in range(6)]
    firsts = {tuple(c.slot for c in choose(models, 5, [], [], 4, seed, 0)) for seed in range(6)}
    assert len(firsts) > 1
    games = [Game("m0", "m1", 1.0), Game("m2", "m3", 0.5), Game("m4", "m5", 0.0)]
    one = choose(models, 5, games, [Slot(0, "m0", "m1"), Slot(0, "m2", "m3"), Slot(0, "m4", "m5")], 4, 3, 1)
    two = choose(
        models, 5, list(reversed(games)), [Slot(0, "m4", "m5"), Slot(0, "m2", "m3"), Slot(0, "m0", "m1")], 4, 3, 1
    )
    assert one == two  # the order in which debates finished does not matter


def test_close_pairs_are_chosen_first_and_separation() -> None:
    # a and b far apart after many games, c and d level: the next debate is c against d
    games = (
        [Game("a", "b", 1.0)] * 30 + [Game("b", "c", 1.0)] * 30 + [Game("c", "d", 0.5)] * 2 + [Game("d", "c", 0.5)] * 2
    )
    pick = choose(["a", "b", "c", "d"], 50, games, [], 1, 0, 0)[0]
    assert {pick.slot.side1, pick.slot.side2} == {"c", "d"} and set(pick.target) == {"c", "d"}
    assert not separated(belief(["a", "b", "c", "d"], games))
    clear = [Game(x, y, 1.0) for x, y in (("a", "b"), ("b", "c"), ("a", "c"))] * 40
    assert separated(belief(["a", "b", "c"], clear)) and not separated(belief(["a", "b", "c"], []))


def test_stop_when_separated_stops_before_the_budget(tmp_path: Path) -> None:
    world = ArenaWorld({"strong": 4.0, "middle": 0.0, "weak": -4.0})
    with world.serve() as srv:
        args = parse_model_args("max_retries=0")
        debaters = {m: make_model(f"openai/{m}", api_bases=[srv.base_url], model_args=args) for m in world.strengths}
        judges = {"judge": make_model(f"openai/{world.judge}", api_bases=[srv.base_url], model_args=args)}
        settings = ArenaSettings(
            rounds=2,
            progress=False,
            concurrency=2,
            use_cache=False,
            schedule="adaptive",
            budget=len(TOPICS) * 6,
            stop_when_separated=True,
        )
        out = asyncio.run(run_arena(debaters, judges, TOPICS, tmp_path, settings))
    assert out.adaptive is not None and "separated" in out.adaptive.stopped
    assert len(out.records) < len(TOPICS) * 6


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"schedule": "adaptive"}, "needs --budget"),
        ({"budget": 10}, "go with --schedule adaptive"),
        ({"schedule": "adaptive", "budget": 10, "self_play": True}, "--self-play"),
    ],
)
def test_settings_errors(tmp_path: Path, settings: dict[str, Any], message: str) -> None:
    with StubServer() as srv, pytest.raises(UserError, match=message):
        _arena(srv, tmp_path, **settings)


@pytest.mark.slow  # the command ranks with its defaults (1,000 resamples, 10,000 permutations): ~10 s here
def test_command_line(tmp_path: Path) -> None:
    from tests.clihelp import run_cli

    topics = tmp_path / "topics.txt"
    topics.write_text("".join(f"{t.question}\n" for t in TOPICS[:4]))
    models = ",".join(f"openai/{m}" for m in WORLD.strengths)
    with WORLD.serve() as srv:
        common = [
            "arena",
            "--models",
            models,
            "--judge",
            f"openai/{WORLD.judge}",
            "--api-base",
            srv.base_url,
            "--topics",
            str(topics),
            "--rounds",
            "2",
            "--no-progress",
            "--no-cache",
            "--output-dir",
            str(tmp_path / "out"),
        ]
        proc = run_cli(*common, "--schedule", "adaptive", "--budget", "20", "--concurrency", "5")
        missing = run_cli(*common, "--schedule", "adaptive")
    assert proc.returncode == 0, proc.stderr
    assert (
        "adaptive schedule: 20 of at most 20 debates chosen in 4 waves; stopped: the budget of 20 debates is spent"
        in proc.stdout
    )
    assert "debates: 20 of the 120 of a round robin, chosen adaptively in 4 waves" in proc.stdout
    assert "note: adaptive design" in proc.stdout
    assert (
        missing.returncode == 2 and "needs --budget" in missing.stderr and len(missing.stderr.strip().splitlines()) == 1
    )


def test_killed_after_choosing_a_wave_runs_it_on_rerun(tmp_path: Path) -> None:
    """A process killed after writing a wave's decisions, before its debates finished (their records
    are missing): the rerun runs those debates and chooses nothing else."""
    with WORLD.serve() as srv:
        first = _arena(srv, tmp_path, schedule="adaptive", budget=30, concurrency=5)
        log = first.out_dir / "debates.jsonl"
        lines = log.read_text().splitlines(keepends=True)
        lost = [json.loads(x)["debate_id"] for x in lines[-5:]]
        log.write_text("".join(lines[:-5]) + lines[-5][:40])  # and a torn line, as a kill leaves
        before = (first.out_dir / "schedule.jsonl").read_text()
        srv.reset_stats()
        again = _arena(srv, tmp_path, schedule="adaptive", budget=30, concurrency=5)
        judged = [r for r in srv.stats.requests if r["model"] == WORLD.judge]
    assert (again.out_dir / "schedule.jsonl").read_text() == before
    assert len(judged) == 5 and sorted(_debate_keys(log)) == sorted(
        d.debate_id for d in read_decisions(again.out_dir / "schedule.jsonl")
    )
    assert set(lost) <= {r.debate_id for r in again.records if r.status == "ok"} and len(again.records) == 30
