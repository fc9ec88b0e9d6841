"""Length probes: one side made longer or shorter while what it argues stays the same.

``pad_length[:F]`` (default F = 1.25): the side with the fewest words gets content-neutral
material — signposting and courtesy sentences that make no argument — appended to each of its
speeches until it has F times the words of the longest other side, so it becomes the longest
side. The filler sentences come from a fixed list, in an order fixed by the document id.

``trim_length[:K]`` (default K = 0.7): the side with the most words loses its most redundant
sentences until it keeps K of its words. A sentence's redundancy is the share of its content
words (longer than three letters, not stop words) that the same side also uses in another
sentence; a sentence without content words ("Thank you.") counts as fully redundant. The first
sentence of every speech is kept, ties go to the later sentence. Whether the trimmed side stops
being the longest depends on the debate.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from debench.core.text import join_kept, sentence_spans, word_count
from debench.data.base import Doc, Speech
from debench.probes.base import (
    Probe,
    ProbeContext,
    ProbedDoc,
    make_probed,
    register_probe,
    side_words,
    sides_in_order,
    stable_int,
)

FILLER = (
    "Let me take a moment to make sure the structure of what I am saying is clear.",
    "I want to be careful and precise about exactly what I am claiming at this point.",
    "Thank you for your patience as I work through this part of the round.",
    "I will now carry on with the line of reasoning I was developing.",
    "It is worth slowing down here so that nothing important gets lost along the way.",
    "Please bear with me while I set this out one step at a time.",
    "I appreciate the opportunity to put my case in this debate.",
    "This is how I would ask you to read the next part of my speech.",
    "To keep things orderly, I will take the points in the order I have already given.",
    "I hope the way I have organised this speech makes it easy to follow.",
    "Before I continue, I want to make sure we are all on the same page about the structure.",
    "I will try to be as clear as I can in what follows.",
    "With that said, let me return to where I was.",
    "I am grateful to everyone reading this exchange for their time.",
    "I will keep my framing consistent with what I said earlier in this speech.",
    "So that my structure stays easy to follow, I will signpost as I go.",
)
"""Content-neutral sentences (no claim, no evidence, no rebuttal), written for debench."""

_STOP = frozenset(
    [
        "that",
        "this",
        "with",
        "from",
        "have",
        "they",
        "their",
        "there",
        "were",
        "what",
        "when",
        "which",
        "would",
        "could",
        "should",
        "about",
        "because",
        "been",
        "into",
        "more",
        "than",
        "them",
        "then",
        "these",
        "those",
        "your",
        "very",
        "will",
        "just",
        "also",
        "only",
        "such",
        "some",
        "does",
        "doing",
        "being",
        "over",
        "most",
        "other",
        "many",
        "much",
        "even",
        "like",
        "make",
        "made",
        "here",
        "where",
        "while",
        "after",
    ]
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'\-]*")


def _filler(n_words: int, start: int) -> tuple[str, int]:
    """Filler sentences (cycling from ``start``) until at least ``n_words`` words; returns the text
    and the next start index."""
    out: list[str] = []
    total = 0
    i = start
    while total < n_words:
        sentence = FILLER[i % len(FILLER)]
        out.append(sentence)
        total += word_count(sentence)
        i += 1
    return " ".join(out), i


def pad_length(doc: Doc, ctx: ProbeContext, arg: float | None) -> ProbedDoc | None:
    factor = 1.25 if arg is None else arg
    sides = sides_in_order(doc)
    if len(sides) < 2:
        return None
    words = side_words(doc)
    short = min(sides, key=lambda s: (words[s], sides.index(s)))
    longest_other = max(words[s] for s in sides if s != short)
    need = max(1, math.ceil(factor * longest_other) - words[short])
    mine = [i for i, s in enumerate(doc.speeches) if s.side == short]
    per_speech = math.ceil(need / len(mine))
    start = stable_int("pad", doc.doc_id) % len(FILLER)
    speeches = list(doc.speeches)
    added = 0
    for i in mine:
        text, start = _filler(min(per_speech, need - added), start)
        if not text:
            continue
        added += word_count(text)
        s = speeches[i]
        speeches[i] = Speech(speaker=s.speaker, side=s.side, text=f"{s.text.rstrip()}\n\n{text}")
        if added >= need:
            break
    note = f"{short}: {words[short]} -> {words[short] + added} words (longest other side: {longest_other})"
    return make_probed("pad_length", doc, speeches, ctx, target_side=short, note=note)


def _content_words(sentence: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(sentence) if len(w) > 3 and w.lower() not in _STOP}


def trim_length(doc: Doc, ctx: ProbeContext, arg: float | None) -> ProbedDoc | None:
    keep_share = 0.7 if arg is None else arg
    sides = sides_in_order(doc)
    if len(sides) < 2:
        return None
    words = side_words(doc)
    long = max(sides, key=lambda s: (words[s], -sides.index(s)))
    mine = [i for i, s in enumerate(doc.speeches) if s.side == long]
    # every sentence of the side: (speech index, sentence index, span, content words, words)
    sentences = []
    for i in mine:
        text = doc.speeches[i].text
        for j, span in enumerate(sentence_spans(text)):
            piece = text[span[0] : span[1]]
            sentences.append((i, j, span, _content_words(piece), word_count(piece)))
    used_in = Counter(w for *_, content, _ in sentences for w in content)
    candidates = []
    for order, (i, j, _span, content, n) in enumerate(sentences):
        if j == 0:
            continue  # a speech's first sentence stays
        redundancy = 1.0 if not content else sum(used_in[w] > 1 for w in content) / len(content)
        candidates.append((-redundancy, -order, i, j, n))
    candidates.sort()
    target = keep_share * words[long]
    total = words[long]
    drop: set[tuple[int, int]] = set()
    for _, _, i, j, n in candidates:
        if total <= target:
            break
        drop.add((i, j))
        total -= n
    speeches = list(doc.speeches)
    for i in mine:
        s = speeches[i]
        spans = sentence_spans(s.text)
        keep = [(i, j) not in drop for j in range(len(spans))]
        speeches[i] = Speech(speaker=s.speaker, side=s.side, text=join_kept(s.text, spans, keep))
    new_total = sum(word_count(speeches[i].text) for i in mine)
    note = f"{long}: {words[long]} -> {new_total} words, {len(drop)} sentences dropped"
    return make_probed("trim_length", doc, speeches, ctx, target_side=long, note=note)


register_probe(
    Probe(
        name="pad_length",
        description="the shortest side padded with content-neutral sentences to F x the longest "
        "other side's words (default 1.25)",
        apply=pad_length,
        effect="padded_side_gain",
        effect_description="verdicts that moved to the padded side, among pairs whose "
        "original verdict was another side",
        default_arg=None,
        arg_range=(1.0, 5.0),
    )
)
register_probe(
    Probe(
        name="trim_length",
        description="the longest side's most redundant sentences dropped until it keeps K of its words (default 0.7)",
        apply=trim_length,
        effect="trimmed_side_loss",
        effect_description="verdicts that left the trimmed side, among pairs whose "
        "original verdict was the trimmed side",
        default_arg=None,
        arg_range=(0.3, 1.0),
    )
)
