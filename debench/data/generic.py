"""The generic adapter: a task over any table of records, written in YAML only.

Records come from a local file — JSONL, CSV, Parquet (each read through ``debench.core.user_files``:
a regular file within its ceiling, JSON lines without a key given twice), or a folder
written by ``datasets``' ``save_to_disk`` — or from a Hugging Face data set through
``datasets.load_dataset(repo_id, config, split=..., revision=...)``. ``dataset.fields`` (see
``debench.task.config.FieldMap``) says which column is the id, the text or speeches, the gold answer and
its label map.

The content hash is taken over the records (canonical JSON, in order), so the same records give
the same hash whichever format or place they were read from.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from debench.core.errors import DataError, UserError
from debench.core.jsonl import iter_jsonl_objects
from debench.core.paths import portable_path
from debench.core.user_files import DATA_FILE, open_bounded, parse_json
from debench.data.base import ADAPTERS, Adapter, Doc, LoadedDataset, Speech
from debench.data.files import read_csv
from debench.data.transcript import SIDE_AND_SPEAKER, format_transcript
from debench.task.config import GENERIC_ADAPTER, DatasetConfig, FieldMap, HubSource, SpeechListFields, value_key

ADAPTERS.add(GENERIC_ADAPTER, Adapter(name=GENERIC_ADAPTER, load=None, speech_label=SIDE_AND_SPEAKER))

DEFAULT_SPLIT = "test"
FILE_TYPES = ".jsonl, .csv, .parquet or a save_to_disk folder"


def _columns(fm: FieldMap) -> list[str]:
    cols = [fm.gold, *fm.variables.values(), *fm.texts.values(), *fm.meta]
    cols += [c for c in (fm.doc_id, fm.text, fm.speeches.field if fm.speeches else None) if c]
    return list(dict.fromkeys(cols))


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [obj for _, obj in iter_jsonl_objects(path, "data", error=DataError)]


def read_parquet(path: Path) -> list[dict[str, Any]]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        with open_bounded(path, DATA_FILE) as fh:
            rows: list[dict[str, Any]] = pq.read_table(fh).to_pylist()
        return rows
    except (pa.ArrowException, OSError) as exc:
        raise DataError(f"not a readable Parquet file ({type(exc).__name__})", path=str(path)) from None


def read_saved(path: Path, split: str | None) -> list[dict[str, Any]]:
    """A folder written by ``Dataset.save_to_disk`` or ``DatasetDict.save_to_disk``."""
    import datasets

    try:
        saved = datasets.load_from_disk(str(path))
    except (FileNotFoundError, ValueError) as exc:
        raise DataError(
            f"not a folder written by datasets' save_to_disk ({str(exc).splitlines()[0][:120]})", path=str(path)
        ) from None
    if isinstance(saved, datasets.DatasetDict):
        name = split or DEFAULT_SPLIT
        if name not in saved:
            raise DataError(f"no split '{name}' (splits: {', '.join(saved)})", path=str(path), field="dataset.split")
        saved = saved[name]
    rows: list[dict[str, Any]] = saved.to_list()
    return rows


def read_file(path: Path, fm: FieldMap, split: str | None) -> list[dict[str, Any]]:
    if path.is_dir():
        return read_saved(path, split)
    if not path.exists():
        raise DataError("data file not found", path=str(path), field="dataset.file")
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson"):
        return read_jsonl(path)
    if suffix == ".csv":
        return _typed_csv(read_csv(path, _columns(fm)), fm, path)
    if suffix == ".parquet":
        return read_parquet(path)
    raise DataError(f"unknown data file type '{suffix}' (expected {FILE_TYPES})", path=str(path), field="dataset.file")


def _typed_csv(rows: list[dict[str, str]], fm: FieldMap, path: Path) -> list[dict[str, Any]]:
    """CSV cells are text: a list-of-speeches cell is a JSON list; without a label map, a gold
    cell that reads as a number is that number (a whole number as an int, as in JSON)."""
    for i, row in enumerate(rows):
        if fm.speeches is not None:
            cell = row[fm.speeches.field].encode("utf-8")
            row[fm.speeches.field] = parse_json(cell, path, DataError, at=f"record {i + 1}'s speeches cell")
        if not fm.label_map:
            try:
                number = float(row[fm.gold])
                row[fm.gold] = int(number) if number.is_integer() else number  # type: ignore[assignment]  # a CSV cell (a string) becomes the number it holds
            except ValueError:
                pass
    return rows


def read_hub(hub: HubSource, split: str | None) -> list[dict[str, Any]]:
    import datasets

    split = split or DEFAULT_SPLIT
    try:
        ds = datasets.load_dataset(hub.repo_id, hub.config, split=split, revision=hub.revision)
    except Exception as exc:  # noqa: BLE001 - offline, missing repo, bad config: one line for the user
        first = (str(exc).strip().splitlines() or [""])[0][:160]
        raise DataError(
            f"cannot load the data set '{hub.repo_id}' (config {hub.config}, split {split}) with "
            f"datasets.load_dataset: {type(exc).__name__}: {first}; offline, point dataset.file at a local copy",
            field="dataset.hub",
        ) from None
    rows: list[dict[str, Any]] = ds.to_list()
    return rows


def records_hash(rows: Iterable[dict[str, Any]]) -> str:
    h = hashlib.sha256()
    for row in rows:
        h.update(json.dumps(row, sort_keys=True, ensure_ascii=False, default=str).encode("utf-8"))
        h.update(b"\n")
    return "sha256:" + h.hexdigest()


def _doc_id(value: Any, i: int, where: str, col: str) -> str:
    """A record's id as text; a missing (null or NaN) or empty id, a true/false or a list or
    mapping is refused (a null would become document 'None')."""
    missing = value is None or (isinstance(value, float) and value != value) or not str(value).strip()
    if missing or isinstance(value, (bool, dict, list, tuple)):
        raise DataError(
            f"record {i + 1}: the id must be text or a whole number (got {value!r})"[:200], path=where, field=col
        )
    return str(value)


def _cell(row: dict[str, Any], col: str, i: int, where: str) -> Any:
    try:
        return row[col]
    except KeyError:
        raise DataError(
            f"record {i + 1}: no column '{col}' (columns: {', '.join(map(str, row))[:200]})", path=where, field=col
        ) from None


def _speeches(row: dict[str, Any], fm: FieldMap, i: int, where: str) -> list[Speech]:
    if fm.text is not None:
        return [Speech(speaker="", text=str(_cell(row, fm.text, i, where) or ""))]
    if fm.texts:
        return [
            Speech(speaker="", side=side, text=str(_cell(row, col, i, where) or "")) for side, col in fm.texts.items()
        ]
    spec = fm.speeches
    assert spec is not None
    items = _cell(row, spec.field, i, where)
    if not isinstance(items, Sequence) or isinstance(items, str):
        raise DataError(f"record {i + 1}: expected a list of speeches", path=where, field=spec.field)
    out = []
    for k, item in enumerate(items):
        if not isinstance(item, dict) or spec.text not in item:
            raise DataError(
                f"record {i + 1}, speech {k + 1}: expected a mapping with the key '{spec.text}'",
                path=where,
                field=spec.field,
            )
        side = _side(item, spec, i, k, where)
        speaker = item.get(spec.speaker) if spec.speaker else None
        out.append(Speech(speaker="" if speaker is None else str(speaker), side=side, text=str(item[spec.text] or "")))
    return out


def _side(item: dict[str, Any], spec: SpeechListFields, i: int, k: int, where: str) -> str | None:
    """A speech's side: its raw value through ``side_map``. With a map, every speech's side must be
    one of its keys (a side outside it would reach the prompt and the baselines unmapped)."""
    if spec.side is None:
        return None
    raw = item.get(spec.side)
    if not spec.side_map:
        return None if raw is None else str(raw)
    key = None if raw is None else value_key(raw)
    if key not in spec.side_map:
        got = f"side {raw!r}" if raw is not None else f"no side (key '{spec.side}')"
        raise DataError(
            f"record {i + 1}, speech {k + 1}: {got} is not in "
            f"dataset.fields.speeches.side_map ({', '.join(spec.side_map)})",
            path=where,
            field=spec.field,
        )
    return spec.side_map[key]


def _gold(row: dict[str, Any], fm: FieldMap, i: int, where: str) -> Any:
    raw = _cell(row, fm.gold, i, where)
    if raw is None or raw == "":
        raise DataError(f"record {i + 1}: no gold value", path=where, field=fm.gold)
    if not fm.label_map:
        return raw
    key = value_key(raw)
    if key not in fm.label_map:
        known = ", ".join(fm.label_map)
        raise DataError(
            f"record {i + 1}: gold value {raw!r} is not in dataset.fields.label_map ({known})",
            path=where,
            field=fm.gold,
        )
    return fm.label_map[key]


def docs_from_records(rows: Sequence[dict[str, Any]], fm: FieldMap, where: str) -> list[Doc]:
    docs = []
    seen: set[str] = set()
    for i, row in enumerate(rows):
        doc_id = _doc_id(_cell(row, fm.doc_id, i, where), i, where, fm.doc_id) if fm.doc_id else str(i)
        if doc_id in seen:
            raise DataError(
                f"record {i + 1}: duplicate id {doc_id!r}", path=where, field=fm.doc_id or "dataset.fields.doc_id"
            )
        seen.add(doc_id)
        speeches = _speeches(row, fm, i, where)
        transcript = speeches[0].text if fm.text is not None else format_transcript(speeches, SIDE_AND_SPEAKER)
        target = _gold(row, fm, i, where)
        variables = {var: _cell(row, col, i, where) for var, col in fm.variables.items()}
        docs.append(
            Doc(
                doc_id=doc_id,
                fields={**variables, "transcript": transcript, "n_speeches": len(speeches)},
                speeches=speeches,
                target=target,
                label=target if isinstance(target, (str, int)) else None,
                meta={col: _cell(row, col, i, where) for col in fm.meta},
            )
        )
    return docs


def load_generic(dataset: DatasetConfig, source: str) -> LoadedDataset:
    """``source``: ``local`` (``dataset.file``), ``hub`` (``dataset.hub``), ``auto`` (the file when
    the task names one, else the Hub); generic tasks have no sample."""
    fm = dataset.fields
    assert fm is not None
    if source == "sample":
        raise UserError("a generic task ships no sample data; use --data-source auto, local or hub")
    use_file = source == "local" or (source == "auto" and dataset.file is not None)
    if use_file:
        path = dataset.file_path()
        rows, where, revision = read_file(path, fm, dataset.split), str(path), None
    else:
        if dataset.hub is None:
            raise UserError("the task names no dataset.hub", field="dataset.hub")
        rows, where, revision = read_hub(dataset.hub, dataset.split), dataset.hub.repo_id, dataset.hub.revision
    docs = docs_from_records(rows, fm, where)
    if not docs:
        raise DataError("no records found", path=where)
    return LoadedDataset(
        docs=docs,
        source="local" if use_file else "hub",
        location=portable_path(where) if use_file else where,
        revision=revision,
        content_hash=records_hash(rows),
    )
