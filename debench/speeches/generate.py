"""``debench generate-speeches``: a model writes opening speeches for the IBM topics.

The protocol of Debatable Intelligence §5.3 / appendix B, in debench's own words: for every topic,
``per_topic`` (2) speeches of about ``words`` (600) words supporting the topic, temperature 1;
a speech longer than the limit loses whole sentences from its end until it fits. Each speech has
its own generation seed (``seed + k``), so the two speeches of a topic differ. Each speech is a job
of the shared runner: cached, concurrent, logged as it is written (``<output>.samples_<fingerprint>.jsonl``),
so a rerun after an interruption only asks for what is missing.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from debench.core.atomic import write_json_record
from debench.core.errors import UserError
from debench.core.options import DataOptions, DataSource, JobOptions, PerTopic, SpeechTokens, Temperature, Words
from debench.core.record_log import RecordLog
from debench.core.text import trim_to_words, word_count
from debench.core.user_files import TOPICS_FILE, read_text
from debench.data.loading import load_task_data
from debench.models.base import Model
from debench.models.calls import Caller
from debench.run.runner import FailureStatus, RunSettings, open_cache, run_jobs
from debench.speeches.files import SpeechRow, write_speeches
from debench.task.config import GenerationConfig

SYSTEM = (
    "You are an experienced competitive debater. You write the opening speech for one side of a "
    "debate: a speech meant to be spoken aloud to an audience, without headings, lists or notes."
)
USER = (
    'Write an opening speech of about {words} words that argues in favour of the topic: "{topic}".\n'
    "Open by stating your position, develop your strongest arguments with reasoning and examples, "
    "anticipate what the other side will say, and close with a short summary. "
    "Reply with the speech only."
)
NAMESPACE = uuid.UUID("6f1d2b0e-3c55-4c1a-9a53-0d6f3b1e8a21")


class GenerateOptions(JobOptions, DataOptions):
    """``debench generate-speeches``: ``limit`` keeps the first N topics (sorted); the data options
    say where the IBM topics are read from when no topics file is given."""

    words: Words = 600
    per_topic: PerTopic = 2
    temperature: Temperature = 1.0
    max_tokens: SpeechTokens | None = None
    """None: 1,024 per 600 words (``default_max_tokens``)."""


class SpeechRecord(BaseModel):
    """One generated speech (or why there is none), as logged."""

    id: str
    topic: str
    k: int
    status: Literal["ok", "error", "not_completed"]
    text: str | None = None
    trimmed: bool = False
    error: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached: bool = False
    attempts: int = 0


@dataclass
class GenerateOutput:
    rows: list[SpeechRow]
    records: list[SpeechRecord]
    log_path: Path
    n_requests: int = 0

    @property
    def n_trimmed(self) -> int:
        return sum(r.trimmed for r in self.records if r.status == "ok")

    @property
    def prompt_tokens(self) -> int:
        return sum(r.prompt_tokens for r in self.records)

    @property
    def completion_tokens(self) -> int:
        return sum(r.completion_tokens for r in self.records)

    @property
    def failures(self) -> list[SpeechRecord]:
        return [r for r in self.records if r.status != "ok"]

    @property
    def errors(self) -> list[tuple[str, int]]:
        return Counter(f"{r.status}: {r.error}" for r in self.failures).most_common()


def ibm_topics(data_source: DataSource = "auto", data_dir: str | None = None) -> list[str]:
    """The IBM speeches' topics, sorted (76 on the real data)."""
    from debench.run.task_lookup import load_task

    task, _ = load_task("ibm_speech_likert")
    dataset = load_task_data(task, data_source, data_dir)
    return sorted({str(d.fields["topic"]) for d in dataset.docs})


def read_topics(path: Path) -> list[str]:
    lines = read_text(path, TOPICS_FILE).splitlines()
    topics = [t.strip() for t in lines if t.strip() and not t.lstrip().startswith("#")]
    if not topics:
        raise UserError("no topics (one per line)", path=str(path))
    return list(dict.fromkeys(topics))


def default_max_tokens(words: int) -> int:
    """The paper's 1,024-token budget for 600 words, scaled to other lengths."""
    return max(64, round(words * 1024 / 600))


def speech_id(model: Model, topic: str, k: int, opts: GenerateOptions) -> str:
    return str(uuid.uuid5(NAMESPACE, f"{model.name}|{topic}|{k}|{opts.words}|{opts.temperature}|{opts.seed}"))


