"""Formatting a debate's speeches as one prompt-ready transcript."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from debench.data.base import Speech


def format_transcript(speeches: Sequence[Speech], label: Callable[[int, Speech], str]) -> str:
    """Speeches in order, each under a header such as ``[Speech 3 — pro (alice)]``."""
    return "\n\n".join(f"{label(i, s)}\n{s.text.strip()}" for i, s in enumerate(speeches))
