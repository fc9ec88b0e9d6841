"""IBM debate speeches (Slonim et al. 2021) as published in ``data.csv`` of the
Debatable Intelligence release (HF ``noystl/speech-quality-dataset``).

Columns: ``id, topic_id, topic, source, text, goodopeningspeech, #labelers, labeler_ids``;
``goodopeningspeech`` and ``labeler_ids`` are Python-style list strings (``"[4, 5, 3]"``),
aligned position by position.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import jiter

from debench.core.errors import DataError
from debench.data.base import Doc, Speech, register_adapter
from debench.data.files import iter_csv

REQUIRED_COLUMNS = ["id", "topic", "source", "text", "goodopeningspeech", "labeler_ids"]
DATA_FILE = "data.csv"


def _int_list(raw: object, path: Path, row: int, column: str) -> list[int]:
    try:
        values = jiter.from_json(str(raw).encode("utf-8"))  # nested past its bound: a ValueError too
        if not isinstance(values, list):
            raise ValueError
        return [int(v) for v in values]
    except (ValueError, TypeError):
        raise DataError(
            f"row {row}: expected a list of integers such as [4, 5, 3], got {str(raw)[:40]!r}",
            path=str(path),
            field=column,
        ) from None


def iter_ibm_speeches(directory: Path, *, text: bool = True) -> Iterator[Doc]:
    """One document per speech, in file order, one at a time (``debench.data.loading`` streams
    them through a run); target = mean human rating, ratings kept with annotator ids. Without
    ``text``: no fields and no speeches (the gold view scoring keeps, built without the text)."""
    path = Path(directory) / DATA_FILE
    for i, row in enumerate(iter_csv(path, REQUIRED_COLUMNS), start=2):
        ratings = _int_list(row["goodopeningspeech"], path, i, "goodopeningspeech")
        annotators = _int_list(row["labeler_ids"], path, i, "labeler_ids")
        if len(ratings) != len(annotators) or not ratings:
            raise DataError(
                f"row {i}: {len(ratings)} ratings but {len(annotators)} annotator ids",
                path=str(path),
                field="labeler_ids",
            )
        if any(r < 1 or r > 5 for r in ratings):
            raise DataError(f"row {i}: ratings must be 1-5", path=str(path), field="goodopeningspeech")
        mean = sum(ratings) / len(ratings)
        yield Doc(
            doc_id=row["id"],
            fields={"topic": row["topic"], "speech": row["text"]} if text else {},
            speeches=[Speech(speaker=row["source"], side="pro", text=row["text"])] if text else [],
            target=mean,
            label=int(min(5, max(1, int(mean + 0.5)))),
            meta={
                "source": row["source"],
                "topic_id": row.get("topic_id") or None,
                "ratings": ratings,
                "annotators": annotators,
            },
        )


def run_order(docs: list[Doc], directory: Path) -> list[Doc]:
    """The documents in run order, their ids checked unique.

    The published file is sorted by source, so its first rows are all one or two sources. A
    stable pseudo-random order (by a hash of the id) makes ``--limit N`` a fair sample."""
    ids = [d.doc_id for d in docs]
    if len(set(ids)) != len(ids):
        raise DataError("duplicate speech ids", path=str(Path(directory) / DATA_FILE), field="id")
    return sorted(docs, key=lambda d: hashlib.sha256(d.doc_id.encode()).hexdigest())


@register_adapter("ibm_speeches", patterns=[DATA_FILE])
def load_ibm_speeches(directory: Path) -> list[Doc]:
    return run_order(list(iter_ibm_speeches(directory)), directory)
