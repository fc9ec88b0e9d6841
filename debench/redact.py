"""Secrets never reach a file: the one redaction step for everything debench records.

What counts as a secret:

* the value of ``--api-key`` (``--api-key X`` and ``--api-key=X``), and of any option whose name
  contains key, token, secret or password;
* the value of any model argument whose name contains key, token, secret, password or
  authorization (``--model-args api_key=…``, ``model@api_key=…``, headers in ``extra_headers``),
  except the generation settings that merely contain such a word (``max_tokens``);
* the values of provider key variables found in the environment (``OPENAI_API_KEY``,
  ``HF_TOKEN``, ``*_API_KEY``, ``*_TOKEN``, ``*_SECRET*``, ``*_PASSWORD``, ``*_ACCESS_KEY*``),
  wherever they appear (an error message that echoes a key included).

Each is replaced by ``"***"``. ``find_key_shaped`` spots strings shaped like a provider's key
(``sk-…``, ``sk-ant-…``, ``hf_…``, ``AIza…``, ``AKIA…``, …) so that ``debench validate`` can refuse
a submission that carries one.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

MASK = "***"

_SECRET_WORDS = re.compile(r"key|token|secret|password|passwd|authorization|credential", re.IGNORECASE)
NOT_SECRET_NAMES = frozenset({"max_tokens", "max_completion_tokens", "max_new_tokens", "top_k", "n_tokens"})
"""Setting names that contain one of the words but hold no secret."""

_ENV_SECRET = re.compile(r"(?:^|_)(?:API_?KEY|TOKEN|SECRET|PASSWORD|ACCESS_KEY)(?:_|$)|^DEBENCH_API_KEY$", re.IGNORECASE)
_MIN_SECRET_LEN = 8
"""Shorter environment values ("1", "true") are too common to be told apart from ordinary text."""

KEY_SHAPES: dict[str, re.Pattern[str]] = {
    "Anthropic": re.compile(r"\bsk-ant-[A-Za-z0-9_\-]{20,}"),
    "OpenAI": re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"),
    "Hugging Face": re.compile(r"\bhf_[A-Za-z0-9]{30,}"),
    "Google": re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"),
    "AWS": re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "Groq": re.compile(r"\bgsk_[A-Za-z0-9]{40,}"),
    "xAI": re.compile(r"\bxai-[A-Za-z0-9]{40,}"),
    "Replicate": re.compile(r"\br8_[A-Za-z0-9]{30,}"),
    "Perplexity": re.compile(r"\bpplx-[A-Za-z0-9]{40,}"),
    "NVIDIA": re.compile(r"\bnvapi-[A-Za-z0-9_\-]{40,}"),
    "GitHub": re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})"),
}
"""Shapes of provider keys; ``sk-no-key-needed`` (the placeholder for local servers) is too short to match."""


def is_secret_name(name: str) -> bool:
    """A setting or option name whose value must not be recorded."""
    bare = name.lstrip("-").replace("-", "_").lower()
    return bare not in NOT_SECRET_NAMES and bool(_SECRET_WORDS.search(bare))


_REMEMBERED: set[str] = set()


def remember_secret(secret: str | None) -> None:
    """A secret given to this process (``--api-key``, ``api_key=``): every ``Redactor`` masks it."""
    if secret and len(secret) >= 4:
        _REMEMBERED.add(secret)


def environment_secrets(env: Mapping[str, str] | None = None) -> set[str]:
    """Values of the provider key variables set in the environment."""
    env = os.environ if env is None else env
    return {v for k, v in env.items() if _ENV_SECRET.search(k) and len(v.strip()) >= _MIN_SECRET_LEN}


class Redactor:
    """Replaces secrets by ``***`` in command lines, mappings and text."""

    def __init__(self, secrets: Iterable[str] = (), env: Mapping[str, str] | None = None):
        values = {s for s in secrets if s and len(s) >= 4} | environment_secrets(env) | _REMEMBERED
        # longest first, so that a secret containing another is masked whole
        self._values = sorted(values, key=len, reverse=True)

    def add(self, secret: str | None) -> None:
        if secret and len(secret) >= 4 and secret not in self._values:
            self._values = sorted([*self._values, secret], key=len, reverse=True)

    def text(self, text: str) -> str:
        for v in self._values:
            if v in text:
                text = text.replace(v, MASK)
        for pattern in KEY_SHAPES.values():
            text = pattern.sub(MASK, text)
        return text

    def value(self, value: Any) -> Any:
        """Any JSON-able value: mappings by key name and content, strings by content; a
        ``command`` list is read as a command line (``argv``)."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            out: dict[Any, Any] = {}
            for k, v in value.items():
                if isinstance(k, str) and isinstance(v, str) and v and is_secret_name(k):
                    out[k] = MASK  # secrets are strings: token counts and the like are kept
                elif k == "command" and isinstance(v, list) and all(isinstance(a, str) for a in v):
                    out[k] = self.argv(v)
                else:
                    out[k] = self.value(v)
            return out
        if isinstance(value, (list, tuple)):
            return [self.value(v) for v in value]
        return value

    def key_values(self, text: str, sep: str = ",") -> str:
        """``a=1,api_key=X`` -> ``a=1,api_key=***`` (also the ``;`` form after ``model@``)."""
        parts = []
        for part in text.split(sep):
            key, eq, val = part.partition("=")
            parts.append(f"{key}={MASK}" if eq and is_secret_name(key.strip()) else part)
        return self.text(sep.join(parts))

    def model_spec(self, spec: str) -> str:
        """``openai/x@temperature=0.7;api_key=X`` (several, comma-separated) with secrets masked."""
        out = []
        for one in spec.split(","):
            base, at, args = one.partition("@")
            out.append(base + (at + self.key_values(args, ";") if at else ""))
        return self.text(",".join(out))

    def argv(self, argv: Iterable[str]) -> list[str]:
        """A command line as recorded in results: option values and embedded secrets masked."""
        out: list[str] = []
        pending: str | None = None  # the option whose value comes next
        for arg in argv:
            if pending is not None:
                out.append(self._option_value(pending, arg))
                pending = None
                continue
            if arg.startswith("--") and "=" in arg:
                name, _, val = arg.partition("=")
                out.append(f"{name}={self._option_value(name, val)}")
                continue
            if arg.startswith("-") and len(arg) > 1:
                pending = arg
                out.append(arg)
                continue
            out.append(self.text(arg))
        return out

    def _option_value(self, option: str, value: str) -> str:
        if is_secret_name(option):
            return MASK
        if option == "--model-args":
            return self.key_values(value)
        if option in ("--model", "--models", "--judge"):
            return self.model_spec(value)
        return self.text(value)


def find_key_shaped(text: str) -> tuple[str, str] | None:
    """(provider, masked excerpt) of the first string shaped like a provider key, or None."""
    for provider, pattern in KEY_SHAPES.items():
        m = pattern.search(text)
        if m:
            key = m.group(0)
            return provider, key[:6] + "…"
    return None
