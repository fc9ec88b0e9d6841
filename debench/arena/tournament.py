"""Debates as jobs of the shared runner: every pair of models on every topic, home and away, each
debate decided by every judge.

A debate is one job (``DebateJob``): its turns and its judges' verdicts go through the run's
``Caller`` (cache, context check, the models' own settings), and the finished debate is one line
of ``debates.jsonl`` (a ``RecordLog``), so a rerun resumes, and a debate interrupted between
turns replays its finished turns from the cache. Verdicts are read by the task parser path
(``debench.task.parsing.parse_answer``) with the quoted-text rule: a verdict a debater wrote into a
speech is never read as the judge's.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field

from debench.arena import protocol
from debench.arena.protocol import Topic
from debench.core.errors import UserError
from debench.core.options import Concurrency, JobOptions, Limit, Rounds, SpeechTokens
from debench.core.redact import Redactor
from debench.core.text import word_count
from debench.data.base import Doc, Speech
from debench.data.transcript import debate_text
from debench.models.base import ContextOverflow, Model
from debench.models.calls import Caller
from debench.run.runner import FailureStatus
from debench.task.config import GenerationConfig, TaskConfig
from debench.task.grammars import load_grammar
from debench.task.parsing import parse_answer

Status = Literal["ok", "parse_failure", "error", "not_completed"]
ScheduleKind = Literal["round-robin", "adaptive"]


class Turn(BaseModel):
    side: int
    model: str
    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False


class JudgeVerdict(BaseModel):
    """One judge's decision on one debate."""

    judge: str
    status: Status
    raw: str | None = None
    winner: int | None = None
    """1 or 2; None is a tie (or no verdict)."""
    side1_score: float | None = None
    side2_score: float | None = None
    reason: str | None = None
    parse_error: str | None = None
    error: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    members: list[dict[str, Any]] = Field(default_factory=list)
    """An ensemble judge's member answers."""


class DebateRecord(BaseModel):
    """One debate (one leg): its transcript and every judge's verdict; a line of ``debates.jsonl``."""

    debate_id: str
    topic: str
    side1: str
    side2: str
    turns: list[Turn] = Field(default_factory=list)
    verdicts: list[JudgeVerdict] = Field(default_factory=list)
    status: Status
    """ok: every speech given and every judge's verdict final; not_completed: a prompt did not fit
    a debater's context window; error: retried on the next run."""
    error: str | None = None

    def verdict(self, judge: str) -> JudgeVerdict | None:
        return next((v for v in self.verdicts if v.judge == judge), None)


class ArenaSettings(JobOptions):
    """``debench arena``: the protocol (rounds, reason, self-play, speech length) and how it runs;
    typed and checked as every command's options are (``debench.core.options``)."""

    FLAGS: ClassVar[dict[str, str]] = {"ask_reason": "--reason"}

    rounds: Rounds = 4
    concurrency: Concurrency = 4
    """Debates in flight."""
    ask_reason: bool = False
    self_play: bool = False
    max_tokens: SpeechTokens = 350
    """Length cap of each speech (a debater's own max_tokens setting wins)."""
    schedule: ScheduleKind = "round-robin"
    """round-robin: every pair on every topic, home and away; adaptive: at most ``budget`` debates,
    chosen wave by wave (``debench.arena.adaptive``)."""
    budget: Limit | None = None
    """Most debates an adaptive run holds (required with it)."""
    stop_when_separated: bool = False
    """Adaptive: stop before the budget once every adjacent pair of the ranking is separated."""

    @property
    def debater_generation(self) -> GenerationConfig:
        """What every speech asks for: greedy, ``max_tokens``, the run's seed."""
        return GenerationConfig(temperature=0.0, max_tokens=self.max_tokens, seed=self.seed)


def schedule(models: list[str], topics: list[Topic], self_play: bool) -> list[tuple[int, str, str]]:
    """(topic index, side 1, side 2): each unordered pair twice per topic, sides swapped."""
    games = [(t, a, b) for t in range(len(topics)) for a, b in itertools.permutations(models, 2)]
    if self_play:
        games += [(t, m, m) for t in range(len(topics)) for m in models]
    return games


