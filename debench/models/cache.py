"""SQLite response cache keyed on everything that changes an answer.

Key = sha256 of the model identity (name, api base, model args), the messages, every generation
setting and the grammar text. Only successful responses are stored, redacted
(``debench.core.redact.Redactor.json_text``: no secret of this process and no key-shaped string is
written, even one a model echoed in its answer). A cached rerun makes no request.

Writes are batched: a response is held in memory (and served from there) until 64 are pending or
0.25 s have passed, then all are written in one transaction; ``close`` writes the rest. A hard
kill loses at most that batch of *cache* entries — never a sample (the samples log is written
line by line) — and those documents are asked again only if their samples are missing too.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pydantic_core

from debench.core.errors import UserError
from debench.core.paths import cache_root
from debench.core.redact import Redactor
from debench.models.base import ModelResponse


def default_cache_path() -> Path:
    return cache_root() / "responses.sqlite"


def cache_key(
    identity: dict[str, Any], messages: list[dict[str, str]], generation: dict[str, Any], grammar: str | None
) -> str:
    """sha256 of ``json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))`` of
    the model identity, the messages, the generation settings and the grammar, UTF-8 encoded."""
    payload = _fast_payload(identity, messages, generation, grammar)
    if payload is None:
        value = {"model": identity, "messages": messages, "generation": generation, "grammar": grammar}
        payload = _KEY_JSON(value).encode("utf-8")
    return hashlib.sha256(payload).hexdigest()


_KEY_JSON = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode
"""``json.dumps`` with the cache key's settings, its encoder built once."""


def _fast_payload(
    identity: dict[str, Any], messages: list[dict[str, str]], generation: dict[str, Any], grammar: str | None
) -> bytes | None:
    """The key's JSON text, UTF-8 encoded, with each message string written by pydantic-core: the
    same bytes as json's (the same escapes: ``\\"``, ``\\\\``, ``\\n`` and the like, ``\\u00xx`` in
    lower case for other control characters, every other character as it is), ~7 times faster on
    a long prompt. The top-level keys in sorted order: generation, grammar, messages, model. None
    when a message holds anything but strings, or a string pydantic-core cannot write (a lone
    surrogate): the caller writes that key with json."""
    parts = []
    try:
        for message in messages:
            fields = []
            for k, v in sorted(message.items()):
                if type(k) is not str or type(v) is not str:
                    return None
                fields.append(pydantic_core.to_json(k) + b":" + pydantic_core.to_json(v))
            parts.append(b"{" + b",".join(fields) + b"}")
    except pydantic_core.PydanticSerializationError:
        return None
    return b"".join(
        (
            b'{"generation":',
            _KEY_JSON(generation).encode("utf-8"),
            b',"grammar":',
            _KEY_JSON(grammar).encode("utf-8"),
            b',"messages":[',
            b",".join(parts),
            b'],"model":',
            _KEY_JSON(identity).encode("utf-8"),
            b"}",
        )
    )


class ResponseCache:
    FLUSH_EVERY = 64
    FLUSH_AFTER_S = 0.25

    def __init__(self, path: Path | str | None = None):
        self.path = Path(path) if path else default_cache_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UserError(
                f"cannot use the response cache folder ({exc.strerror or type(exc).__name__}); set DEBENCH_CACHE_DIR "
                "to a writable folder or use --no-cache",
                path=str(self.path.parent),
            ) from None
        if self.path.is_dir():
            raise UserError(
                "the response cache path is a folder, not a file; set DEBENCH_CACHE_DIR to "
                "another folder or use --no-cache",
                path=str(self.path),
            )
        with self._guard():
            self._db = self._open()
        self.hits = 0
        self.misses = 0
        self._pending: dict[str, str] = {}
        self._redactor = Redactor()
        self._last_flush = time.monotonic()

    def _open(self) -> sqlite3.Connection:
        """Connect, in WAL mode, the table created. Two processes opening a new cache at the same
        moment can see "database is locked" while one switches it to WAL (SQLite does not wait
        for that lock): the other retries for up to ~5 s."""
        for attempt in range(100):
            db = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
            try:
                if db.execute("PRAGMA journal_mode").fetchone()[0] != "wal":
                    db.execute("PRAGMA journal_mode=WAL")
                db.execute("PRAGMA synchronous=NORMAL")
                db.execute(
                    "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, value TEXT NOT NULL, created "
                    "REAL DEFAULT (julianday('now')))"
                )
                return db
            except sqlite3.OperationalError as exc:
                db.close()
                if "locked" not in str(exc) or attempt == 99:
                    raise
                time.sleep(0.05)
        raise AssertionError("unreachable")

    @contextmanager
    def _guard(self) -> Iterator[None]:
        """A damaged or unwritable cache file is one line naming it and how to move it aside;
        debench never deletes it."""
        try:
            yield
        except sqlite3.OperationalError as exc:  # locked for too long, read-only, disk full
            raise UserError(
                f"cannot use the response cache ({exc}); set DEBENCH_CACHE_DIR to a "
                "writable folder or run with --no-cache",
                path=str(self.path),
            ) from None
        except sqlite3.DatabaseError as exc:  # not an SQLite file, or damaged pages
            raise UserError(
                f"the response cache is damaged or not a debench cache ({exc}); move it aside and rerun: "
                f"mv '{self.path}' '{self.path}.corrupt' (or run with --no-cache)",
                path=str(self.path),
            ) from None

    def get(self, key: str) -> ModelResponse | None:
        value = self._pending.get(key)
        if value is None:
            with self._guard():
                row = self._db.execute("SELECT value FROM responses WHERE key = ?", (key,)).fetchone()
            value = None if row is None else row[0]
        if value is None:
            self.misses += 1
            return None
        self.hits += 1
        return ModelResponse.model_validate_json(value)

    def put(self, key: str, response: ModelResponse) -> None:
        self._pending[key] = self._redactor.json_text(response.model_dump_json())
        if len(self._pending) >= self.FLUSH_EVERY or time.monotonic() - self._last_flush >= self.FLUSH_AFTER_S:
            self.flush()

    def flush(self) -> None:
        """Write the pending responses in one transaction."""
        self._last_flush = time.monotonic()
        if not self._pending:
            return
        rows = list(self._pending.items())
        self._pending.clear()
        with self._guard(), self._db:  # BEGIN ... COMMIT
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR REPLACE INTO responses (key, value) VALUES (?, ?)", rows)

    def close(self) -> None:
        self.flush()
        self._db.close()
