"""Which weights answer: content digests of local weight files and folders, and GGUF files from
the Hugging Face Hub.

A model's identity names its weights by content, so that cache keys, run fingerprints and the
leaderboard know which weights answered, whatever the path or machine:

* one file (a GGUF): its sha256;
* a folder (a checkpoint for vLLM): the sha256 of its manifest, one line ``<relative path>\\t<size>
  \\t<sha256>`` per regular file, sorted by path; files and folders whose name starts with ``.``
  (``.git``, ``.cache``, editor files) are left out, symlinks are followed (a Hub snapshot folder is
  made of them).

Reading multi-GB files on every command would cost seconds to minutes (about 1.2 GB/s here, from
the page cache), so each file's sha256 is computed once and kept in ``file_hashes.sqlite`` in the
cache folder, keyed by the file's real path, size and modification time (ns): a file that is
rewritten, even with the same size, is hashed again; a file merely copied elsewhere is hashed once
more at its new path and gets the same digest.
"""

from __future__ import annotations

import hashlib
import logging
import os
import sqlite3
from pathlib import Path

from debench.core.errors import UserError
from debench.core.paths import cache_root

GGUF_MAGIC = b"GGUF"
ANNOUNCE_BYTES = 1 << 30
"""Files this large are announced before they are hashed (it takes about a second per GB)."""
log = logging.getLogger(__name__)


def _db() -> sqlite3.Connection | None:
    """The digest cache, or None when the cache folder cannot be written (then nothing is kept)."""
    path = cache_root() / "file_hashes.sqlite"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, timeout=30)
        db.execute(
            "CREATE TABLE IF NOT EXISTS sha256 (path TEXT, size INTEGER, mtime_ns INTEGER, digest TEXT, "
            "PRIMARY KEY (path, size, mtime_ns))"
        )
        return db
    except sqlite3.Error:
        return None
    except OSError:
        return None


def file_sha256(path: Path) -> str:
    """The file's sha256 (hex), read once per real path, size and modification time."""
    real = os.path.realpath(path)
    st = os.stat(real)
    key = (real, st.st_size, st.st_mtime_ns)
    db = _db()
    try:
        if db is not None:
            row = db.execute("SELECT digest FROM sha256 WHERE path = ? AND size = ? AND mtime_ns = ?", key).fetchone()
            if row:
                return str(row[0])
        if st.st_size >= ANNOUNCE_BYTES:
            log.warning(
                "hashing %s (%.1f GB) for the model's identity; once per path, size and modification time",
                real,
                st.st_size / 1e9,
            )
        with open(real, "rb") as f:
            digest = hashlib.file_digest(f, "sha256").hexdigest()
        if db is not None:
            with db:
                db.execute("INSERT OR REPLACE INTO sha256 VALUES (?, ?, ?, ?)", (*key, digest))
        return digest
    finally:
        if db is not None:
            db.close()


def _files(folder: Path) -> list[Path]:
    out: list[Path] = []
    for root, dirs, files in os.walk(folder, followlinks=True):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        out.extend(Path(root) / f for f in files if not f.startswith("."))
    return sorted(out, key=lambda p: p.relative_to(folder).as_posix())


def weights_digest(path: Path) -> tuple[str, int]:
    """(sha256, number of files) of a weights file or folder (see the module's docstring)."""
    if path.is_file():
        return file_sha256(path), 1
    files = [f for f in _files(path) if f.is_file()]
    if not files:
        raise UserError("the folder holds no files", path=str(path))
    manifest = "".join(f"{f.relative_to(path).as_posix()}\t{f.stat().st_size}\t{file_sha256(f)}\n" for f in files)
    return hashlib.sha256(manifest.encode("utf-8")).hexdigest(), len(files)


def check_gguf(path: Path, label: str) -> None:
    """A readable file that starts with GGUF's magic bytes (else one line: llama.cpp would only say
    it failed to start)."""
    if not path.exists():
        raise UserError(f"{label}: no such file: {path}")
    if not path.is_file():
        raise UserError(f"{label}: {path} is a folder, not a GGUF file")
    try:
        with open(path, "rb") as f:
            magic = f.read(4)
    except OSError as exc:
        raise UserError(f"{label}: cannot read {path} ({exc.strerror or type(exc).__name__})") from None
    if magic != GGUF_MAGIC:
        raise UserError(f"{label}: {path} is not a GGUF file (it does not start with the GGUF magic bytes)")


HUB_PREFIX = "hf:"


def split_hub_file(ref: str) -> tuple[str, str]:
    """``hf:org/repo/path/in/repo.gguf`` -> (``org/repo``, ``path/in/repo.gguf``)."""
    parts = ref.removeprefix(HUB_PREFIX).split("/")
    if len(parts) < 3 or not all(parts):
        raise UserError(f"'gguf/{ref}': a Hub file is gguf/hf:<org>/<repo>/<file>.gguf")
    return "/".join(parts[:2]), "/".join(parts[2:])


def hub_gguf(ref: str, revision: str | None) -> Path:
    """The local copy of a Hub GGUF file (``huggingface_hub.hf_hub_download``: downloaded once into
    the Hub cache, then served from it, also offline)."""
    repo_id, filename = split_hub_file(ref)
    import logging

    from huggingface_hub import hf_hub_download

    hub_log = logging.getLogger("huggingface_hub")
    level = hub_log.level
    if not hub_log.isEnabledFor(logging.INFO):
        hub_log.setLevel(logging.ERROR)  # its retry warnings would bury the one line that says what failed
    try:
        return Path(hf_hub_download(repo_id=repo_id, filename=filename, revision=revision))
    except Exception as exc:  # noqa: BLE001 - offline, unreachable, unknown repo or file, no access
        at = f"@{revision}" if revision else ""
        raise UserError(
            f"gguf/{ref}: cannot download {filename} from {repo_id}{at} on the Hugging Face Hub "
            f"({type(exc).__name__}); download it yourself and give its path: gguf/<path>.gguf"
        ) from None
    finally:
        hub_log.setLevel(level)
