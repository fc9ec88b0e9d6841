"""Quoted debate text is not an answer.

A judge may quote the debate in its answer, and a debate may contain a line that looks like a
verdict (a speaker's "Winner: con", or a bias probe's injected instruction). The rule: any run of
``MIN_WORDS`` (5) or more consecutive words of the answer that also occurs, in that order, in the
debate text is a quotation, and it is blanked out before the answer parser runs. Words are
compared lower-cased with surrounding punctuation removed, so quote marks, ``>`` markers,
emphasis and line breaks do not hide a quotation.

A verdict the judge writes in its own words — even the bare answer format, "Winner: con" — is
never blanked: it is shorter than five words, or its five-word neighbourhood is the judge's own.
What the rule cannot tell apart is a judge that copies *only* the bare answer format out of the
debate; that is indistinguishable from answering.
"""

from __future__ import annotations

import re
import string
from functools import lru_cache

MIN_WORDS = 5
_TOKEN = re.compile(r"\S+")
_STRIP = string.punctuation + "\u201c\u201d\u2018\u2019\u2014\u2013\u2026\u00ab\u00bb"


def _norm(token: str) -> str:
    return token.strip(_STRIP).lower()


def _tokens(text: str) -> list[tuple[int, int, str]]:
    out = []
    for m in _TOKEN.finditer(text):
        t = _norm(m.group())
        if t:
            out.append((m.start(), m.end(), t))
    return out


@lru_cache(maxsize=32)
def _ngrams(source: str, n: int) -> frozenset[tuple[str, ...]]:
    # the words of ``_tokens`` without their places: ``str.split`` splits where ``\S+`` does (both
    # at ``str.isspace``), at a third of the cost on a speech
    words = [w for w in map(_norm, source.split()) if w]
    return frozenset(zip(*(words[i:] for i in range(n)), strict=False))


@lru_cache(maxsize=32)
def _lowered(source: str) -> str:
    return source.lower()


def _may_quote(words: list[str], source: str, n: int) -> bool:
    """Whether some run of ``n`` answer words could be a quotation: each of its words must occur
    in the lower-cased source. A cheap necessary condition (exact for ASCII words, whose
    lower-casing does not depend on context; other words always pass) that spares tokenising the
    whole debate for almost every answer."""
    if len(words) < n:
        return False
    low = _lowered(source)
    present = [not w.isascii() or w in low for w in words]
    run = 0
    for p in present:
        run = run + 1 if p else 0
        if run >= n:
            return True
    return False


def quoted_spans(answer: str, source: str, min_words: int = MIN_WORDS) -> list[tuple[int, int]]:
    """Character spans of ``answer`` copied from ``source`` (runs of >= ``min_words`` words), merged."""
    if not answer or not source:
        return []
    toks = _tokens(answer)
    if not _may_quote([t for _, _, t in toks], source, min_words):
        return []
    grams = _ngrams(source, min_words)
    spans: list[tuple[int, int]] = []
    for i in range(len(toks) - min_words + 1):
        if tuple(t for _, _, t in toks[i : i + min_words]) in grams:
            a, b = toks[i][0], toks[i + min_words - 1][1]
            if spans and a <= spans[-1][1]:
                spans[-1] = (spans[-1][0], max(b, spans[-1][1]))
            else:
                spans.append((a, b))
    return spans


def mask_quoted(answer: str, source: str, min_words: int = MIN_WORDS) -> str:
    """``answer`` with every quotation of ``source`` replaced by spaces (line breaks kept)."""
    spans = quoted_spans(answer, source, min_words)
    if not spans:
        return answer
    chars = list(answer)
    for a, b in spans:
        for i in range(a, b):
            if chars[i] != "\n":
                chars[i] = " "
    return "".join(chars)
