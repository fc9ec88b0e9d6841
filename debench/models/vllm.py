"""``vllm/<model or path>``: a vLLM server debench starts, uses and stops, called through the direct
HTTP client (``openai_http``).

debench runs ``vllm serve <weights> --served-model-name <model> --host 127.0.0.1 --port <free>``
plus the flags of the model arguments (``tensor_parallel_size`` -> ``--tensor-parallel-size``,
``data_parallel_size``, ``max_model_len``, ``gpu_memory_utilization``, ``dtype``, ``quantization``,
``revision``; ``server_args`` adds any other flags, shell-quoted), with the ``vllm`` on PATH or the
command ``vllm_command`` names. The server's life is ``debench.models.managed_server``'s.

``--api-base URL`` with a ``vllm/`` model means the server already runs: nothing is started and
the server settings are refused (they would not be applied).

Weights: ``<model>`` is a local file or folder when that path exists (relative to the current
folder, or absolute: ``vllm//abs/path``), else a Hugging Face Hub repository id (``org/name``).

Identity (cache keys, run fingerprints, the leaderboard): the weights — a local path by the
content digest of its files (``debench.models.weights``), a Hub repository by its id and
``revision`` (without one, whatever the default branch holds when the server starts: pin a commit
for a run others can reproduce) — and the settings that change answers: ``dtype``,
``quantization``, ``max_model_len`` (what fits) and ``server_args`` (as given). Not the port, nor
the parallelism and memory settings (``tensor_parallel_size``, ``data_parallel_size``,
``gpu_memory_utilization``), which say how fast and where, so another machine can reproduce a run
with its own GPUs; results record them under ``model.serving``.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path
from typing import Any

from debench.core.errors import UserError
from debench.core.paths import outside_the_folder
from debench.models.args import VLLM_START_KEYS, ServerArgs
from debench.models.base import ModelResponse, Request
from debench.models.managed_server import ManagedServer, ServerSpec, shared_server
from debench.models.openai_http import OpenAIHTTPModel
from debench.models.retry import RetryPolicy

FLAGS = {
    "revision": "--revision",
    "tensor_parallel_size": "--tensor-parallel-size",
    "data_parallel_size": "--data-parallel-size",
    "max_model_len": "--max-model-len",
    "gpu_memory_utilization": "--gpu-memory-utilization",
    "dtype": "--dtype",
    "quantization": "--quantization",
}
"""Model arguments -> ``vllm serve`` flags (vLLM's engine arguments, as its documentation names them)."""
IDENTITY_SETTINGS = ("dtype", "quantization", "max_model_len")
SERVING_SETTINGS = ("tensor_parallel_size", "data_parallel_size", "gpu_memory_utilization")
OWN_FLAGS = ("--host", "--port", "--served-model-name", "--model")
DEFAULT_STARTUP_TIMEOUT = 1200.0
"""Seconds a started server has to answer: loading (and on first use downloading) large weights is slow."""
CONCURRENCY_PER_REPLICA = 32
"""Requests in flight per data-parallel replica by default (vLLM batches them; ``--concurrency``
sets another number). A starting point, not measured here: this machine has no GPU."""
_HUB_ID = re.compile(r"^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)?$")


def _server_args(text: str | None, label: str) -> tuple[str, ...]:
    try:
        args = tuple(shlex.split(text or ""))
    except ValueError as exc:
        raise UserError(f"{label}: server_args: {exc}") from None
    for arg in args:
        flag = arg.split("=", 1)[0]
        if flag in OWN_FLAGS:
            raise UserError(f"{label}: server_args: debench sets {flag} itself")
        for key, own in FLAGS.items():
            if flag == own:
                raise UserError(f"{label}: server_args: give {flag} as the model argument {key}=")
    return args


def _weights(ref: str, revision: str | None, label: str) -> tuple[dict[str, Any], str]:
    """(the identity's ``weights``, what ``vllm serve`` is given)."""
    path = Path(ref).expanduser()
    if path.exists():
        if revision is not None:
            raise UserError(f"{label}: revision names a Hub commit, branch or tag; {ref} is a local path")
        from debench.models.weights import weights_digest

        digest, n_files = weights_digest(path)
        return {"source": "path", "sha256": digest, "files": n_files}, str(path.resolve())
    looks_like_a_path = ref.startswith((".", "~", "/")) or any(part in (".", "..", "") for part in ref.split("/"))
    if looks_like_a_path or not _HUB_ID.match(ref):
        raise UserError(f"{label}: no such file or folder: {ref} (a Hugging Face Hub model is vllm/<org>/<name>)")
    return {"source": "hub", "repo_id": ref, "revision": revision}, ref


class VLLMModel(OpenAIHTTPModel):
    kind = "vllm"

    def __init__(
        self,
        name: str,
        *,
        server: ServerArgs,
        api_base: str | None = None,
        api_key: str | None = None,
        retry: RetryPolicy | None = None,
        context_window: int | None = None,
        generation: dict[str, Any] | None = None,
        seed: int = 0,
    ):
        ref = name.removeprefix("vllm/")
        if not ref:
            raise UserError("'vllm/' names no model: vllm/<org>/<name> or vllm/<path>")
        self.managed = api_base is None
        if not self.managed:
            given = sorted(k for k in server.model_fields_set if k in (*VLLM_START_KEYS, "revision"))
            if given:
                raise UserError(
                    f"{name} with --api-base uses a server that already runs: model argument '{given[0]}' cannot "
                    "change it (drop --api-base to let debench start one)"
                )
        super().__init__(
            name,
            api_base=api_base or "http://127.0.0.1:0/v1",
            served_name=ref,
            api_key=api_key,
            retry=retry,
            send_grammar=False,
            context_window=context_window,
            generation=generation,
            seed=seed,
        )
        self.settings = server
        self.default_concurrency = CONCURRENCY_PER_REPLICA * (server.data_parallel_size or 1)
        self.spec: ServerSpec | None = None
        self._server: ManagedServer | None = None
        self.weights: dict[str, Any] = {}
        self.server_args: tuple[str, ...] = ()
        if self.managed:
            self.server_args = _server_args(server.server_args, name)
            self.weights, served = _weights(ref, server.revision, name)
            if self.weights["source"] == "path" and outside_the_folder(
                ref
            ):  # no folder of this machine in what debench writes
                self.base_name = self.name = f"vllm/{Path(ref).name}#{self.weights['sha256'][:12]}"
            command = tuple(shlex.split(server.vllm_command or "vllm"))
            if not command:
                raise UserError(f"{name}: vllm_command is empty")
            flags = [
                f
                for key, flag in FLAGS.items()
                if getattr(server, key) is not None
                for f in (flag, str(getattr(server, key)))
            ]
            self.spec = ServerSpec(
                argv=(*command, "serve", served, "--served-model-name", ref, *flags, *self.server_args),
                served_name=ref,
                label=name,
                startup_timeout=server.startup_timeout or DEFAULT_STARTUP_TIMEOUT,
            )

    def identity(self) -> dict[str, Any]:
        if not self.managed:
            return super().identity()  # a server of the user's: named by its address, as openai/<name>
        ident: dict[str, Any] = {"name": self.base_name, "weights": self.weights, "send_grammar": False}
        settings = {k: getattr(self.settings, k) for k in IDENTITY_SETTINGS if getattr(self.settings, k) is not None}
        if self.server_args:
            settings["server_args"] = list(self.server_args)
        if settings:
            ident["server"] = settings
        return self.with_generation(ident)

    def describe(self) -> dict[str, Any]:
        serving: dict[str, Any] = {"started_by_debench": self.managed}
        serving.update(
            {k: getattr(self.settings, k) for k in SERVING_SETTINGS if getattr(self.settings, k) is not None}
        )
        return {**super().describe(), "serving": serving}

    def check_ready(self) -> None:
        """The command that starts the server is there (one line saying what to do, if not)."""
        if self.spec is None:
            return
        if shutil.which(self.spec.argv[0]) is None:
            raise UserError(
                f"{self.name}: '{self.spec.argv[0]}' is not on PATH: install vLLM (on a machine with a GPU), "
                "name the command with --model-args vllm_command=PATH, or give a running server with --api-base URL"
            )

    def batch_api(self) -> Any:
        raise UserError(
            f"{self.name}: vLLM's server has no batch API; drop --batch (requests to a "
            "local server cost nothing extra)",
            field="--batch",
        )

    async def generate(self, request: Request) -> ModelResponse:
        if self.spec is not None:
            self._server = shared_server(self.spec)
            base = await self._server.ensure_ready()
            if base != self.api_base:
                self.api_base, self.url = base, base + "/chat/completions"
        return await super().generate(request)

    async def _post(self, body: bytes) -> dict[str, Any]:
        try:
            return await super()._post(body)
        except Exception:
            if self._server is not None and self._server.exited():  # not worth retrying: it is gone
                raise self._server.died_error() from None
            raise
