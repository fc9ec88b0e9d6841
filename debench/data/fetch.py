"""``debench data fetch``: download each data set from its official source into the cache, check
it, and move it into place for ``--data-source auto``.

Sources are named in the task files (``dataset.fetch``): an archive URL (the Debatrix PanelBench
release asset, whose nested ``data/DebateArt.tar.gz`` is unpacked in turn) or files of the
task's Hub repository (``https://huggingface.co/datasets/<repo>/resolve/<revision>/<file>``;
``$HF_ENDPOINT`` is honoured). What is checked is what the task file ships: the archive's or each
file's sha256, and the content hash of the unpacked files (the ``dataset.content_hash`` results
record). A data set with nothing to check against is fetched only with ``allow_unverified``.

Nothing is repaired and nothing half-done is kept: everything is unpacked into a staging folder
beside the target, checked, and only then renamed into place (a previous good copy stays until
the new one is complete). Several data sets from one archive download it once.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Literal
from urllib.parse import quote, urlparse

from debench.core.atomic import write_json_record
from debench.core.errors import UserError
from debench.data.archives import single_root, unpack
from debench.data.base import get_adapter
from debench.data.download import download
from debench.data.fetched import RECORD_NAME, FetchRecord, data_root, fetched_dir, read_fetch_record
from debench.data.loading import content_hash
from debench.task.config import GENERIC_ADAPTER, FetchConfig, HubSource, TaskConfig


@dataclass
class FetchTarget:
    """One data set to fetch, and the tasks that read it."""

    local_dir: str
    adapter: str
    fetch: FetchConfig
    hub: HubSource | None
    tasks: list[str] = field(default_factory=list)


@dataclass
class FetchOutcome:
    target: FetchTarget
    status: Literal["fetched", "present", "skipped"]
    path: Path
    record: FetchRecord | None = None
    reason: str = ""


def fetch_targets(tasks: Iterable[TaskConfig]) -> tuple[list[FetchTarget], list[str]]:
    """The data sets the tasks read (each once), and the names of tasks with nothing to fetch."""
    targets: dict[str, FetchTarget] = {}
    nothing: list[str] = []
    for task in tasks:
        ds = task.dataset
        if (
            ds.fetch is None
            or ds.local_dir is None
            or ds.adapter == GENERIC_ADAPTER
            or (ds.fetch.files and ds.hub is None)
        ):
            nothing.append(task.name)  # (a task that includes another and sets hub: null keeps its fetch.files)
            continue
        known = targets.get(ds.local_dir)
        if known is None:
            targets[ds.local_dir] = FetchTarget(ds.local_dir, ds.adapter, ds.fetch, ds.hub, [task.name])
        elif (known.fetch, known.adapter) != (ds.fetch, ds.adapter):
            raise UserError(
                f"tasks {known.tasks[0]} and {task.name} fetch {ds.local_dir} differently", field="dataset.fetch"
            )
        else:
            known.tasks.append(task.name)
    return list(targets.values()), nothing


def hub_file_url(hub: HubSource, filename: str) -> str:
    endpoint = os.environ.get("HF_ENDPOINT", "https://huggingface.co").rstrip("/")
    prefix = "datasets/" if hub.repo_type == "dataset" else ""
    return f"{endpoint}/{prefix}{hub.repo_id}/resolve/{quote(hub.revision or 'main', safe='')}/{quote(filename)}"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class Fetcher:
    """Fetches targets one by one; archives downloaded once per fetcher (use it as a context)."""

    def __init__(self, *, force: bool = False, allow_unverified: bool = False, progress: bool = True):
        self.force = force
        self.allow_unverified = allow_unverified
        self.progress = progress
        self._downloads: dict[str, tuple[Path, str]] = {}
        self._tmp: tempfile.TemporaryDirectory[str] | None = None

    def __enter__(self) -> Fetcher:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()

    def _download_once(self, url: str) -> tuple[Path, str]:
        """(file, sha256) of ``url``, downloaded on first use into a temporary folder."""
        if url not in self._downloads:
            if self._tmp is None:
                data_root().mkdir(parents=True, exist_ok=True)
                self._tmp = tempfile.TemporaryDirectory(prefix=".downloads-", dir=data_root())
            name = PurePosixPath(urlparse(url).path).name or "download"
            path = Path(self._tmp.name) / f"{len(self._downloads)}-{name}"
            try:
                self._downloads[url] = (path, download(url, path, progress=self.progress, label=name))
            except BaseException:
                path.unlink(missing_ok=True)
                raise
        return self._downloads[url]

    def fetch(self, target: FetchTarget) -> FetchOutcome:
        """Download, check and move into place; a copy already fetched with the content the task
        expects is kept as it is (unless ``force``)."""
        dest = fetched_dir(target.local_dir)
        cfg = target.fetch
        present = read_fetch_record(target.local_dir)
        if present is not None and not self.force and cfg.content_hash in (None, present.content_hash):
            return FetchOutcome(target, "present", dest, present, "already fetched (--force downloads it again)")
        if not cfg.verified_by and not self.allow_unverified:
            return FetchOutcome(
                target,
                "skipped",
                dest,
                None,
                "no checksum ships with the task for this data set; --allow-unverified downloads it anyway "
                "(its content hash is recorded)",
            )
        data_root().mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=data_root()))
        try:
            record = self._fill(target, staging)
            _move_into_place(staging / "root", dest)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
        return FetchOutcome(target, "fetched", dest, record)

    def _fill(self, target: FetchTarget, staging: Path) -> FetchRecord:
        """Download, check and unpack into ``staging/root``; the record of what was checked."""
        cfg = target.fetch
        checked: list[str] = []
        archive_sha = None
        file_sha: dict[str, str] = {}
        unpacked = staging / "unpacked"
        unpacked.mkdir()
        if cfg.url is not None:
            archive, archive_sha = self._download_once(cfg.url)
            _expect(cfg.sha256, archive_sha, f"the download of {cfg.url}", checked)
            if cfg.member is not None:
                unpack(archive, staging / "outer", member=cfg.member)
                archive = staging / "outer" / PurePosixPath(cfg.member).name
            unpack(archive, unpacked)
            data = single_root(unpacked)
            source = cfg.url
        else:
            assert target.hub is not None  # fetch_targets keeps no Hub files without a Hub repository
            if os.environ.get("HF_HUB_OFFLINE", "0").lower() in ("1", "true", "yes"):
                raise UserError(
                    f"HF_HUB_OFFLINE is set: cannot download {target.hub.repo_id}; copy the data "
                    "by hand and set DEBENCH_DATA_DIR"
                )
            for name, expected in cfg.files.items():
                path = unpacked / name
                path.parent.mkdir(parents=True, exist_ok=True)
                file_sha[name] = download(hub_file_url(target.hub, name), path, progress=self.progress, label=name)
                _expect(expected, file_sha[name], f"{target.hub.repo_id}/{name}", [])
            if all(cfg.files.values()):
                checked.append("sha256")
            data = unpacked
            source = f"{target.hub.repo_id}@{target.hub.revision or 'main'}"
        got = content_hash(data, get_adapter(target.adapter).patterns)
        if cfg.content_hash is not None:
            if got != cfg.content_hash:
                raise UserError(
                    f"{target.local_dir}: the unpacked files' content hash is {got}, the task expects "
                    f"{cfg.content_hash} (not the published data, or damaged); nothing was kept"
                )
            checked.append("content_hash")
        record = FetchRecord(
            local_dir=target.local_dir,
            source=source,
            archive_sha256=archive_sha,
            file_sha256=file_sha,
            content_hash=got,
            checked=checked,
            fetched_at=_now(),
        )
        write_json_record(data / RECORD_NAME, record)
        os.rename(data, staging / "root")
        return record


def _expect(expected: str | None, got: str, what: str, checked: list[str]) -> None:
    if expected is None:
        return
    if got != expected:
        raise UserError(
            f"sha256 of {what} is {got}, the task expects {expected} (not the published "
            "file, or damaged); nothing was kept"
        )
    checked.append("sha256")


def _move_into_place(ready: Path, dest: Path) -> None:
    """Rename the complete, checked folder to ``dest``; a previous copy is removed only after."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    old = None
    if dest.exists():
        old = dest.with_name(f".{dest.name}.old-{os.getpid()}")
        os.rename(dest, old)
    try:
        os.rename(ready, dest)
    except OSError as exc:
        if old is not None:
            os.rename(old, dest)
        raise UserError(f"cannot move the fetched data into place ({exc.strerror})", path=str(dest)) from None
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
