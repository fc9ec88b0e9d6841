"""``gguf/<file>``: any GGUF file, served in-process by the same embedded llama.cpp server as
``local/smollm2`` (slots, context size and the task's GBNF grammar as there).

* ``gguf/models/judge.Q4_K_M.gguf``: a path relative to the current folder;
* ``gguf//abs/path/judge.gguf``: an absolute path (the second ``/`` starts it);
* ``gguf/hf:<org>/<repo>/<file>.gguf``: a file of a Hugging Face Hub repository (``revision=`` pins
  a commit, branch or tag), downloaded once into the Hub cache and then served from it, offline too.

A file named by an absolute path (or through ``~`` or ``..``) is named ``gguf/<file name>#<first
12 hex digits of its sha256>`` everywhere debench writes (results, folder names, plots), so no
path of the user's machine leaves it; a relative path inside the current folder is kept as typed.

The identity names the file by its sha256 (``debench.models.weights``: read once per path, size
and modification time), so a renamed or re-quantized file is never mistaken for another.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from debench.core.errors import UserError
from debench.core.paths import outside_the_folder
from debench.models.llama_cpp_settings import DEFAULT_SETTINGS, LlamaCppSettings
from debench.models.local import LlamaCppModel
from debench.models.retry import RetryPolicy
from debench.models.weights import (
    HUB_PREFIX,
    check_gguf,
    file_sha256,
    hub_gguf,
    split_hub_file,
)


class GGUFModel(LlamaCppModel):
    kind = "gguf"

    def __init__(
        self,
        name: str,
        *,
        revision: str | None = None,
        settings: LlamaCppSettings = DEFAULT_SETTINGS,
        retry: RetryPolicy | None = None,
        generation: dict[str, Any] | None = None,
        seed: int = 0,
    ):
        ref = name.removeprefix("gguf/")
        weights: dict[str, Any]
        if ref.startswith(HUB_PREFIX):
            repo_id, filename = split_hub_file(ref)
            path = hub_gguf(ref, revision)
            weights = {"source": "hub", "repo_id": repo_id, "file": filename, "revision": revision}
        else:
            if revision is not None:
                raise UserError(
                    f"{name}: revision names a Hub commit, branch or tag; a local file has none "
                    "(gguf/hf:<org>/<repo>/<file> is a Hub file)"
                )
            path = Path(ref).expanduser()
            weights = {"source": "path", "file": path.name}
        check_gguf(path, name)
        weights["sha256"] = file_sha256(path)
        if weights["source"] == "path" and outside_the_folder(ref):
            name = f"gguf/{path.name}#{weights['sha256'][:12]}"
        super().__init__(
            name,
            gguf=path.resolve(),
            served_name=path.stem,
            settings=settings,
            retry=retry,
            generation=generation,
            seed=seed,
        )
        self.weights = weights

    def identity(self) -> dict[str, Any]:
        return self.llama_cpp_identity(self.weights)

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "n_parallel": self.settings.n_parallel, "n_threads": self.settings.n_threads}
