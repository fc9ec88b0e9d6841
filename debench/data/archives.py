"""Unpacking a downloaded archive (``.tar.gz``, ``.tgz``, ``.tar``, ``.zip``) safely and completely.

A gzip stream is read to its end first, so its CRC-32 and length are checked (tar stops reading at
its end-of-archive blocks and would not notice a damaged trailer); a zip's CRCs are tested. Members
that would land outside the target folder (absolute paths, ``..``, links out) are refused by
tarfile's ``data`` filter and by the zip name check. Any problem is a ``UserError``; the caller
unpacks into a staging folder and deletes it on failure, so nothing half-unpacked is left.
"""

from __future__ import annotations

import gzip
import shutil
import tarfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath
from typing import IO, TypeVar

from debench.core.errors import UserError

ARCHIVE_SUFFIXES = (".tar.gz", ".tgz", ".tar", ".zip")
_BROKEN = (tarfile.TarError, zipfile.BadZipFile, EOFError, zlib.error, gzip.BadGzipFile, OSError, ValueError)


def archive_kind(name: str) -> str:
    lower = name.lower()
    for suffix in ARCHIVE_SUFFIXES:
        if lower.endswith(suffix):
            return "zip" if suffix == ".zip" else "tar"
    raise UserError(f"'{name}' is not a known archive type ({', '.join(ARCHIVE_SUFFIXES)})", field="dataset.fetch")


def _check_gzip(path: Path) -> None:
    with gzip.open(path, "rb") as fh:
        while fh.read(1 << 20):
            pass


def _names_member(name: str, member: str) -> bool:
    norm = PurePosixPath(name.lstrip("./")).as_posix() if name not in (".", "./") else ""
    return norm == member or norm.endswith("/" + member)


def unpack(path: Path, dest: Path, member: str | None = None) -> None:
    """Unpack the archive at ``path`` (its type from its name) into ``dest``. With ``member``,
    only that file of the archive (matched with or without a leading top-level folder) is
    extracted, as ``dest/<its file name>``."""
    kind = archive_kind(path.name)
    try:
        if kind == "zip":
            _unpack_zip(path, dest, member)
        else:
            with open(path, "rb") as fh:
                gzipped = fh.read(2) == b"\x1f\x8b"
            if gzipped:
                _check_gzip(path)
            _unpack_tar(path, dest, member)
    except UserError:
        raise
    except tarfile.FilterError as exc:
        raise UserError(f"{path.name}: {exc}; refused, nothing was kept") from None
    except _BROKEN as exc:
        raise UserError(
            f"{path.name} is corrupt or truncated ({type(exc).__name__}: {str(exc)[:100]}); nothing was kept"
        ) from None


def _unpack_tar(path: Path, dest: Path, member: str | None) -> None:
    with tarfile.open(path, "r:*") as tar:
        if member is None:
            tar.extractall(dest, filter="data")
            return
        hits = [m for m in tar.getmembers() if m.isfile() and _names_member(m.name, member)]
        _copy_member(tar.extractfile(_only(hits, member, path)), dest / PurePosixPath(member).name)


def _unpack_zip(path: Path, dest: Path, member: str | None) -> None:
    with zipfile.ZipFile(path) as zf:
        bad = zf.testzip()
        if bad is not None:
            raise zipfile.BadZipFile(f"CRC check failed for {bad}")
        names = zf.namelist()
        for name in names:
            p = PurePosixPath(name)
            if p.is_absolute() or ".." in p.parts:
                raise UserError(f"{path.name}: member '{name}' would be written outside the data folder; refused")
        if member is None:
            zf.extractall(dest)
            return
        hits = [n for n in names if not n.endswith("/") and _names_member(n, member)]
        with zf.open(_only(hits, member, path)) as src:
            _copy_member(src, dest / PurePosixPath(member).name)


_Member = TypeVar("_Member")  # a zip member's name or a tar member


def _only(hits: list[_Member], member: str, path: Path) -> _Member:
    if len(hits) != 1:
        what = "no" if not hits else f"{len(hits)} files named"
        raise UserError(f"{path.name} holds {what} '{member}': not the published layout")
    return hits[0]


def _copy_member(src: IO[bytes] | None, target: Path) -> None:
    if src is None:
        raise UserError(f"cannot read '{target.name}' from the archive")
    target.parent.mkdir(parents=True, exist_ok=True)
    with src, open(target, "wb") as out:
        shutil.copyfileobj(src, out)


def single_root(folder: Path) -> Path:
    """The folder the data set is in: ``folder`` itself, or its only subfolder when the archive
    wrapped everything in one top-level folder (``DebateArt/gold/...``)."""
    entries = [p for p in folder.iterdir() if p.name != "__MACOSX"]
    if len(entries) == 1 and entries[0].is_dir():
        return entries[0]
    return folder