def debate_id(topic_index: int, side1: str, side2: str) -> str:
    return f"t{topic_index:03d}|{side1}|{side2}"


def model_id(model: Model) -> str:
    """Names the underlying model (provider, weights, server), generation settings excluded: a
    judge with this id is the same model as a debater with it (self-preference)."""
    ident = {k: v for k, v in model.identity().items() if k != "generation"}
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:12]


_SOURCE = re.compile(
    r"https?://\S+|\[\d+\]|\baccording to\b|\(\s*[A-Z][A-Za-z]+(?: et al\.)?,? \d{4}\s*\)", re.IGNORECASE
)


def count_sources(text: str) -> int:
    """Links, numbered references, "according to" and (Author, 2020) citations in a speech."""
    return len(_SOURCE.findall(text))


@dataclass
class Arena:
    """Everything a debate job needs: the debaters and judges by label, the topics, the settings,
    and the run's caller."""

    debaters: dict[str, Model]
    judges: dict[str, Model]
    topics: list[Topic]
    settings: ArenaSettings
    caller: Caller
    verdict_task: TaskConfig = field(init=False)
    judge_grammar: str | None = field(init=False)

    def __post_init__(self) -> None:
        self.verdict_task = protocol.verdict_task(self.settings.ask_reason)
        self.judge_grammar = load_grammar(
            protocol.JUDGE_GRAMMAR_WITH_REASON_NAME if self.settings.ask_reason else protocol.JUDGE_GRAMMAR_NAME
        )

    def jobs(self) -> list[DebateJob]:
        return [
            DebateJob(self, t, a, b) for t, a, b in schedule(list(self.debaters), self.topics, self.settings.self_play)
        ]

    async def judge(self, label: str, topic: Topic, doc: Doc, turns: list[Turn]) -> JudgeVerdict:
        """One judge's verdict; its failures are part of the verdict, never of the debate's turns."""
        model = self.judges[label]
        messages = [
            {"role": "system", "content": protocol.judge_system(topic, self.settings.ask_reason)},
            {"role": "user", "content": protocol.judge_prompt([t.text for t in turns])},
        ]
        try:
            r = await self.caller.call(
                model, messages, self.verdict_task.generation, self.judge_grammar, doc=doc, task=self.verdict_task
            )
        except ContextOverflow as exc:
            return JudgeVerdict(judge=label, status="not_completed", error=str(exc))
        usage: dict[str, Any] = {
            "prompt_tokens": r.response.usage.prompt_tokens,
            "completion_tokens": r.response.usage.completion_tokens,
            "cached": r.cached,
        }
        source = debate_text(doc)
        if r.response.direct:  # an ensemble: the members' winners were voted on; their scores are averaged
            return self._ensemble_verdict(label, r.response, source, usage)
        text = r.response.text
        v = protocol.parse_verdict(text, source)
        if v is None:
            why = (
                parse_answer(text, protocol.WINNER_PARSER, source).reason
                or parse_answer(text, protocol.SCORES_PARSER, source).reason
            )
            return JudgeVerdict(judge=label, status="parse_failure", raw=text, parse_error=why, **usage)
        return JudgeVerdict(
            judge=label,
            status="ok",
            raw=text,
            winner=v.winner,
            side1_score=v.side1_score,
            side2_score=v.side2_score,
            reason=v.reason,
            **usage,
        )

    def _ensemble_verdict(self, label: str, response: Any, source: str, usage: dict[str, Any]) -> JudgeVerdict:
        members = list(response.parts)
        if response.parse_error is not None:
            return JudgeVerdict(
                judge=label, status="parse_failure", parse_error=response.parse_error, members=members, **usage
            )
        scores = [
            parse_answer(p.get("response"), protocol.SCORES_PARSER, source)
            for p in members
            if p.get("step") == "member"
        ]
        values = [s.value for s in scores if s.ok]
        mean = (
            {k: sum(v[k] for v in values) / len(values) for k in ("side1", "side2")}
            if values
            else {"side1": None, "side2": None}
        )
        w = response.prediction
        return JudgeVerdict(
            judge=label,
            status="ok",
            winner=None if w == "tie" else int(w),
            side1_score=mean["side1"],
            side2_score=mean["side2"],
            members=members,
            **usage,
        )


