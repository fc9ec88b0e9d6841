"""Tournaments through the stub server: schedule (home/away), transcripts, judge parsing, resume."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest

from debench.arena.protocol import Topic, load_topics, parse_verdict
from debench.arena.run import run_arena
from debench.arena.tournament import ArenaSettings, DebateRecord, schedule
from debench.core.errors import UserError
from debench.models.factory import make_model, parse_model_args
from debench.testing.stub_server import FaultPlan, StubServer

TOPICS = [
    Topic("Should cities make buses free?"),
    Topic("Should homework be abolished?"),
    Topic("Is golf a sport?", "It is", "It is not"),
]


def arena_responder(request: dict[str, Any]) -> str:
    """Debater 'strong' argues well, 'weak' badly; the judge always prefers the STRONG text."""
    model = request["model"]
    if model == "judge":
        transcript = request["messages"][-1]["content"]
        parts = transcript.split("Side 2:")
        s1_strong = "STRONG" in parts[0]
        if "undecided" in transcript:
            return "I cannot decide."
        return "side1: [[8]], side2: [[4]], winner: [[1]]" if s1_strong else "side1: [[3]], side2: [[9]], winner: [[2]]"
    if model == "strong":
        return "STRONG argument with evidence."
    if model == "mute":
        return "undecided"
    return "weak claim."


def _models(srv: StubServer, names: list[str]) -> dict[str, Any]:
    return {
        n: make_model(f"openai/{n}", api_bases=[srv.base_url], model_args=parse_model_args("max_retries=0"))
        for n in names
    }


def arena(debaters: dict[str, Any], judge: Any, topics: list[Topic], out: Path, settings: ArenaSettings):
    return asyncio.run(run_arena(debaters, {"judge": judge}, topics, out, settings))


def read_debates(path: Path) -> list[DebateRecord]:
    return [DebateRecord.model_validate_json(line) for line in path.read_text().splitlines() if line.strip()]


def test_schedule_is_home_and_away_for_every_pair() -> None:
    games = schedule(["a", "b", "c"], TOPICS, self_play=False)
    assert len(games) == len(TOPICS) * 3 * 2
    for t in range(len(TOPICS)):
        pairs = {(a, b) for tt, a, b in games if tt == t}
        assert pairs == {(a, b) for a in "abc" for b in "abc" if a != b}
    with_self = schedule(["a", "b"], TOPICS, self_play=True)
    assert sum(1 for _, a, b in with_self if a == b) == 2 * len(TOPICS)


def test_tournament_transcripts_and_judgments(tmp_path: Path) -> None:
    with StubServer(responder=arena_responder) as srv:
        judge = make_model("openai/judge", api_bases=[srv.base_url])
        out = arena(_models(srv, ["strong", "weak"]), judge, TOPICS, tmp_path, ArenaSettings(rounds=4, progress=False))
        bodies = srv.stats.requests
    assert len(out.records) == 2 * len(TOPICS) and out.n_judged == 2 * len(TOPICS)
    for rec in out.records:
        assert [t.side for t in rec.turns] == [1, 2, 1, 2]
        assert [t.model for t in rec.turns] == [rec.side1, rec.side2, rec.side1, rec.side2]
        assert rec.verdicts[0].winner == (1 if rec.side1 == "strong" else 2)
    # each later turn saw the whole history, the last one was asked to conclude
    debater_prompts = [b for b in bodies if b["model"] != "judge"]
    fourth = [b for b in debater_prompts if b["messages"][-1]["content"].count('"""') == 6]
    assert fourth and all("final speech" in b["messages"][0]["content"] for b in fourth)
    lines = [json.loads(line) for line in out.judgments_path.read_text().splitlines()]
    assert {(j["side1"], j["side2"]) for j in lines} == {("strong", "weak"), ("weak", "strong")}
    assert all(set(j) >= {"topic", "side1", "side2", "winner", "side1_score", "side2_score"} for j in lines)


def test_parse_failures_are_kept_not_judged(tmp_path: Path) -> None:
    with StubServer(responder=arena_responder) as srv:
        judge = make_model("openai/judge", api_bases=[srv.base_url])
        out = arena(
            _models(srv, ["strong", "mute"]), judge, TOPICS[:1], tmp_path, ArenaSettings(rounds=2, progress=False)
        )
    assert out.n_parse_failures == 2 and out.n_judged == 0
    assert all(r.verdicts[0].raw == "I cannot decide." for r in out.records)
    assert out.judgments_path.read_text() == ""


def test_rerun_resumes_and_retries_errors(tmp_path: Path) -> None:
    settings = ArenaSettings(rounds=2, progress=False, concurrency=1)
    # 5 good calls, then permanent 500s: the first debate (3 calls) finishes, the second fails
    with StubServer(responder=arena_responder, faults=FaultPlan(script=["ok"] * 5 + ["500"] * 200)) as srv:
        judge = make_model("openai/judge", api_bases=[srv.base_url], model_args=parse_model_args("max_retries=0"))
        first = arena(_models(srv, ["strong", "weak"]), judge, TOPICS[:2], tmp_path, settings)
        assert first.n_judged == 1 and first.n_errors == 3
        srv.set_faults(FaultPlan())
        srv.reset_stats()
        second = arena(_models(srv, ["strong", "weak"]), judge, TOPICS[:2], tmp_path, settings)
        n_new = srv.stats.total_requests
    assert second.out_dir == first.out_dir and second.n_judged == 4 and second.n_errors == 0
    # debate 1 is not replayed; debate 2's two turns come from the cache (only its judge call
    # is new); debates 3 and 4 failed at their first call and need all 3 calls each
    assert n_new == 1 + 3 + 3
    assert len(read_debates(second.out_dir / "debates.jsonl")) == 4


def test_verdict_parser() -> None:
    v = parse_verdict("Thoughts...\nside1: [[7]], side2: [[9]], winner: [[2]]\nreason: [[clarity]]")
    assert v is not None and (v.side1_score, v.side2_score, v.winner, v.reason) == (7, 9, 2, "clarity")
    tie = parse_verdict("side1: [[6]], side2: [[6]], winner: [[tie]]")
    assert tie is not None and tie.winner is None
    assert parse_verdict("side1: [[11]], side2: [[6]], winner: [[1]]") is None
    assert parse_verdict("Side 1 wins.") is None


def test_builtin_topics_and_user_files(tmp_path: Path) -> None:
    topics = load_topics()
    assert len(topics) >= 25 and len({t.question for t in topics}) == len(topics)
    f = tmp_path / "t.txt"
    f.write_text("# mine\nIs tea better than coffee? | Tea | Coffee\nShould we nap?\n")
    assert load_topics(f) == [Topic("Is tea better than coffee?", "Tea", "Coffee"), Topic("Should we nap?")]
    bad = tmp_path / "bad.txt"
    bad.write_text("a | b\n")
    with pytest.raises(UserError, match=re.escape("question | side 1 | side 2")):
        load_topics(bad)
