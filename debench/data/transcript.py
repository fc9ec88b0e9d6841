"""Formatting a debate's speeches as one prompt-ready transcript, and the debate's plain text."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from debench.data.base import Doc, Speech

SpeechLabel = Callable[[int, Speech], str]
"""``fn(index, speech) -> header``: what stands above each speech in a transcript."""


@dataclass(frozen=True)
class SpeechHeader:
    """The one speech header of every transcript (adapters, probes, Debatrix): ``[<head> — <title> (<tag>)]``.

    This text goes into prompts: a change of a style changes what judges read.

    * ``head``: ``number`` gives ``Speech 3``; ``speaker`` the speaker in capitals (``PM``).
    * ``title``: the side (``title_from="side"``) or the speaker, spelled out through ``names``
      when it is a key there (``OG`` -> ``Opening Government``); left out when empty.
    * ``tag``: the speaker or the side, in parentheses; left out when empty.
    """

    head: Literal["number", "speaker"] = "number"
    title_from: Literal["side", "speaker"] = "side"
    names: Mapping[str, str] = field(default_factory=dict)
    tag: Literal["speaker", "side"] = "speaker"

    def __call__(self, i: int, s: Speech) -> str:
        head = f"Speech {i + 1}" if self.head == "number" else s.speaker.upper()
        key = (s.side if self.title_from == "side" else s.speaker) or ""
        title = self.names.get(key, key)
        tag = (s.speaker if self.tag == "speaker" else s.side) or ""
        return f"[{head}{f' — {title}' if title else ''}{f' ({tag})' if tag else ''}]"


SIDE_AND_SPEAKER = SpeechHeader()
"""``[Speech 3 — pro (alice)]``: 1v1 debates (DebateArt, generic data sets) and Debatrix's notes."""


def format_transcript(speeches: Sequence[Speech], label: SpeechLabel) -> str:
    """Speeches in order, each under a header such as ``[Speech 3 — pro (alice)]``."""
    return "\n\n".join(f"{label(i, s)}\n{s.text.strip()}" for i, s in enumerate(speeches))


def debate_text(doc: Doc) -> str:
    """What the debaters said (every speech's text): the text an answer parser must never read
    a verdict from (see ``debench.task.quotes``)."""
    return "\n\n".join(s.text for s in doc.speeches)
