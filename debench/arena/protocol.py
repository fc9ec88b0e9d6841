"""The debate protocol of Moniri, Hassani & Dobriban, in debench's own words.

Side 1 opens; side 2 rebuts and adds arguments; every later turn sees the whole history; the last
speaker concludes. The judge scores each side 1-10 on seven criteria and names the winner in a
fixed, parseable format. The topics are the list written for debench (``topics.yaml``) or a user's
file (``load_topics``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debench.core.errors import UserError
from debench.core.user_files import TOPICS_FILE, parse_yaml, read_text
from debench.task.config import (
    DatasetConfig,
    GenerationConfig,
    ParserConfig,
    PromptConfig,
    TaskConfig,
)
from debench.task.parsing import parse_answer

CRITERIA = (
    "clarity of the arguments",
    "factual accuracy and use of evidence",
    "rebuttal of the opponent's points",
    "logical consistency",
    "persuasiveness and impact",
    "conciseness",
    "coherence",
)
REASONS = ("clarity", "factuality", "rebuttal", "consistency", "persuasiveness", "conciseness", "coherence")


@dataclass(frozen=True)
class Topic:
    question: str
    side1: str = "Yes"
    side2: str = "No"


def _stance(topic: Topic, side: int) -> str:
    return topic.side1 if side == 1 else topic.side2


def debater_system(topic: Topic, side: int, turn: int, n_turns: int) -> str:
    stance = _stance(topic, side)
    common = (
        f'This is a debate on the question "{topic.question}". You argue for the answer "{stance}" '
        "and should defend it with conviction. Ground every claim in reasoning, facts or evidence, "
        "and keep your answer persuasive, accurate and brief."
    )
    if turn == 0:
        return common + " You speak first: set out the strongest arguments for your side."
    if turn == 1:
        return common + (
            " Your opponent has opened the debate. First answer the points they made, "
            "then add new arguments of your own."
        )
    if turn == n_turns - 1:
        return common + (
            " This is the final speech of the debate: answer what your opponent said last and "
            "conclude by summing up why your side should win."
        )
    return common + (
        " You will see everything said so far. Defend your side and answer the points your opponent has raised."
    )


def history_prompt(turns: list[str], side: int) -> str:
    """What the debater of ``side`` is shown: every earlier turn, labelled from its point of view."""
    if not turns:
        return "Please give your opening speech."
    lines = []
    for i, text in enumerate(turns):
        speaker = 1 if i % 2 == 0 else 2
        who = "You said" if speaker == side else "Your opponent said"
        lines.append(f'{who}:\n"""\n{text}\n"""')
    return "The debate so far.\n\n" + "\n\n".join(lines) + "\n\nNow give your next speech."


def judge_system(topic: Topic, ask_reason: bool) -> str:
    criteria = "; ".join(CRITERIA)
    text = (
        f'You are judging a finished debate on the question "{topic.question}". Side 1 argued '
        f'"{topic.side1}", side 2 argued "{topic.side2}". Each side made its case and answered the '
        "other. Be impartial and objective. Give each side a score from 1 to 10, weighing: "
        f"{criteria}. Then decide which side won overall. Your answer must have exactly this form: "
        '"side1: [[S1]], side2: [[S2]], winner: [[W]]", where S1 and S2 are whole numbers from 1 '
        "to 10 and W is 1 or 2."
    )
    if ask_reason:
        text += (
            ' On a second line write "reason: [[R]]" where R is the single most decisive criterion, '
            f"one of: {', '.join(REASONS)}."
        )
    return text


def judge_prompt(turns: list[str]) -> str:
    parts = [f'Side {1 if i % 2 == 0 else 2}:\n"""\n{t}\n"""' for i, t in enumerate(turns)]
    return "Transcript of the debate:\n\n" + "\n\n".join(parts) + "\n\nGive your verdict."


WINNER_PARSER = ParserConfig(
    patterns=[
        r"side\s*1\s*:\s*\[\[\s*\d+(?:\.\d+)?\s*\]\].*?side\s*2\s*:\s*\[\[\s*\d+(?:\.\d+)?\s*\]\]"
        r".*?winner\s*:\s*\[\[\s*(?:side\s*)?(1|2|tie|none|draw)\s*\]\]"
    ],
    flags=["IGNORECASE", "DOTALL"],
    type="str",
    map={"none": "tie", "draw": "tie"},
    choices=["1", "2", "tie"],
)
"""The winner in the fixed answer format (the last complete verdict in the answer)."""
SCORES_PARSER = ParserConfig(
    patterns=[
        r"side\s*1\s*:\s*\[\[\s*(\d+(?:\.\d+)?)\s*\]\].*?side\s*2\s*:\s*\[\[\s*(\d+(?:\.\d+)?)\s*\]\].*?winner\s*:"
    ],
    flags=["IGNORECASE", "DOTALL"],
    type="dict",
    transform="number_pair",
    transform_args={"keys": ["side1", "side2"]},
    keys=["side1", "side2"],
    value_range=[1, 10],
)
REASON_PARSER = ParserConfig(
    patterns=[r"reason\s*:\s*\[\[\s*([A-Za-z ]+?)\s*\]\]"],
    match="first",
    type="str",
    choices=list(REASONS),
)


def verdict_task(ask_reason: bool) -> TaskConfig:
    """The judge's answer as a task: what an ensemble judge combines (``--ensemble majority``
    votes on the winner) and what every answer is parsed with."""
    return TaskConfig(
        name="arena_verdict",
        description="The debate arena judge's verdict (Moniri et al.)",
        dataset=DatasetConfig(adapter="arena", local_dir=""),
        prompt=PromptConfig(user="{{ transcript }}"),
        parser=WINNER_PARSER,
        metrics=[],
        generation=GenerationConfig(temperature=0.0, max_tokens=64 if ask_reason else 48),
    )


@dataclass(frozen=True)
class Verdict:
    side1_score: float
    side2_score: float
    winner: int | None  # None = tie
    reason: str | None = None


def parse_verdict(text: str | None, transcript: str | None = None) -> Verdict | None:
    """The judge's verdict, or None when the answer does not follow the format (scores 1-10 and a
    winner). What the answer quotes from ``transcript`` (the debate) is not read: a debater who
    writes a verdict into a speech does not decide the debate."""
    winner = parse_answer(text, WINNER_PARSER, transcript)
    scores = parse_answer(text, SCORES_PARSER, transcript)
    if not (winner.ok and scores.ok):
        return None
    reason = parse_answer(text, REASON_PARSER, transcript)
    w = winner.value
    return Verdict(
        float(scores.value["side1"]),
        float(scores.value["side2"]),
        None if w == "tie" else int(w),
        reason.value if reason.ok else None,
    )


# Static GBNF grammars for servers that accept one (the local model): debench/task/grammars/arena_verdict*.gbnf
JUDGE_GRAMMAR_NAME = "arena_verdict"
JUDGE_GRAMMAR_WITH_REASON_NAME = "arena_verdict_reason"


BUILTIN_TOPICS = Path(__file__).resolve().parent / "topics.yaml"
"""The topics written for debench (``debench arena`` without ``--topics``)."""


def load_topics(path: str | Path | None = None) -> list[Topic]:
    """A ``.txt`` file (one question per line; optional ``question | side 1 | side 2``) or a YAML file
    with ``topics:`` entries that are strings or ``{question, side1, side2}`` mappings, read through
    ``debench.core.user_files`` (a regular file within its ceiling, YAML without aliases). Every
    question and side is non-empty text; anything else is one line naming the entry."""
    path = Path(path) if path else BUILTIN_TOPICS
    text = read_text(path, TOPICS_FILE)
    topics = _yaml_topics(text, path) if path.suffix in (".yaml", ".yml") else _text_topics(text, path)
    if not topics:
        raise UserError("no topics found", path=str(path))
    if len({t.question for t in topics}) != len(topics):
        raise UserError("duplicate topics", path=str(path))
    return topics


def _yaml_topics(text: str, path: Path) -> list[Topic]:
    """The ``topics:`` list of a YAML file (or the file's list itself)."""
    raw = parse_yaml(text, path)
    entries = raw.get("topics") if isinstance(raw, dict) else raw
    if not isinstance(entries, list):
        raise UserError("expected a list of topics", path=str(path), field="topics")
    return [_yaml_topic(i, e, path) for i, e in enumerate(entries)]


TOPIC_KEYS = ("question", "side1", "side2")


def _yaml_topic(i: int, entry: Any, path: Path) -> Topic:
    """A YAML entry: a question, or a ``{question, side1, side2}`` mapping (sides Yes / No by default)."""
    if isinstance(entry, str) and entry.strip():
        return Topic(entry.strip())
    if not isinstance(entry, dict) or "question" not in entry:
        raise UserError(
            f"entry {i + 1} is neither a question nor a {{question, side1, side2}} mapping",
            path=str(path),
            field=f"topics.{i}",
        )
    unknown = [str(k) for k in entry if k not in TOPIC_KEYS]
    if unknown:
        raise UserError(
            f"unknown key '{unknown[0]}' (known: {', '.join(TOPIC_KEYS)})", path=str(path), field=f"topics.{i}"
        )
    default = {"side1": "Yes", "side2": "No"}
    values = [_text_of(entry.get(key, default.get(key)), path, f"topics.{i}.{key}") for key in TOPIC_KEYS]
    return Topic(*values)


def _text_of(value: Any, path: Path, field: str) -> str:
    """A question or a side: text that is not empty, or a number (as written). A list or a mapping
    would become its Python spelling in every prompt, and an unquoted yes / no is a boolean in YAML."""
    if isinstance(value, bool):
        raise UserError(
            f"got {str(value).lower()}: YAML reads an unquoted yes, no, on or off as true or false; "
            "put the text in quotes",
            path=str(path),
            field=field,
        )
    if isinstance(value, (int, float)):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        got = {str: "empty text", list: "a list", dict: "a mapping", type(None): "nothing"}.get(type(value), "a value")
        raise UserError(f"expected non-empty text, got {got}", path=str(path), field=field)
    return value.strip()


def _text_topics(text: str, path: Path) -> list[Topic]:
    """One topic per line, ``question`` or ``question | side 1 | side 2``; blank and ``#`` lines skipped."""
    topics: list[Topic] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) not in (1, 3):
            raise UserError(
                f"line {n}: expected 'question' or 'question | side 1 | side 2', got: {line[:60]}", path=str(path)
            )
        if not all(parts):
            raise UserError(f"line {n}: a question or a side is empty: {line[:60]}", path=str(path))
        topics.append(Topic(*parts))
    return topics
