"""The normalized document every adapter produces, and the adapter registry."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from debench.core.registries import Registry


class Speech(BaseModel):
    """One speech of a debate (or the single speech of a speech-rating item)."""

    model_config = ConfigDict(frozen=True)

    speaker: str
    """Who speaks: a debater name, a BP role such as ``pm``, or a team such as ``OG``."""
    side: str | None = None
    """The side the speaker belongs to: ``pro``/``con`` (1v1), ``OG``/``OO``/``CG``/``CO`` (BP)."""
    text: str


class Doc(BaseModel):
    """One evaluation document, the same shape for every task.

    ``fields`` feed the prompt templates, ``target`` is the gold value the metrics use,
    ``label`` is a categorical gold label (used by majority baselines) when the task has one.
    """

    model_config = ConfigDict(frozen=True)

    doc_id: str
    fields: dict[str, Any] = Field(default_factory=dict)
    speeches: list[Speech] = Field(default_factory=list)
    target: Any = None
    label: Any = None
    meta: dict[str, Any] = Field(default_factory=dict)


class LoadedDataset(BaseModel):
    """Documents plus where they came from."""

    docs: list[Doc]
    source: str  # "hub" | "local" | "sample"
    location: str  # hub id or file path
    revision: str | None = None
    content_hash: str
    is_sample: bool = False


LocalLoader = Callable[..., list[Doc]]
"""``fn(directory, **options) -> list[Doc]``; options come from the task file (``dataset.options``)."""


class Adapter(BaseModel):
    """A named adapter: how to read one published data format from a directory.

    Hub data sets are downloaded (``huggingface_hub.snapshot_download``) to a directory in the
    same published format, so one loader serves the Hub copy, a local copy and the sample.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    name: str
    load: Any  # LocalLoader
    patterns: list[str] = Field(default_factory=list)  # glob patterns of the files it reads (for hashing)
    speech_label: Any = None
    """``fn(index, speech) -> header`` the adapter's ``transcript`` field uses; lets a transformed
    document (a bias probe) rebuild its transcript the same way. None: the adapter has none."""


ADAPTERS: Registry[Adapter] = Registry(
    "data adapter",
    {
        "debench.data.ibm_speeches": ["ibm_speeches"],
        "debench.data.debateart": ["debateart"],
        "debench.data.bp_competition": ["bp_competition"],
        "debench.data.debatebench": ["debatebench"],
        "debench.data.generic": ["generic"],
    },
    field="dataset.adapter",
)
"""Listed by module, so a task file's adapter is checked when it is loaded, importing nothing."""


def register_adapter(
    name: str, *, patterns: Iterable[str] = (), speech_label: Callable[[int, Speech], str] | None = None
) -> Callable[[LocalLoader], LocalLoader]:
    """Decorator registering ``fn(directory, **options) -> list[Doc]`` as adapter ``name``.

    ``speech_label``: the header function its ``transcript`` field is formatted with, if any."""

    def deco(fn: LocalLoader) -> LocalLoader:
        ADAPTERS.add(name, Adapter(name=name, load=fn, patterns=list(patterns), speech_label=speech_label))
        return fn

    return deco


get_adapter = ADAPTERS.get
adapter_names = ADAPTERS.names
