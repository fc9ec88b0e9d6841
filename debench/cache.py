"""SQLite response cache keyed on everything that changes an answer.

Key = sha256 of the model identity (name, api base, model args), the messages, every generation
setting and the grammar text. Only successful responses are stored. A cached rerun makes no
request.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from pathlib import Path
from typing import Any

from debench.models.base import ModelResponse


def default_cache_path() -> Path:
    root = os.environ.get("DEBENCH_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "debench"
    )
    return Path(root) / "responses.sqlite"


def cache_key(identity: dict[str, Any], messages: list[dict[str, str]], generation: dict[str, Any], grammar: str | None) -> str:
    payload = json.dumps(
        {"model": identity, "messages": messages, "generation": generation, "grammar": grammar},
        sort_keys=True,
        ensure_ascii=False,
        separators=(",", ":"),
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ResponseCache:
    def __init__(self, path: Path | str | None = None):
        self.path = Path(path) if path else default_cache_path()
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL, created REAL DEFAULT (julianday('now')))")
        self.hits = 0
        self.misses = 0

    def get(self, key: str) -> ModelResponse | None:
        row = self._db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
        if row is None:
            self.misses += 1
            return None
        self.hits += 1
        return ModelResponse.model_validate_json(row[0])

    def put(self, key: str, response: ModelResponse) -> None:
        self._db.execute(
            "INSERT OR REPLACE INTO responses (key, value) VALUES (?, ?)",
            (key, response.model_dump_json()),
        )

    def close(self) -> None:
        self._db.close()
