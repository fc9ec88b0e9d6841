"""Model arguments: ``--model-args k=v,...`` and ``model@k=v;...``, typed and checked before any
request.

Two kinds of keys:

* **generation settings** (``temperature``, ``top_p``, ``top_k``, ``min_p``, ``max_tokens``,
  ``seed``, ``stop``, ``presence_penalty``, ``frequency_penalty``, ``repetition_penalty``):
  they override the task's settings in every request the model makes, in every command and
  client, and they are part of the model's identity (so of cache keys and run fingerprints);
* **client settings** (``timeout``, ``max_retries``, ``base_delay``, ``max_delay``,
  ``connect_grace``, ``client``,
  ``grammar``, ``context_window``, ``api_key``, and ``n_parallel`` / ``n_ctx`` / ``cache_prompt`` / ``n_threads``
  for the embedded llama.cpp models): how requests are made, never what is asked (the llama.cpp
  ones can change greedy answers, so they join the identity when they differ from the defaults);
* **server settings** (``revision`` for ``vllm/`` and Hub ``gguf/`` weights; the rest for the vLLM
  server debench starts: ``tensor_parallel_size``, ``data_parallel_size``, ``max_model_len``,
  ``gpu_memory_utilization``, ``dtype``, ``quantization``, ``server_args``, ``vllm_command``,
  ``startup_timeout``): which weights answer and how they are served. Those that decide the
  answers (``revision``, ``dtype``, ``quantization``, ``max_model_len``, ``server_args``) are part
  of the identity; the others only say where and how fast (``debench.models.vllm``).

A plug-in's model kind may declare keys of its own (its ``args``: a pydantic model, typed like
these): given for such a kind, they are kept apart (``ModelArgs.own``), checked against its
declaration by ``kind_args`` and recorded in its models' identity.

An unknown key (with a did-you-mean), a value of the wrong type or a key the model kind does not
use is a one-line error (exit code 2) before anything runs.
"""

from __future__ import annotations

import difflib
from dataclasses import fields
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from debench.core.errors import UserError
from debench.core.options import key_value_parts
from debench.core.redact import is_secret_name
from debench.models.llama_cpp_settings import LlamaCppSettings

MAX_WAIT_S = 86_400.0
"""The longest a client setting may wait, in seconds (a day): a request timeout, a retry delay, a
server's start-up. Past it, the clients' timers overflow (``timeout=inf`` failed every request)."""


class _Args(BaseModel):
    """Model arguments: unknown keys refused, numbers finite (``inf`` and ``nan`` are refused)."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class GenerationArgs(_Args):
    temperature: float | None = Field(default=None, ge=0, le=2)
    top_p: float | None = Field(default=None, gt=0, le=1)
    top_k: int | None = Field(default=None, ge=0)
    min_p: float | None = Field(default=None, ge=0, le=1)
    max_tokens: int | None = Field(default=None, ge=1)
    seed: int | None = None
    stop: list[str] | None = None
    presence_penalty: float | None = Field(default=None, ge=-2, le=2)
    frequency_penalty: float | None = Field(default=None, ge=-2, le=2)
    repetition_penalty: float | None = Field(default=None, gt=0)


class ClientArgs(_Args):
    timeout: float | None = Field(default=None, gt=0, le=MAX_WAIT_S)
    max_retries: int | None = Field(default=None, ge=0)
    base_delay: float | None = Field(default=None, ge=0, le=MAX_WAIT_S)
    max_delay: float | None = Field(default=None, gt=0, le=MAX_WAIT_S)
    connect_grace: float | None = Field(default=None, ge=0, le=3600)
    client: Literal["auto", "http", "litellm"] = "auto"
    grammar: bool = False
    context_window: int | None = Field(default=None, ge=1)
    api_key: str | None = None
    n_parallel: int | None = Field(default=None, ge=1)
    n_ctx: int | None = Field(default=None, ge=256)
    cache_prompt: bool | None = None
    n_threads: int | None = Field(default=None, ge=1, le=256)


_WORD = r"^[A-Za-z0-9_.:+-]+$"
"""A single token (a dtype, a quantization method, a revision): never a flag or a second argument."""


class ServerArgs(_Args):
    revision: str | None = Field(default=None, pattern=_WORD)
    tensor_parallel_size: int | None = Field(default=None, ge=1)
    data_parallel_size: int | None = Field(default=None, ge=1)
    max_model_len: int | None = Field(default=None, ge=1)
    gpu_memory_utilization: float | None = Field(default=None, gt=0, le=1)
    dtype: str | None = Field(default=None, pattern=_WORD)
    quantization: str | None = Field(default=None, pattern=_WORD)
    server_args: str | None = None
    vllm_command: str | None = None
    startup_timeout: float | None = Field(default=None, gt=0, le=MAX_WAIT_S)


GENERATION_KEYS = tuple(GenerationArgs.model_fields)
CLIENT_KEYS = tuple(ClientArgs.model_fields)
SERVER_KEYS = tuple(ServerArgs.model_fields)
RETRY_KEYS = ("timeout", "max_retries", "base_delay", "max_delay", "connect_grace")
LLAMA_CPP_KEYS = tuple(f.name for f in fields(LlamaCppSettings))
"""The embedded llama.cpp server's settings (``debench.models.llama_cpp_settings``)."""
VLLM_START_KEYS = tuple(k for k in SERVER_KEYS if k != "revision")
"""Settings of the vLLM server debench starts (meaningless for a server given with --api-base)."""

