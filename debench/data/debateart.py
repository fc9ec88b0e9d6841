"""DebateArt debates as published in Debatrix's PanelBench (``DebateArt/`` folder).

``motion/debateart_NNNN.yml`` (motion, pro_side, con_side, info_slide, speech_order),
``speech/debateart_NNNN.yml`` (list of {debater_name, content}), ``gold/final.csv`` (general
winner) and ``gold/dimension.csv`` (argument / source / language winners), labels 0.0 / 0.5 / 1.0
= pro wins / tie / con wins.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from debench.core.errors import DataError
from debench.data.base import Doc, Speech, register_adapter
from debench.data.files import as_bool, as_float, as_int, panelbench_fields, read_csv, read_panelbench_debate
from debench.data.transcript import SIDE_AND_SPEAKER, format_transcript

LABELS = {0.0: "pro", 0.5: "tie", 1.0: "con"}
DIMENSIONS = ("general", "argument", "source", "language")


def gold_table(directory: Path, dimension: str) -> dict[str, dict[str, Any]]:
    """doc_id -> {label, gold_value, is_many_round, is_long, vote_count} for one dimension."""
    if dimension not in DIMENSIONS:
        raise DataError(
            f"unknown dimension '{dimension}' (known: {', '.join(DIMENSIONS)})", field="dataset.options.dimension"
        )
    cols = ["dart_id", "is_many_round", "is_long", "vote_count", "label"]
    if dimension == "general":
        path = directory / "gold" / "final.csv"
        rows = read_csv(path, cols)
    else:
        path = directory / "gold" / "dimension.csv"
        rows = [r for r in read_csv(path, [*cols, "dimension"]) if r["dimension"] == dimension]
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        value = as_float(row["label"], path, "label")
        if value not in LABELS:
            raise DataError(f"label {row['label']!r} is not 0.0, 0.5 or 1.0", path=str(path), field="label")
        out[f"debateart_{as_int(row['dart_id'], path, 'dart_id'):04d}"] = {
            "label": LABELS[value],
            "gold_value": value,
            "is_many_round": as_bool(row["is_many_round"], path, "is_many_round"),
            "is_long": as_bool(row["is_long"], path, "is_long"),
            "vote_count": as_int(row["vote_count"], path, "vote_count"),
        }
    return out


def _names(entries: Any, path: Path, field: str) -> list[str]:
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "name" in e for e in entries):
        raise DataError("expected a list of {name: ...}", path=str(path), field=field)
    return [str(e["name"]) for e in entries]


speech_label = SIDE_AND_SPEAKER
"""``[Speech 3 — pro (alice)]``"""


@register_adapter("debateart", patterns=["motion/*.yml", "speech/*.yml", "gold/*.csv"], speech_label=speech_label)
def load_debateart(directory: Path, dimension: str = "general") -> list[Doc]:
    directory = Path(directory)
    gold = gold_table(directory, dimension)
    docs = []
    for doc_id in sorted(gold):
        motion, raw, mpath, spath = read_panelbench_debate(directory, doc_id)
        pro = _names(motion.get("pro_side"), mpath, "pro_side")
        con = _names(motion.get("con_side"), mpath, "con_side")
        speeches = []
        for k, item in enumerate(raw):
            if not isinstance(item, dict) or "debater_name" not in item or "content" not in item:
                raise DataError(f"speech {k + 1} lacks debater_name/content", path=str(spath), field="debater_name")
            name = str(item["debater_name"])
            side = "pro" if name in pro else "con" if name in con else None
            if side is None:
                raise DataError(
                    f"speech {k + 1}: debater '{name}' is on neither side", path=str(spath), field="debater_name"
                )
            speeches.append(Speech(speaker=name, side=side, text=str(item["content"])))
        docs.append(
            Doc(
                doc_id=doc_id,
                fields={
                    **panelbench_fields(
                        motion,
                        format_transcript(speeches, speech_label),
                        pro_name=", ".join(pro),
                        con_name=", ".join(con),
                    ),
                    "n_speeches": len(speeches),
                },
                speeches=speeches,
                target=gold[doc_id]["label"],
                label=gold[doc_id]["label"],
                meta={"dimension": dimension, **gold[doc_id]},
            )
        )
    return docs
