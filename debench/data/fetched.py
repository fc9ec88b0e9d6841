"""Where ``debench data fetch`` puts a data set: ``<cache root>/data/<local_dir>``, in the published
format, with a record of where it came from and what was checked (``.debench-fetch.json``).

A folder without that record is not a fetched copy (a fetch moves its folder into place only once
everything is unpacked and checked), so ``--data-source auto`` never reads half a download.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, Field

from debench.core.paths import cache_root

RECORD_NAME = ".debench-fetch.json"


class FetchRecord(BaseModel):
    """Written beside the files of a fetched data set."""

    local_dir: str
    source: str = Field(description="the archive URL, or the Hub repository the files came from")
    archive_sha256: str | None = Field(default=None, description="sha256 of the downloaded archive")
    file_sha256: dict[str, str] = Field(default_factory=dict, description="sha256 of each downloaded file")
    content_hash: str = Field(description="of the adapter's files, as results record it in dataset.content_hash")
    checked: list[str] = Field(
        description="what matched a value shipped with the task: sha256, content_hash; "
        "empty: nothing (--allow-unverified)"
    )
    fetched_at: str


def data_root() -> Path:
    return cache_root() / "data"


def fetched_dir(local_dir: str) -> Path:
    return data_root() / local_dir


def read_fetch_record(local_dir: str) -> FetchRecord | None:
    """The record of a complete fetched copy of ``local_dir``, or None."""
    path = fetched_dir(local_dir) / RECORD_NAME
    try:
        return FetchRecord.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
