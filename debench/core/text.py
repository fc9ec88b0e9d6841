"""Plain-text helpers shared by the probes and speech generation: words and sentences.

A *sentence* here is a simple, deterministic unit: text up to ``.``, ``!`` or ``?`` (with any
closing quotes or brackets) that is followed by whitespace and a capital letter, a digit or an
opening quote; a line break also ends one. Abbreviations such as "Mr. Smith" are split too — the
rule is meant to be predictable, not linguistically perfect.
"""

from __future__ import annotations

import re

_END = re.compile(r"[.!?]+[\"'\u201d\u2019)\]]*(?=\s+[\"'\u201c\u2018(\[]?[A-Z0-9])")
_LINE = re.compile(r"[^\n]+")
_WORD = re.compile(r"\S+")


def word_count(text: str) -> int:
    return len(text.split())


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` character offsets of each sentence, in order, whitespace excluded."""
    spans: list[tuple[int, int]] = []
    for line in _LINE.finditer(text):
        start = line.start()
        cuts = [m.end() + line.start() for m in _END.finditer(line.group())]
        for end in [*cuts, line.end()]:
            piece = text[start:end]
            if piece.strip():
                lead = len(piece) - len(piece.lstrip())
                trail = len(piece) - len(piece.rstrip())
                spans.append((start + lead, end - trail))
            start = end
    return spans


def join_kept(text: str, spans: list[tuple[int, int]], keep: list[bool]) -> str:
    """The text with only the kept sentences; a paragraph break survives between two kept
    sentences when the original gap between them held a line break."""
    out: list[str] = []
    prev_end: int | None = None
    for (a, b), k in zip(spans, keep, strict=True):
        if not k:
            continue
        if prev_end is not None:
            gap = text[prev_end:a]
            out.append("\n\n" if "\n" in gap else " ")
        out.append(text[a:b])
        prev_end = b
    return "".join(out)


def trim_to_words(text: str, limit: int) -> str:
    """Remove whole sentences from the end until at most ``limit`` words remain (Debatable
    Intelligence, appendix B). If even the first sentence is longer, it is cut at ``limit`` words."""
    if limit <= 0:
        raise ValueError("limit must be positive")
    if word_count(text) <= limit:
        return text.strip()
    for _, end in reversed(sentence_spans(text)):
        if word_count(text[:end]) <= limit:
            return text[:end].strip()
    words = list(_WORD.finditer(text))
    return text[: words[limit - 1].end()].strip()
