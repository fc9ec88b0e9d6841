"""``debench generate-speeches``: a model writes opening speeches for the IBM topics.

The protocol of Debatable Intelligence §5.3 / appendix B, in debench's own words: for every topic,
``per_topic`` (2) speeches of about ``words`` (600) words supporting the topic, temperature 1;
a speech longer than the limit loses whole sentences from its end until it fits. Each speech has
its own generation seed (``seed + k``), so the two speeches of a topic differ and each is cached
on its own: a rerun after an interruption only asks for what is missing.
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tqdm import tqdm

from debench.cache import ResponseCache
from debench.data.loading import DataSource, load_task_data
from debench.errors import UserError
from debench.judging.base import cached_generate
from debench.models.base import ContextOverflow, Model
from debench.speeches.files import SpeechRow
from debench.task import GenerationConfig
from debench.text import trim_to_words, word_count

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


@dataclass
class GenerateOptions:
    words: int = 600
    per_topic: int = 2
    temperature: float = 1.0
    max_tokens: int | None = None
    seed: int = 0
    concurrency: int | None = None
    use_cache: bool = True
    progress: bool = True


@dataclass
class GenerateOutput:
    rows: list[SpeechRow]
    failures: list[dict[str, Any]] = field(default_factory=list)
    n_trimmed: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    n_requests: int = 0


def ibm_topics(data_source: DataSource = "auto", data_dir: str | None = None) -> list[str]:
    """The IBM speeches' topics, sorted (76 on the real data)."""
    from debench.registry import load_task

    task, _ = load_task("ibm_speech_likert")
    dataset = load_task_data(task, data_source, data_dir)
    return sorted({str(d.fields["topic"]) for d in dataset.docs})


def read_topics(path: Path) -> list[str]:
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise UserError(f"cannot read the topics file ({exc.__class__.__name__})", path=str(path)) from None
    topics = [t.strip() for t in lines if t.strip() and not t.lstrip().startswith("#")]
    if not topics:
        raise UserError("no topics (one per line)", path=str(path))
    return list(dict.fromkeys(topics))


def default_max_tokens(words: int) -> int:
    """The paper's 1,024-token budget for 600 words, scaled to other lengths."""
    return max(64, round(words * 1024 / 600))


def speech_id(model: Model, topic: str, k: int, opts: GenerateOptions) -> str:
    return str(uuid.uuid5(NAMESPACE, f"{model.name}|{topic}|{k}|{opts.words}|{opts.temperature}|{opts.seed}"))


def messages_for(topic: str, words: int) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": USER.format(words=words, topic=topic)}]


async def generate_speeches(model: Model, topics: list[str], opts: GenerateOptions) -> GenerateOutput:
    if opts.words < 1 or opts.per_topic < 1:
        raise UserError("--words and --per-topic must be positive")
    jobs = [(t, k) for t in topics for k in range(opts.per_topic)]
    cache = ResponseCache() if opts.use_cache and model.cacheable else None
    sem = asyncio.Semaphore(opts.concurrency or model.default_concurrency)
    out = GenerateOutput(rows=[])
    results: dict[tuple[str, int], SpeechRow] = {}
    bar = tqdm(total=len(jobs), desc=f"speeches | {model.name}", unit="speech", disable=not opts.progress, file=sys.stderr)

    async def one(topic: str, k: int) -> None:
        gen = GenerationConfig(temperature=opts.temperature, max_tokens=opts.max_tokens or default_max_tokens(opts.words), seed=opts.seed + k)
        messages = messages_for(topic, opts.words)
        async with sem:
            try:
                r = await cached_generate(model, cache, messages, gen, None, before_request=lambda: _fits(model, messages, gen.max_tokens))
            except UserError:
                raise
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - reported; the rest goes on, a rerun retries it
                out.failures.append({"topic": topic, "k": k, "error": f"{type(exc).__name__}: {exc}"[:300]})
                bar.update(1)
                return
        text = (r.response.text or "").strip()
        out.prompt_tokens += r.response.usage.prompt_tokens
        out.completion_tokens += r.response.usage.completion_tokens
        if not r.cached:
            out.n_requests += r.response.attempts
        if not text:
            out.failures.append({"topic": topic, "k": k, "error": "empty answer"})
        else:
            trimmed = trim_to_words(text, opts.words)
            out.n_trimmed += int(word_count(trimmed) < word_count(text))
            results[(topic, k)] = SpeechRow(id=speech_id(model, topic, k, opts), topic=topic, source=model.name, text=trimmed)
        bar.update(1)

    try:
        await asyncio.gather(*(one(t, k) for t, k in jobs))
    finally:
        bar.close()
        if cache is not None:
            cache.close()
        await model.aclose()
    out.rows = [results[j] for j in jobs if j in results]
    return out


def _fits(model: Model, messages: list[dict[str, str]], max_tokens: int) -> None:
    window = model.context_window()
    n = model.count_tokens(messages) if window else None
    if window and n is not None and n + max_tokens > window:
        raise ContextOverflow(f"{model.name}: {n}-token prompt + {max_tokens} exceeds its {window}-token window")