def run_key(model: Model, opts: GenerateOptions) -> str:
    """What the speeches depend on (the model's identity, never its name, and every setting)."""
    payload = json.dumps(
        {"model": model.identity(), "opts": [opts.words, opts.per_topic, opts.temperature, opts.max_tokens, opts.seed]},
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:12]


def messages_for(topic: str, words: int) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER.format(words=words, topic=topic)}]


@dataclass
class SpeechJob:
    """Write one speech: topic ``topic``, the ``k``-th of the topic (generation seed ``seed + k``)."""

    caller: Caller
    model: Model
    topic: str
    k: int
    opts: GenerateOptions

    @property
    def key(self) -> str:
        return speech_id(self.model, self.topic, self.k, self.opts)

    async def run(self) -> SpeechRecord:
        opts = self.opts
        gen = GenerationConfig(
            temperature=opts.temperature,
            max_tokens=opts.max_tokens or default_max_tokens(opts.words),
            seed=opts.seed + self.k,
        )
        r = await self.caller.call(self.model, messages_for(self.topic, opts.words), gen)
        base: dict[str, Any] = {
            "id": self.key,
            "topic": self.topic,
            "k": self.k,
            "prompt_tokens": r.response.usage.prompt_tokens,
            "completion_tokens": r.response.usage.completion_tokens,
            "cached": r.cached,
            "attempts": 0 if r.cached else r.response.attempts,
        }
        text = (r.response.text or "").strip()
        if not text:
            return SpeechRecord(**base, status="error", error="empty answer")
        trimmed = trim_to_words(text, opts.words)
        return SpeechRecord(**base, status="ok", text=trimmed, trimmed=word_count(trimmed) < word_count(text))

    def failure(self, status: FailureStatus, error: str) -> SpeechRecord:
        return SpeechRecord(id=self.key, topic=self.topic, k=self.k, status=status, error=error)


async def generate_speeches(model: Model, topics: list[str], output: Path, opts: GenerateOptions) -> GenerateOutput:
    """Every speech of every topic through the shared runner; rows in topic order."""
    settings = RunSettings(
        concurrency=opts.concurrency or model.default_concurrency, use_cache=opts.use_cache, progress=opts.progress
    )
    caller = Caller(open_cache(model, settings))
    log_path = output.with_name(f"{output.name}.samples_{run_key(model, opts)}.jsonl")
    log_: RecordLog[SpeechRecord] = RecordLog(log_path, SpeechRecord, "id")
    jobs = [SpeechJob(caller, model, t, k, opts) for t in topics for k in range(opts.per_topic)]
    try:
        await run_jobs(
            jobs,
            log_,
            concurrency=settings.concurrency,
            progress=opts.progress,
            desc=f"speeches | {model.name}",
            unit="speech",
        )
        log_.compact([j.key for j in jobs])
    finally:
        log_.close()
        caller.close()
        await model.aclose()
    records = [log_.existing[j.key] for j in jobs if j.key in log_.existing]
    rows = [
        SpeechRow(id=r.id, topic=r.topic, source=model.name, text=r.text or "") for r in records if r.status == "ok"
    ]
    return GenerateOutput(rows=rows, records=records, log_path=log_path, n_requests=caller.n_requests)


def write_generated(
    output: Path, out: GenerateOutput, model: Model, topics: list[str], opts: GenerateOptions, command: list[str]
) -> Path:
    """The speeches CSV and, beside it, ``<output>.meta.json`` (settings, failures, usage); returns
    the metadata file's path."""
    write_speeches(output, out.rows)
    meta = {
        "model": model.describe(),
        "topics": len(topics),
        "per_topic": opts.per_topic,
        "words": opts.words,
        "temperature": opts.temperature,
        "max_tokens": opts.max_tokens or default_max_tokens(opts.words),
        "seed": opts.seed,
        "generation_from_model_args": dict(model.generation_overrides),
        "prompt": messages_for("{topic}", opts.words),
        "n_speeches": len(out.rows),
        "n_trimmed": out.n_trimmed,
        "failures": [{"topic": r.topic, "k": r.k, "status": r.status, "error": r.error} for r in out.failures],
        "usage": {
            "prompt_tokens": out.prompt_tokens,
            "completion_tokens": out.completion_tokens,
            "n_requests": out.n_requests,
        },
        "log": out.log_path.name,
        "command": command,
    }
    return write_json_record(output.with_name(output.name + ".meta.json"), meta)
