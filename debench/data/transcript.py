"""Formatting a debate's speeches as one prompt-ready transcript, and the debate's plain text."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from debench.data.base import Doc, Speech

SpeechLabel = Callable[[int, Speech], str]


def format_transcript(speeches: Sequence[Speech], label: SpeechLabel) -> str:
    """Speeches in order, each under a header such as ``[Speech 3 — pro (alice)]``."""
    return "\n\n".join(f"{label(i, s)}\n{s.text.strip()}" for i, s in enumerate(speeches))


def debate_text(doc: Doc) -> str:
    """What the debaters said (every speech's text): the text an answer parser must never read
    a verdict from (see ``debench.quotes``)."""
    return "\n\n".join(s.text for s in doc.speeches)
