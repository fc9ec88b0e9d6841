"""Speech files: CSV with the columns of Debatable Intelligence's ``GPT_4_1_speeches.csv``
(``id, topic, source, text``), one opening speech supporting ``topic`` per row."""

from __future__ import annotations

import csv
import hashlib
import io
from pathlib import Path

from pydantic import BaseModel

from debench.core.atomic import write_atomic
from debench.core.errors import DataError
from debench.core.user_files import DATA_FILE, open_bounded
from debench.data.files import read_csv

COLUMNS = ["id", "topic", "source", "text"]


class SpeechRow(BaseModel):
    id: str
    topic: str
    source: str
    text: str


def read_speeches(path: Path) -> list[SpeechRow]:
    rows: list[SpeechRow] = []
    seen: dict[str, int] = {}
    for i, values in enumerate(read_csv(path, COLUMNS), start=2):
        for c in COLUMNS:
            if not values[c].strip():
                raise DataError(f"row {i}: empty {c}", path=str(path), field=c)
        sid = values["id"].strip()
        if sid in seen:
            raise DataError(f"row {i}: id '{sid}' repeats row {seen[sid]}", path=str(path), field="id")
        seen[sid] = i
        rows.append(
            SpeechRow(id=sid, topic=values["topic"].strip(), source=values["source"].strip(), text=values["text"])
        )
    if not rows:
        raise DataError("no speeches", path=str(path), field="text")
    return rows


def file_hash(path: Path) -> str:
    """sha256 of the file's bytes as they are."""
    h = hashlib.sha256()
    with open_bounded(path, DATA_FILE) as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return "sha256:" + h.hexdigest()


def write_speeches(path: Path, rows: list[SpeechRow]) -> None:
    """Atomically, with the same quoting as the published file (fields quoted when needed)."""
    buf = io.StringIO(newline="")
    w = csv.writer(buf)
    w.writerow(COLUMNS)
    for r in rows:
        w.writerow([r.id, r.topic, r.source, r.text])
    write_atomic(Path(path), buf.getvalue())