_TYPE_WORDS = {
    "float_parsing": "a number",
    "int_parsing": "a whole number",
    "bool_parsing": "true or false",
    "int_from_float": "a whole number",
    "finite_number": "a finite number",
}


class ModelArgs(BaseModel):
    """Validated model arguments, split by kind; ``given`` lists the keys the user set."""

    generation: GenerationArgs = Field(default_factory=GenerationArgs)
    client: ClientArgs = Field(default_factory=ClientArgs)
    server: ServerArgs = Field(default_factory=ServerArgs)
    own: dict[str, str] = Field(default_factory=dict)
    """Keys a plug-in's model kind declares itself (its ``args``), as given: checked by ``kind_args``."""

    @property
    def generation_overrides(self) -> dict[str, Any]:
        return self.generation.model_dump(exclude_none=True)

    def given(self) -> set[str]:
        return (
            set(self.generation.model_fields_set)
            | set(self.client.model_fields_set)
            | set(self.server.model_fields_set)
        )

    def restricted(self, keys: frozenset[str]) -> ModelArgs:
        """Only the given keys among ``keys`` (the others as if not given)."""
        return ModelArgs(
            generation=GenerationArgs(**self.generation.model_dump(exclude_unset=True, include=set(keys))),
            client=ClientArgs(**self.client.model_dump(exclude_unset=True, include=set(keys))),
            server=ServerArgs(**self.server.model_dump(exclude_unset=True, include=set(keys))),
        )

    def merged(self, other: ModelArgs) -> ModelArgs:
        """These arguments with ``other``'s given keys on top."""
        gen = {**self.generation.model_dump(exclude_unset=True), **other.generation.model_dump(exclude_unset=True)}
        cli = {**self.client.model_dump(exclude_unset=True), **other.client.model_dump(exclude_unset=True)}
        srv = {**self.server.model_dump(exclude_unset=True), **other.server.model_dump(exclude_unset=True)}
        return ModelArgs(
            generation=GenerationArgs(**gen),
            client=ClientArgs(**cli),
            server=ServerArgs(**srv),
            own=self.own | other.own,
        )


