"""A synthetic data set in the IBM debate speeches CSV format (``data.csv``), for benchmarks only.

Speeches are seeded random text of realistic length (~600 words, like the real opening speeches).
Annotators work in groups of 20 on blocks of 100 speeches, 15 of the group rating each speech
around a latent quality (so annotator pairs share ~55 speeches, as the leave-one-out kappa needs).
Nothing of the real data is copied.
"""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

WORDS = [
    "the",
    "we",
    "should",
    "policy",
    "because",
    "evidence",
    "people",
    "state",
    "government",
    "society",
    "argue",
    "clearly",
    "must",
    "benefit",
    "cost",
    "harm",
    "rights",
    "freedom",
    "economy",
    "children",
    "education",
    "health",
    "public",
    "private",
    "market",
    "market's",
    "research",
    "data",
    "opponents",
    "claim",
    "however",
    "therefore",
    "moreover",
    "first",
    "second",
    "finally",
    "important",
    "example",
    "consider",
    "impact",
    "long",
    "term",
    "short",
    "risk",
    "safety",
    "justice",
    "fair",
    "unfair",
    "law",
    "ban",
    "support",
    "oppose",
    "community",
    "future",
    "history",
    "study",
]
SUBJECTS = (
    "nuclear energy",
    "school uniforms",
    "space exploration",
    "zoos",
    "social media",
    "fast food",
    "homework",
    "organic farming",
    "tourism",
    "cryptocurrency",
    "public libraries",
    "urban cycling",
)
FRAMES = ("We should subsidize {}", "We should ban {}", "We should limit {}", "We should further exploit {}")
SOURCES = (
    "Human expert",
    "Project Debater",
    "Arg-Human1",
    "Arg-Human2",
    "Arg-GPT2",
    "Speech-GPT2",
    "Arg-Search",
    "Summit",
)
BLOCK = 100
GROUP = 20
RATINGS_PER_SPEECH = 15


def write_synthetic_ibm(directory: Path, n_docs: int, seed: int = 0, words: int = 600) -> Path:
    """Write ``directory/data.csv`` with ``n_docs`` speeches; returns its path."""
    rng = random.Random(seed)
    directory.mkdir(parents=True, exist_ok=True)
    topics = [frame.format(s) for frame in FRAMES for s in SUBJECTS]
    path = directory / "data.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["id", "topic_id", "topic", "source", "text", "goodopeningspeech", "#labelers", "labeler_ids"])
        for i in range(n_docs):
            t = i % len(topics)
            quality = rng.gauss(3.3, 0.8)
            group = 1000 + GROUP * (i // BLOCK)
            annotators = rng.sample(range(group, group + GROUP), RATINGS_PER_SPEECH)
            ratings = [min(5, max(1, round(rng.gauss(quality, 0.9)))) for _ in annotators]
            n_words = max(20, int(rng.gauss(words, words / 6)))
            text = " ".join(rng.choices(WORDS, k=n_words)).capitalize() + "."
            out.writerow(
                [
                    f"syn-{i:06d}",
                    9000 + t,
                    topics[t],
                    SOURCES[i % len(SOURCES)],
                    text,
                    json.dumps(ratings),
                    len(ratings),
                    json.dumps(annotators),
                ]
            )
    return path
