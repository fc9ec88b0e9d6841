"""Reading the files of published data sets through ``debench.core.user_files`` (regular files
within their ceilings; YAML without aliases or a key given twice); every problem is a one-line
DataError naming the file (and the column or key)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from debench.core.errors import DataError
from debench.core.user_files import DATA_FILE, DEBATE_FILE, load_yaml, open_bounded


def read_csv(path: Path, required: list[str]) -> list[dict[str, str]]:
    """The rows of a CSV file with a header, as strings ("" where a cell is empty)."""
    return list(iter_csv(path, required))


def iter_csv(path: Path, required: list[str]) -> Iterator[dict[str, str]]:
    """``read_csv`` one row at a time (a data set read as a run goes holds one row, not the table).

    The standard library's reader, not pandas: it holds each row once, as the adapter builds its
    documents, where pandas would import ~60 MB of libraries and hold the whole table twice.
    """
    csv.field_size_limit(1 << 30)  # speeches are long cells; the default cap is 128 KiB
    try:
        with open_bounded(path, DATA_FILE) as raw, io.TextIOWrapper(raw, encoding="utf-8-sig", newline="") as fh:
            reader = csv.DictReader(fh)
            columns = reader.fieldnames or []
            missing = [c for c in required if c not in columns]
            if missing:
                raise DataError(f"missing column(s) {', '.join(missing)}", path=str(path), field=missing[0])
            for row in reader:
                if None in row:
                    raise DataError(f"line {reader.line_num}: more cells than columns", path=str(path))
                yield {k: "" if v is None else v for k, v in row.items()}
    except (csv.Error, UnicodeDecodeError) as exc:
        raise DataError(f"not a readable CSV ({exc.__class__.__name__})", path=str(path)) from None


def as_int(cell: str, path: Path, column: str) -> int:
    """A CSV cell holding a whole number ("17", or "17.0" as spreadsheets write it)."""
    try:
        value = float(cell)
        if value.is_integer():
            return int(value)
    except ValueError:
        pass
    raise DataError(f"expected a whole number, got {cell[:40]!r}", path=str(path), field=column)


def as_float(cell: str, path: Path, column: str) -> float:
    try:
        return float(cell)
    except ValueError:
        raise DataError(f"expected a number, got {cell[:40]!r}", path=str(path), field=column) from None


_BOOLS = {"true": True, "false": False, "1": True, "0": False, "1.0": True, "0.0": False}


def as_bool(cell: str, path: Path, column: str) -> bool:
    """``True``/``False`` (any case) or 1/0."""
    try:
        return _BOOLS[cell.strip().lower()]
    except KeyError:
        raise DataError(f"expected True or False, got {cell[:40]!r}", path=str(path), field=column) from None


def read_yaml(path: Path) -> Any:
    """One debate's YAML file."""
    return load_yaml(path, DEBATE_FILE)


def read_panelbench_debate(directory: Path, doc_id: str) -> tuple[dict[str, Any], list[Any], Path, Path]:
    """Debatrix PanelBench layout: ``motion/<id>.yml`` (a mapping with ``motion``) and
    ``speech/<id>.yml`` (a list of speeches). Returns (motion, speeches, motion path, speech path)."""
    mpath = directory / "motion" / f"{doc_id}.yml"
    spath = directory / "speech" / f"{doc_id}.yml"
    motion = read_yaml(mpath)
    if not isinstance(motion, dict) or "motion" not in motion:
        raise DataError("missing key", path=str(mpath), field="motion")
    raw = read_yaml(spath)
    if not isinstance(raw, list):
        raise DataError("expected a list of speeches", path=str(spath))
    return motion, raw, mpath, spath


def panelbench_info_slide(motion: dict[str, Any]) -> str:
    """The info slide, or "" where the file says there is none ("No information")."""
    info = str(motion.get("info_slide") or "")
    return "" if info.strip().lower().rstrip(".") in ("", "no information") else info


def panelbench_fields(motion: dict[str, Any], transcript: str, **more: Any) -> dict[str, Any]:
    """A PanelBench debate's prompt fields: ``motion``, ``info_slide``, the format's own ``more``,
    then ``transcript`` (in this order)."""
    return {
        "motion": str(motion["motion"]),
        "info_slide": panelbench_info_slide(motion),
        **more,
        "transcript": transcript,
    }
