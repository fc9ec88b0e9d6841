"""Running debates: every pair of models on every topic, home and away, judged by one model.

Each debate is appended to ``debates.jsonl`` as soon as it is judged (transcript, judge output,
parse status), so a rerun resumes; every model call goes through the response cache, so a debate
interrupted between turns replays its finished turns without requests.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field
from tqdm import tqdm

from debench.arena import protocol
from debench.arena.protocol import Topic
from debench.cache import ResponseCache
from debench.grammars import load_grammar
from debench.judging.base import cached_generate
from debench.models.base import ContextOverflow, Model
from debench.task import GenerationConfig


class Turn(BaseModel):
    side: int
    model: str
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False


class DebateRecord(BaseModel):
    debate_id: str
    topic: str
    side1: str
    side2: str
    turns: list[Turn] = Field(default_factory=list)
    judge_model: str
    judge_raw: str | None = None
    winner: int | None = None
    side1_score: float | None = None
    side2_score: float | None = None
    reason: str | None = None
    status: Literal["ok", "parse_failure", "error", "not_completed"]
    error: str | None = None
    judge_prompt_tokens: int = 0
    judge_completion_tokens: int = 0

    def judgment(self) -> dict[str, Any]:
        """The line ``debench arena rank`` reads."""
        out: dict[str, Any] = {
            "topic": self.topic,
            "side1": self.side1,
            "side2": self.side2,
            "winner": self.winner,
            "side1_score": self.side1_score,
            "side2_score": self.side2_score,
        }
        if self.reason:
            out["reason"] = self.reason
        return out


@dataclass
class ArenaSettings:
    rounds: int = 4
    concurrency: int = 4
    ask_reason: bool = False
    self_play: bool = False
    use_cache: bool = True
    progress: bool = True
    debater_generation: GenerationConfig = field(default_factory=lambda: GenerationConfig(temperature=0.0, max_tokens=350))
    judge_generation: GenerationConfig = field(default_factory=lambda: GenerationConfig(temperature=0.0, max_tokens=48))
    debater_overrides: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per debater (by its name in --models): generation settings that differ, e.g. temperature."""


def schedule(models: list[str], topics: list[Topic], self_play: bool) -> list[tuple[int, str, str]]:
    """(topic index, side 1, side 2): each unordered pair twice per topic, sides swapped."""
    games = [(t, a, b) for t in range(len(topics)) for a, b in itertools.permutations(models, 2)]
    if self_play:
        games += [(t, m, m) for t in range(len(topics)) for m in models]
    return games


def debate_id(topic_index: int, side1: str, side2: str) -> str:
    return f"t{topic_index:03d}|{side1}|{side2}"


def _fits(model: Model, messages: list[dict[str, str]], max_tokens: int) -> None:
    window = model.context_window()
    n = model.count_tokens(messages) if window else None
    if window and n is not None and n + max_tokens > window:
        raise ContextOverflow(f"{model.name}: {n}-token prompt + {max_tokens} exceeds its {window}-token window")


