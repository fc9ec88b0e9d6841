"""The endpoints the leaderboard trusts to run a submitted model: ``leaderboard/trusted_endpoints.yaml``.

The file is data (``yaml.safe_load``, checked against
``debench/schema/trusted_endpoints.schema.json`` and the models below). Two kinds of entry:

* ``providers``: a provider's public API reached through litellm with the maintainers' key (a CI
  secret named by ``key_env``). ``models`` are litellm model strings or ``fnmatch`` patterns
  (``gpt-4o*``, ``anthropic/claude-*``); ``api_bases`` the provider's public URLs (``https://``,
  never a loopback, private or link-local host). A submission's identity matches when its name
  matches a pattern and it names no ``api_base`` (litellm then calls the provider's public API) or
  only URLs of ``api_bases``.
* ``served``: a model the refresh job serves itself, one entry per model string (today the
  embedded ``local/smollm2``; a checkpoint kind such as ``gguf/<file>`` or ``vllm/<model>`` is one
  more entry). It matches an identity of that name that names no ``api_base``.

An ``api_base`` on a loopback, private, link-local or otherwise non-public host can never be
verified, whatever the file says: such an endpoint is the submitter's own. Anything the file does
not list cannot be verified either. ``trust`` says which entry verifies an identity (an
ensemble: every member that is not a baseline must be trusted), or why none can.
"""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from debench.core.errors import UserError
from debench.core.json_schema import document_schema, schema_path
from debench.leaderboard.maintainer_files import load_maintainer_file

TRUSTED_SCHEMA_VERSION = "1.0"
TRUSTED_SCHEMA_PATH = schema_path("trusted_endpoints.schema.json")
DEFAULT_TRUSTED = Path("leaderboard") / "trusted_endpoints.yaml"

_PRIVATE_SUFFIXES = (".localhost", ".local", ".internal", ".lan", ".home.arpa", ".intranet", ".corp")


def non_public_reason(url: str) -> str | None:
    """Why ``url`` is not a public endpoint (loopback, private, link-local, …), or None."""
    try:
        parts = urlsplit(url.strip())
        host = (parts.hostname or "").lower().rstrip(".")
    except ValueError:
        return "is not a URL"
    if not host:
        return "names no host"
    if host == "localhost" or host.endswith(_PRIVATE_SUFFIXES):
        return "is a local host name"
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return None if "." in host else "is a single-label (local network) host name"
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    for test, what in (
        (ip.is_loopback, "is a loopback address"),
        (ip.is_unspecified, "is an unspecified address"),
        (ip.is_link_local, "is a link-local address"),
        (ip.is_private, "is a private address"),
        (ip.is_multicast, "is a multicast address"),
        (ip.is_reserved, "is a reserved address"),
    ):
        if test:
            return what
    return None


def _same_url(a: str, b: str) -> bool:
    return a.strip().rstrip("/") == b.strip().rstrip("/")


