"""The embedded llama.cpp server's settings (``local/``, ``gguf/``): one typed value, carried from
the model arguments (``--model-args n_parallel=2,...``, ``debench.models.args``) to the model
(``debench.models.local``), its identity and the server it starts (``debench.models.local_server``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

DEFAULT_N_PARALLEL = 1
"""llama.cpp slots (and requests in flight). Measured by ``python -m benchmarks`` on 2 cores with
real IBM speeches: 4 slots at concurrency 4 judge no faster than 1 slot at concurrency 1 (prompt
processing, ~1,000 tokens a speech, is compute-bound and already batched within one request;
parallel slots only batch the few generated tokens) and cost 4x the KV-cache memory, so 1 stays
the default; ``--model-args n_parallel=4`` (with ``--concurrency 4``) is there for more cores."""

DEFAULT_THREADS = 2
"""llama.cpp's CPU threads, whatever the machine: the thread count changes the answers (measured on
real IBM speeches: 1 thread and 2 gave different chain-of-thought answers on 27 of 30,
docs/models.md), so it is fixed, not one per core, and a run repeats on any machine. 2 is what the
committed runs were made with. ``n_threads`` (a model argument, then in the identity) sets another."""


@dataclass(frozen=True)
class LlamaCppSettings:
    """How the embedded llama.cpp server answers. Each can change a greedy answer: parallel slots
    batch decoding, the context size decides what fits, the prompt cache makes an answer depend on
    the request before, and the thread count changes the sums an answer comes from; so each is in
    the model's identity when it differs from its default (``identity``). The field names are the
    ``--model-args`` keys (``debench.models.args.LLAMA_CPP_KEYS``)."""

    n_parallel: int = DEFAULT_N_PARALLEL
    """Slots, each a request in flight; ``n_ctx`` is split evenly across them."""
    n_ctx: int | None = None
    """Tokens of context of the whole server (None: ``local_server.SLOT_CONTEXT`` a slot)."""
    cache_prompt: bool = False
    """Reuse the previous prompt's cached prefix: a setting of each request, not of the server."""
    n_threads: int = DEFAULT_THREADS
    """CPU threads (``DEFAULT_THREADS`` on every machine)."""

    def identity(self) -> dict[str, Any]:
        """The settings that differ from their defaults, in field order: the model identity's share."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) != f.default}


DEFAULT_SETTINGS = LlamaCppSettings()