def _pairs(text: str, sep: str, where: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for part in key_value_parts(text, sep):
        if not part.text.strip():
            continue
        if part.value is None or not part.key:
            raise UserError(f"{where}: expected key=value, got '{part.text.strip()}'")
        if part.key in out:
            raise UserError(f"{where}: '{part.key}' is given twice")
        out[part.key] = part.value
    return out


def _unknown(key: str, where: str, own: frozenset[str] = frozenset()) -> UserError:
    known = [*GENERATION_KEYS, *CLIENT_KEYS, *SERVER_KEYS, *sorted(own)]
    close = difflib.get_close_matches(key, known, n=1)
    hint = f"; did you mean '{close[0]}'?" if close else f" (known: {', '.join(known)})"
    return UserError(f"{where}: unknown model argument '{key}'{hint}")


def _invalid(exc: ValidationError, raw: dict[str, str], where: str) -> UserError:
    """A value of the wrong type, in one line: ``--model-args: timeout=abc: expected a number``."""
    err = exc.errors()[0]
    key = str(err["loc"][-1]) if err.get("loc") else "?"
    value = raw.get(key, "")
    shown = "***" if is_secret_name(key) else value
    expected = _TYPE_WORDS.get(err.get("type", "")) or (
        "one word (letters, digits, _ . : + -)" if err.get("type") == "string_pattern_mismatch" else None
    )
    why = f"expected {expected}" if expected else err.get("msg", "invalid value").lower()
    return UserError(f"{where}: {key}={shown}: {why}")


def parse_model_args(
    text: str | None, where: str = "--model-args", sep: str = ",", own: frozenset[str] = frozenset()
) -> ModelArgs:
    """``key=value,key=value`` -> ``ModelArgs``; raises a one-line ``UserError``. ``own``: the keys
    the model kind declares itself (kept in ``ModelArgs.own``, checked by ``kind_args``)."""
    raw = _pairs(text or "", sep, where)
    gen: dict[str, Any] = {}
    cli: dict[str, Any] = {}
    srv: dict[str, Any] = {}
    kind: dict[str, str] = {}
    for key, value in raw.items():
        if key in GENERATION_KEYS:
            gen[key] = value.split("|") if key == "stop" else value
        elif key in CLIENT_KEYS:
            cli[key] = value
        elif key in SERVER_KEYS:
            srv[key] = value
        elif key in own:
            kind[key] = value
        else:
            raise _unknown(key, where, own)
    try:
        return ModelArgs(generation=GenerationArgs(**gen), client=ClientArgs(**cli), server=ServerArgs(**srv), own=kind)
    except ValidationError as exc:
        raise _invalid(exc, raw, where) from None


def split_model_spec(spec: str, own: frozenset[str] = frozenset()) -> tuple[str, ModelArgs]:
    """``openai/x@temperature=0.7;max_tokens=64`` -> (``openai/x``, its arguments).

    Keys after ``@`` are the same as ``--model-args``' (``;``-separated), except secrets: a key
    there would become part of the model's name in results and rankings. ``own``: the keys the
    model kind declares itself."""
    base, at, rest = spec.partition("@")
    base = base.strip()
    if not at:
        return base, ModelArgs()
    where = f"model '{base}@…'"
    for key in _pairs(rest, ";", where):
        if is_secret_name(key):
            raise UserError(f"{where}: give {key} with --api-key or the environment, not in the model name")
    return base, parse_model_args(rest, where, sep=";", own=own)


def kind_args(declared: type[BaseModel] | None, given: dict[str, str], name: str) -> BaseModel | None:
    """The keys a model kind declares itself (``declared``: its ``args`` model), typed and checked
    as the built-in keys are; None for a kind that declares none."""
    if declared is None:
        return None
    try:
        return declared(**given)
    except ValidationError as exc:
        raise _invalid(exc, given, f"model argument for {name}") from None


def check_kind(args: ModelArgs, keys: frozenset[str], name: str) -> None:
    """Keys a model kind would ignore (not among the ``keys`` its declaration takes,
    ``debench.models.kinds``) are refused: nothing is recorded that was not applied."""
    unused = sorted(args.given() - keys)
    if unused:
        raise UserError(f"model argument '{unused[0]}' does not apply to {name}")


def check_api_base(url: str) -> str:
    """An ``--api-base``: an http(s) URL with a host (and a port that exists), without its
    trailing slash; anything else is one line before any request is made."""
    from urllib.parse import urlsplit

    text = url.strip()
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - raises ValueError for a port out of range or not a number
        ok = parts.scheme in ("http", "https") and bool(parts.hostname) and not any(c.isspace() for c in text)
    except ValueError:
        ok = False
    if not ok:
        raise UserError(
            f"'{url}' is not a server URL (expected http://host:port/v1 or https://host/v1)", field="--api-base"
        )
    return text.rstrip("/")
