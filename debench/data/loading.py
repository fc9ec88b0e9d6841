"""Where a task's documents come from: a local copy, a fetched copy, the Hub, or the project's sample.

``auto`` resolution, first that applies:

1. ``--data-dir`` or ``$DEBENCH_DATA_DIR`` set -> ``<dir>/<local_dir>`` (it must be there);
2. a copy fetched by ``debench data fetch`` -> ``<cache root>/data/<local_dir>`` (its content hash is
   checked against the one recorded when it was fetched);
3. the Hugging Face Hub (tasks that name a Hub repository; ``HF_HUB_OFFLINE`` skips it);
4. the small sample shipped with debench, and the results say so (``dataset.is_sample: true``).

``local`` is 1, else 2; ``hub`` and ``sample`` are 3 and 4 alone. Generic tasks
(``adapter: generic``) read their ``dataset.file`` or ``dataset.hub`` instead (``debench.data.generic``).
"""

from __future__ import annotations

import hashlib
import logging
import os
from pathlib import Path
from typing import Literal

from debench.data.base import LoadedDataset, get_adapter
from debench.data.fetched import fetched_dir, read_fetch_record
from debench.data.generic import load_generic
from debench.errors import DataError, UserError
from debench.task import GENERIC_ADAPTER, TaskConfig

log = logging.getLogger(__name__)

DataSource = Literal["auto", "hub", "local", "sample"]
SAMPLES_DIR = Path(__file__).parent / "samples"


def content_hash(directory: Path, patterns: list[str]) -> str:
    """sha256 over the adapter's files (relative names and bytes), in sorted order."""
    h = hashlib.sha256()
    files: set[Path] = set()
    for pattern in patterns or ["**/*"]:
        files.update(p for p in directory.glob(pattern) if p.is_file())
    for path in sorted(files):
        h.update(str(path.relative_to(directory)).encode())
        h.update(b"\0")
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    return "sha256:" + h.hexdigest()


def _from_dir(task: TaskConfig, directory: Path, source: str, location: str, revision: str | None = None) -> LoadedDataset:
    adapter = get_adapter(task.dataset.adapter)
    if not directory.is_dir():
        raise DataError("data directory not found", path=str(directory))
    try:
        docs = adapter.load(directory, **task.dataset.options)
    except TypeError as exc:
        raise UserError(f"bad dataset.options for adapter '{adapter.name}': {exc}", field="dataset.options") from None
    if not docs:
        raise DataError("no documents found", path=str(directory))
    return LoadedDataset(
        docs=docs,
        source=source,
        location=location,
        revision=revision,
        content_hash=content_hash(directory, adapter.patterns),
        is_sample=source == "sample",
    )


def _local_dir(task: TaskConfig) -> str:
    assert task.dataset.local_dir is not None  # every published-format adapter has one (task validation)
    return task.dataset.local_dir


def load_local(task: TaskConfig, data_dir: Path) -> LoadedDataset:
    directory = Path(data_dir) / _local_dir(task)
    return _from_dir(task, directory, "local", str(directory))


def load_fetched(task: TaskConfig) -> LoadedDataset | None:
    """The copy ``debench data fetch`` put in the cache, or None when there is none."""
    record = read_fetch_record(_local_dir(task))
    if record is None:
        return None
    directory = fetched_dir(_local_dir(task))
    loaded = _from_dir(task, directory, "local", str(directory))
    if loaded.content_hash != record.content_hash:
        raise DataError(
            f"the fetched copy changed since it was fetched (content hash {loaded.content_hash}, recorded {record.content_hash}); "
            f"run `debench data fetch {task.name} --force`",
            path=str(directory),
        )
    return loaded


def load_sample(task: TaskConfig) -> LoadedDataset:
    if not task.dataset.sample:
        raise UserError(f"task '{task.name}' ships no sample data; set DEBENCH_DATA_DIR or go online")
    directory = SAMPLES_DIR / task.dataset.sample
    return _from_dir(task, directory, "sample", f"debench sample: {task.dataset.sample}")


def download_hub(task: TaskConfig) -> tuple[Path, str]:
    """Download the task's files from the Hub; returns (directory, resolved revision)."""
    hub = task.dataset.hub
    if hub is None:
        raise UserError(f"task '{task.name}' has no Hub source; set DEBENCH_DATA_DIR to a local copy")
    from huggingface_hub import snapshot_download

    path = Path(
        snapshot_download(
            repo_id=hub.repo_id,
            repo_type=hub.repo_type,
            revision=hub.revision,
            allow_patterns=hub.allow_patterns or None,
        )
    )
    # snapshot folders are named after the commit they hold
    return path, path.name


def load_hub(task: TaskConfig) -> LoadedDataset:
    try:
        directory, revision = download_hub(task)
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001 - offline, unreachable, unknown repo, no access
        assert task.dataset.hub is not None
        raise UserError(
            f"cannot download {task.dataset.hub.repo_id} from the Hugging Face Hub ({type(exc).__name__}); "
            f"set DEBENCH_DATA_DIR to a local copy (folder {task.dataset.local_dir}/) or use --data-source sample",
            field="--data-source",
        ) from None
    assert task.dataset.hub is not None
    return _from_dir(task, directory, "hub", task.dataset.hub.repo_id, revision)


def load_task_data(task: TaskConfig, source: DataSource = "auto", data_dir: str | Path | None = None) -> LoadedDataset:
    if task.dataset.adapter == GENERIC_ADAPTER:
        return load_generic(task.dataset, source)
    data_dir = data_dir or os.environ.get("DEBENCH_DATA_DIR") or None
    if data_dir and source in ("local", "auto"):
        return load_local(task, Path(data_dir))
    if source in ("local", "auto"):
        fetched = load_fetched(task)
        if fetched is not None:
            return fetched
        if source == "local":
            raise UserError(f"--data-source local needs --data-dir or DEBENCH_DATA_DIR, or a copy from `debench data fetch {task.name}`")
    if source == "sample":
        return load_sample(task)
    if source == "hub":
        return load_hub(task)
    # auto without a local or fetched copy: the Hub, else the sample
    if task.dataset.hub is not None and os.environ.get("HF_HUB_OFFLINE", "0").lower() not in ("1", "true", "yes"):
        try:
            return load_hub(task)
        except Exception as exc:  # noqa: BLE001 - any Hub failure (offline, missing repo) falls back
            log.warning("Hub data set %s unreachable (%s); using the bundled SAMPLE data", task.dataset.hub.repo_id, type(exc).__name__)
    return load_sample(task)