@dataclass
class DebateJob:
    arena: Arena
    topic_index: int
    side1: str
    side2: str

    @property
    def key(self) -> str:
        return debate_id(self.topic_index, self.side1, self.side2)

    def _base(self) -> dict[str, Any]:
        return {
            "debate_id": self.key,
            "topic": self.arena.topics[self.topic_index].question,
            "side1": self.side1,
            "side2": self.side2,
        }

    async def run(self) -> DebateRecord:
        arena = self.arena
        topic = arena.topics[self.topic_index]
        n = arena.settings.rounds
        turns: list[Turn] = []
        try:
            for i in range(n):
                side = 1 if i % 2 == 0 else 2
                label = self.side1 if side == 1 else self.side2
                messages = [
                    {"role": "system", "content": protocol.debater_system(topic, side, i, n)},
                    {"role": "user", "content": protocol.history_prompt([t.text for t in turns], side)},
                ]
                r = await arena.caller.call(arena.debaters[label], messages, arena.settings.debater_generation)
                turns.append(
                    Turn(
                        side=side,
                        model=label,
                        text=(r.response.text or "").strip(),
                        prompt_tokens=r.response.usage.prompt_tokens,
                        completion_tokens=r.response.usage.completion_tokens,
                        cached=r.cached,
                    )
                )
        except ContextOverflow as exc:
            return DebateRecord(**self._base(), turns=turns, status="not_completed", error=str(exc))
        doc = Doc(
            doc_id=self.key,
            speeches=[Speech(speaker=t.model, side=f"side{t.side}", text=t.text) for t in turns],
            fields={"motion": topic.question},
        )
        verdicts = []
        for label in arena.judges:  # one after another: judges often share a server
            try:
                verdicts.append(await arena.judge(label, topic, doc, turns))
            except UserError:
                raise
            except Exception as exc:  # noqa: BLE001 - a judge's failure is the debate's error (retried; turns are cached)
                verdicts.append(
                    JudgeVerdict(
                        judge=label, status="error", error=Redactor().text(f"{type(exc).__name__}: {exc}")[:500]
                    )
                )
        failed = [v for v in verdicts if v.status == "error"]
        return DebateRecord(
            **self._base(),
            turns=turns,
            verdicts=verdicts,
            status="error" if failed else "ok",
            error=failed[0].error if failed else None,
        )

    def failure(self, status: FailureStatus, error: str) -> DebateRecord:
        return DebateRecord(**self._base(), status=status, error=error)


def judgment_lines(
    records: list[DebateRecord], arena: Arena, waves: dict[str, int] | None = None
) -> list[dict[str, Any]]:
    """What ``debench arena rank`` reads: one line per judge and decided debate (with ``waves``,
    an adaptive run's, each line carries the wave its debate was chosen in)."""
    ids = {label: model_id(m) for label, m in {**arena.debaters, **arena.judges}.items()}
    out = []
    for rec in records:
        if rec.status != "ok":
            continue
        words = {s: sum(word_count(t.text) for t in rec.turns if t.side == s) for s in (1, 2)}
        sources = {s: sum(count_sources(t.text) for t in rec.turns if t.side == s) for s in (1, 2)}
        for v in rec.verdicts:
            if v.status != "ok":
                continue
            line: dict[str, Any] = {
                "topic": rec.topic,
                "side1": rec.side1,
                "side2": rec.side2,
                "winner": v.winner,
                "side1_score": v.side1_score,
                "side2_score": v.side2_score,
            }
            if v.reason:
                line["reason"] = v.reason
            line.update(
                judge=v.judge,
                judge_model_id=ids[v.judge],
                side1_model_id=ids[rec.side1],
                side2_model_id=ids[rec.side2],
                side1_words=words[1],
                side2_words=words[2],
                side1_sources=sources[1],
                side2_sources=sources[2],
            )
            if waves is not None:
                line["wave"] = waves[rec.debate_id]
            out.append(line)
    return out
