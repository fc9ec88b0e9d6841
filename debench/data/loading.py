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
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from pathlib import Path
from typing import NamedTuple

from pydantic import PrivateAttr

from debench.core.errors import DataError, UserError
from debench.core.options import DataSource
from debench.core.paths import portable_path
from debench.data.base import Doc, LoadedDataset, get_adapter
from debench.data.ibm_speeches import iter_ibm_speeches, run_order
from debench.task.config import GENERIC_ADAPTER, TaskConfig

log = logging.getLogger(__name__)

SAMPLES_DIR = Path(__file__).parent / "samples"


def _files(directory: Path, patterns: list[str]) -> list[Path]:
    """The adapter's files in ``directory`` (every file when it names no pattern), sorted."""
    files: set[Path] = set()
    for pattern in patterns or ["**/*"]:
        files.update(p for p in directory.glob(pattern) if p.is_file())
    return sorted(files)


def content_hash(directory: Path, patterns: list[str]) -> str:
    """sha256 over the adapter's files (relative names and bytes), in sorted order."""
    return _hash_files(directory, _files(directory, patterns))


def _hash_files(directory: Path, files: list[Path]) -> str:
    """sha256 over ``files`` of ``directory`` (relative names and bytes), in their order."""
    h = hashlib.sha256()
    for path in files:
        h.update(str(path.relative_to(directory)).encode())
        h.update(b"\0")
        with open(path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    return "sha256:" + h.hexdigest()


def _from_dir(
    task: TaskConfig, directory: Path, source: str, location: str, revision: str | None = None
) -> LoadedDataset:
    adapter = get_adapter(task.dataset.adapter)
    if not directory.is_dir():
        raise DataError("data directory not found", path=str(directory))
    files = _files(directory, adapter.patterns)  # globbed once: for the size and the content hash
    stream = STREAMS.get(adapter.name) if _STREAMING.get() and not task.dataset.options else None
    if stream is not None and sum(p.stat().st_size for p in files) < STREAM_MIN_BYTES:
        stream = None  # small enough to hold: read once, whole
    try:
        docs = stream.gold(directory) if stream is not None else adapter.load(directory, **task.dataset.options)
    except TypeError as exc:
        raise UserError(f"bad dataset.options for adapter '{adapter.name}': {exc}", field="dataset.options") from None
    if not docs:
        raise DataError("no documents found", path=str(directory))
    dataset = (StreamedDataset if stream is not None else LoadedDataset)(
        docs=docs,
        source=source,
        location=location,
        revision=revision,
        content_hash=_hash_files(directory, files),
        is_sample=source == "sample",
    )
    if isinstance(dataset, StreamedDataset):
        dataset.read_from(stream, directory)
    return dataset


def _local_dir(task: TaskConfig) -> str:
    assert task.dataset.local_dir is not None  # every published-format adapter has one (task validation)
    return task.dataset.local_dir


def load_local(task: TaskConfig, data_dir: Path) -> LoadedDataset:
    directory = Path(data_dir) / _local_dir(task)
    return _from_dir(task, directory, "local", portable_path(str(directory)))


def load_fetched(task: TaskConfig) -> LoadedDataset | None:
    """The copy ``debench data fetch`` put in the cache, or None when there is none."""
    from debench.data.fetched import fetched_dir, read_fetch_record  # a run given its data folder needs neither

    record = read_fetch_record(_local_dir(task))
    if record is None:
        return None
    directory = fetched_dir(_local_dir(task))
    loaded = _from_dir(task, directory, "local", portable_path(str(directory)))
    if loaded.content_hash != record.content_hash:
        raise DataError(
            f"the fetched copy changed since it was fetched (content hash {loaded.content_hash}, recorded "
            f"{record.content_hash}); run `debench data fetch {task.name} --force`",
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
        from debench.data.generic import load_generic  # imported for a generic task only

        return load_generic(task.dataset, source)
    data_dir = data_dir or os.environ.get("DEBENCH_DATA_DIR") or None
    if data_dir and source in ("local", "auto"):
        return load_local(task, Path(data_dir))
    if source in ("local", "auto"):
        fetched = load_fetched(task)
        if fetched is not None:
            return fetched
        if source == "local":
            raise UserError(
                "--data-source local needs --data-dir or DEBENCH_DATA_DIR, or a copy from "
                f"`debench data fetch {task.name}`"
            )
    if source == "sample":
        return load_sample(task)
    if source == "hub":
        return load_hub(task)
    # auto without a local or fetched copy: the Hub, else the sample
    if task.dataset.hub is not None and os.environ.get("HF_HUB_OFFLINE", "0").lower() not in ("1", "true", "yes"):
        try:
            return load_hub(task)
        except Exception as exc:  # noqa: BLE001 - any Hub failure (offline, missing repo) falls back
            log.warning(
                "Hub data set %s unreachable (%s); using the bundled SAMPLE data",
                task.dataset.hub.repo_id,
                type(exc).__name__,
            )
    return load_sample(task)


# -- streaming: a run reads the documents' text as it goes (``debench eval``) --------------------


class Stream(NamedTuple):
    """How an adapter's data set is read one document at a time."""

    read: Callable[..., Iterator[Doc]]
    """``read(directory, text=True)``: the complete documents, in file order, one at a time; with
    ``text=False`` their gold views: no fields, no speeches (what scoring, reports and the results
    need), built without the text."""
    order: Callable[[list[Doc], Path], list[Doc]]
    """The adapter's run order of a list of documents (its ids checked)."""

    def gold(self, directory: Path) -> list[Doc]:
        """Every document in run order, without its text (its gold view)."""
        return self.order(list(self.read(directory, text=False)), directory)


STREAMS: dict[str, Stream] = {"ibm_speeches": Stream(iter_ibm_speeches, run_order)}
"""Adapters whose data sets can be streamed (the large ones); the others are read whole."""

STREAM_MIN_BYTES = 8 << 20
"""A streamable data set whose files are smaller than this together is read whole by a run too:
holding its text costs a few MB, and the run does not read and parse its file a second time (the
631 real IBM speeches, 2.5 MB: ~25 ms of CPU); a larger one is streamed."""

_STREAMING: ContextVar[bool] = ContextVar("debench_streaming", default=False)


class StreamedDataset(LoadedDataset):
    """A data set whose ``docs`` are gold views; ``full()`` reads the complete ones again."""

    _stream: Stream | None = PrivateAttr(default=None)
    _directory: Path | None = PrivateAttr(default=None)

    def read_from(self, stream: Stream | None, directory: Path) -> None:
        self._stream, self._directory = stream, directory

    def full(self) -> Iterator[Doc]:
        assert self._stream is not None and self._directory is not None
        return self._stream.read(self._directory)


def run_documents(
    task: TaskConfig, source: DataSource, data_dir: str | Path | None, limit: int | None
) -> tuple[LoadedDataset, Documents]:
    """The data set and the documents of a run, for a runner that reads them as it goes: a
    streamable data set (``STREAMS``) of ``STREAM_MIN_BYTES`` or more keeps only text-free gold views
    in memory and reads each document's text from its file when the runner takes it."""
    token = _STREAMING.set(True)
    try:
        dataset = load_task_data(task, source, data_dir)
    finally:
        _STREAMING.reset(token)
    gold = dataset.docs[:limit] if limit is not None else list(dataset.docs)
    if not isinstance(dataset, StreamedDataset):
        return dataset, Documents(gold)
    wanted = {d.doc_id for d in gold}
    return dataset, Documents(gold, lambda: (d for d in dataset.full() if d.doc_id in wanted))


class Documents:
    """The documents of one run, for a runner that reads them as it goes.

    ``gold`` holds every document of the run in run order, as scoring, the results' order and a
    baseline's preparation need them; iterating gives the complete documents one at a time (again
    on every iteration). Built from a list, both are that list; a data set read from its file as
    the run goes keeps only text-free ``gold`` documents in memory (``debench.run.pipeline``)."""

    def __init__(self, gold: list[Doc], full: Callable[[], Iterator[Doc]] | None = None):
        self.gold = gold
        self._full = full

    def __iter__(self) -> Iterator[Doc]:
        return self._full() if self._full is not None else iter(self.gold)

    def __len__(self) -> int:
        return len(self.gold)