class Arena:
    def __init__(self, models: dict[str, Model], judge: Model, topics: list[Topic], out_dir: Path, settings: ArenaSettings):
        self.models = models
        self.judge = judge
        self.topics = topics
        self.out_dir = out_dir
        self.settings = settings
        self.cache: ResponseCache | None = None
        self.judge_grammar = load_grammar(
            protocol.JUDGE_GRAMMAR_WITH_REASON_NAME if settings.ask_reason else protocol.JUDGE_GRAMMAR_NAME
        )
        self.n_requests = 0

    @property
    def log_path(self) -> Path:
        return self.out_dir / "debates.jsonl"

    async def _speak(self, model: Model, messages: list[dict[str, str]], gen: GenerationConfig, grammar: str | None) -> Any:
        result = await cached_generate(
            model, self.cache, messages, gen, grammar, before_request=lambda: _fits(model, messages, gen.max_tokens)
        )
        if not result.cached:
            self.n_requests += result.response.attempts
        return result

    async def debate(self, topic_index: int, side1: str, side2: str) -> DebateRecord:
        topic = self.topics[topic_index]
        base = {
            "debate_id": debate_id(topic_index, side1, side2),
            "topic": topic.question,
            "side1": side1,
            "side2": side2,
            "judge_model": self.judge.name,
        }
        turns: list[Turn] = []
        n = self.settings.rounds
        try:
            for i in range(n):
                side = 1 if i % 2 == 0 else 2
                name = side1 if side == 1 else side2
                messages = [
                    {"role": "system", "content": protocol.debater_system(topic, side, i, n)},
                    {"role": "user", "content": protocol.history_prompt([t.text for t in turns], side)},
                ]
                gen = self.settings.debater_generation.model_copy(update=self.settings.debater_overrides.get(name, {}))
                r = await self._speak(self.models[name], messages, gen, None)
                text = (r.response.text or "").strip()
                turns.append(
                    Turn(side=side, model=name, text=text, prompt_tokens=r.response.usage.prompt_tokens,
                         completion_tokens=r.response.usage.completion_tokens, cached=r.cached)
                )
            messages = [
                {"role": "system", "content": protocol.judge_system(topic, self.settings.ask_reason)},
                {"role": "user", "content": protocol.judge_prompt([t.text for t in turns])},
            ]
            gen = self.settings.judge_generation
            if self.settings.ask_reason:
                gen = gen.model_copy(update={"max_tokens": gen.max_tokens + 16})
            j = await self._speak(self.judge, messages, gen, self.judge_grammar)
        except ContextOverflow as exc:
            return DebateRecord(**base, turns=turns, status="not_completed", error=str(exc))
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # noqa: BLE001 - recorded, retried on the next run
            return DebateRecord(**base, turns=turns, status="error", error=f"{type(exc).__name__}: {exc}"[:500])
        verdict = protocol.parse_verdict(j.response.text)
        usage = {"judge_prompt_tokens": j.response.usage.prompt_tokens, "judge_completion_tokens": j.response.usage.completion_tokens}
        if verdict is None:
            return DebateRecord(**base, turns=turns, judge_raw=j.response.text, status="parse_failure", **usage)
        return DebateRecord(
            **base, turns=turns, judge_raw=j.response.text, status="ok", winner=verdict.winner,
            side1_score=verdict.side1_score, side2_score=verdict.side2_score, reason=verdict.reason, **usage,
        )

    async def run(self) -> list[DebateRecord]:
        self.out_dir.mkdir(parents=True, exist_ok=True)
        done = {r.debate_id: r for r in read_debates(self.log_path) if r.status != "error"}
        games = schedule(list(self.models), self.topics, self.settings.self_play)
        todo = [g for g in games if debate_id(*g) not in done]
        self.cache = ResponseCache() if self.settings.use_cache else None
        bar = tqdm(total=len(games), initial=len(games) - len(todo), desc="arena", unit="debate",
                   disable=not self.settings.progress, file=sys.stderr)
        queue: asyncio.Queue[tuple[int, str, str] | None] = asyncio.Queue()
        for g in todo:
            queue.put_nowait(g)
        workers = max(1, min(self.settings.concurrency, len(todo)))
        for _ in range(workers):
            queue.put_nowait(None)
        with open(self.log_path, "a", encoding="utf-8") as fh:

            async def worker() -> None:
                while (g := await queue.get()) is not None:
                    rec = await self.debate(*g)
                    fh.write(rec.model_dump_json() + "\n")
                    fh.flush()
                    done[rec.debate_id] = rec
                    bar.update(1)

            try:
                await asyncio.gather(*(worker() for _ in range(workers)))
            finally:
                bar.close()
                if self.cache is not None:
                    self.cache.close()
        return [done[debate_id(*g)] for g in games if debate_id(*g) in done]


def read_debates(path: Path) -> list[DebateRecord]:
    """Records in file order (latest wins per debate); a torn last line is ignored and cut off."""
    if not path.exists():
        return []
    data = path.read_bytes()
    end = data.rfind(b"\n") + 1
    if end < len(data):
        with open(path, "r+b") as fh:
            fh.truncate(end)
    latest: dict[str, DebateRecord] = {}
    for line in data[:end].splitlines():
        if line.strip():
            rec = DebateRecord.model_validate_json(line)
            latest[rec.debate_id] = rec
    return list(latest.values())


def write_judgments(records: list[DebateRecord], path: Path) -> int:
    """Judged debates (status ok) in the rank input format; returns how many were written."""
    ok = [r for r in records if r.status == "ok"]
    path.write_text("".join(json.dumps(r.judgment()) + "\n" for r in ok), encoding="utf-8")
    return len(ok)