class ProviderEndpoint(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$", description="short name the job's runs and the page refer to")
    description: str
    models: list[str] = Field(
        min_length=1, description="litellm model strings or fnmatch patterns (gpt-4o*, anthropic/claude-*)"
    )
    api_bases: list[str] = Field(min_length=1, description="the provider's public base URLs (https)")
    key_env: str = Field(
        pattern=r"^[A-Z][A-Z0-9_]*$", description="environment variable holding the maintainers' key (a CI secret)"
    )

    @field_validator("api_bases")
    @classmethod
    def _public(cls, urls: list[str]) -> list[str]:
        for url in urls:
            if not url.startswith("https://"):
                raise ValueError(f"{url!r}: a provider's public API is reached over https://")
            why = non_public_reason(url)
            if why:
                raise ValueError(f"{url!r} {why}: only public provider endpoints can be trusted")
        return urls


class ServedModel(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$", description="short name the job's runs and the page refer to")
    description: str
    model: str = Field(
        pattern=r"^[A-Za-z0-9][A-Za-z0-9._/:-]*$",
        description="the model string the job serves itself, e.g. local/smollm2",
    )


class TrustedEndpoints(BaseModel):
    model_config = ConfigDict(extra="forbid")
    schema_version: Literal["1.0"] = "1.0"
    providers: list[ProviderEndpoint] = Field(default_factory=list)
    served: list[ServedModel] = Field(default_factory=list)

    def ids(self) -> list[str]:
        return [e.id for e in self.providers] + [e.id for e in self.served]


def trusted_json_schema() -> dict[str, Any]:
    return document_schema(
        TrustedEndpoints,
        slug="trusted-endpoints",
        version=TRUSTED_SCHEMA_VERSION,
        title="debench leaderboard: trusted endpoints",
    )


def load_trusted(path: Path) -> TrustedEndpoints:
    """The trusted endpoints, checked; a bad file is a one-line ``UserError`` naming the field."""
    trusted = load_maintainer_file(path, "trusted-endpoints file", TRUSTED_SCHEMA_PATH, TrustedEndpoints)
    ids = trusted.ids()
    dup = next((i for i in ids if ids.count(i) > 1), None)
    if dup:
        raise UserError(f"the id '{dup}' is used twice", path=str(path), field="id")
    return trusted


@dataclass(frozen=True)
class Endpoint:
    """Where the leaderboard runs one model: an allowlist entry, as it applies to an identity."""

    id: str
    kind: Literal["provider", "served"]
    model: str
    api_bases: tuple[str, ...] = ()
    key_env: str | None = None

    def api_key(self) -> str | None:
        """The maintainers' key (provider entries), from the environment; None when not set."""
        return os.environ.get(self.key_env) if self.key_env else None

    def describe(self) -> str:
        where = (
            ", ".join(self.api_bases)
            if self.api_bases
            else ("its public API through litellm" if self.kind == "provider" else "served by the leaderboard's job")
        )
        return f"{self.id}: {self.model} at {where}"


@dataclass(frozen=True)
class Trust:
    endpoints: tuple[Endpoint, ...]
    """One per model the identity names that is not a baseline (an ensemble's members, in order)."""
    reason: str | None
    """Why the identity cannot be verified (None when every model is trusted)."""

    @property
    def ok(self) -> bool:
        return self.reason is None


def _one(identity: dict[str, Any], trusted: TrustedEndpoints, source: str) -> Endpoint | str:
    name = str(identity.get("name", ""))
    bases = identity.get("api_base") or []
    if isinstance(bases, str):
        bases = [bases]
    for url in bases:
        why = non_public_reason(str(url))
        if why:
            return f"its api_base {url} {why}: an endpoint the submitter controls can never verify an entry"
    for s in trusted.served:
        if s.model == name and not bases:
            return Endpoint(id=s.id, kind="served", model=name)
    for p in trusted.providers:
        if any(fnmatchcase(name, pattern) for pattern in p.models):
            if all(any(_same_url(str(u), b) for b in p.api_bases) for u in bases):
                chosen = tuple(b for b in p.api_bases if any(_same_url(str(u), b) for u in bases))
                return Endpoint(id=p.id, kind="provider", model=name, api_bases=chosen, key_env=p.key_env)
            return f"its api_base {', '.join(map(str, bases))} is not one of {p.id}'s public endpoints in {source}"
    if bases:
        return f"{name} at {', '.join(map(str, bases))} is not an endpoint listed in {source}"
    return f"{name} is not a model the leaderboard can re-judge (not listed in {source})"


def trust(identity: dict[str, Any], trusted: TrustedEndpoints, source: str = str(DEFAULT_TRUSTED)) -> Trust:
    """Which trusted endpoints would run this identity's models, or why it cannot be verified."""
    members = identity.get("members")
    models = members if isinstance(members, list) else [identity]
    found: list[Endpoint] = []
    for m in models:
        if not isinstance(m, dict):
            return Trust((), "its identity is malformed")
        if str(m.get("name", "")).startswith("baseline/"):
            continue
        one = _one(m, trusted, source)
        if isinstance(one, str):
            prefix = f"member {m.get('name')}: " if members else ""
            return Trust((), prefix + one)
        found.append(one)
    if not found:
        return Trust((), "a baseline is re-run, not reproduced")
    return Trust(tuple(found), None)
