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

Each is replaced by ``"***"``, and so is any string shaped like a provider's key (``KEY_SHAPES``).
``Redactor.json_text`` does the same on a serialized JSON record (the samples log and the response
cache redact every record that way before it reaches the disk, successful answers included).

``find_key_shaped`` spots strings shaped like a provider's key (``sk-…``, ``sk-ant-…``, ``hf_…``,
``xoxb-…``, ``sk_live_…``, ``AKIA…``, …), also with whitespace inside it or base64-encoded, and
``secret_under_name`` a high-entropy value held under a key / token / secret / password name, so
that ``debench validate`` can refuse a submission that carries one.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import os
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

MASK = "***"

_SECRET_WORDS = re.compile(r"key|token|secret|password|passwd|authorization|credential", re.IGNORECASE)
NOT_SECRET_NAMES = frozenset({"max_tokens", "max_completion_tokens", "max_new_tokens", "top_k", "n_tokens"})
"""Setting names that contain one of the words but hold no secret."""

_ENV_SECRET = re.compile(
    r"(?:^|_)(?:API_?KEY|TOKEN|SECRET|PASSWORD|ACCESS_KEY)(?:_|$)|^DEBENCH_API_KEY$", re.IGNORECASE
)
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
    "Slack": re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),
    "Stripe": re.compile(r"\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}"),
}
"""Shapes of provider keys; ``sk-no-key-needed`` (the placeholder for local servers) is too short to match."""

_WORDISH = bytes(
    ord("a") if chr(c).isascii() and chr(c).isalnum() else ord("-") if chr(c) in "-_" else ord(" ") for c in range(256)
)
_CANDIDATE = b"-" + b"a" * 16
"""Every shape but Google's, AWS's and Slack's has a ``-`` or ``_`` followed by 16 letters or digits:
text without one (and without ``AIza`` / ``AKIA`` / ``ASIA`` / ``xox``) is not searched further.
Found by one byte translation and one substring search (the thirteen shapes' regular expressions
cost about 15 times as much on a 5 KB samples-log line)."""

_BASE64_RUN = re.compile(r"[A-Za-z0-9+/]{28,}={0,2}")
_WHITESPACE = re.compile(r"\s+")
_NAME_WORDS = re.compile(r"[A-Za-z][a-z]*|[0-9]+")
SECRET_NAME_WORDS = frozenset(
    {
        "key",
        "apikey",
        "token",
        "secret",
        "password",
        "passwd",
        "pwd",
        "authorization",
        "auth",
        "credential",
        "credentials",
        "bearer",
    }
)
"""Words of a field name that say its value is a secret (``api_key``, ``x-api-key``, ``hfToken``);
``max_tokens``, ``keys`` or ``tokenizer`` are not such names."""
MIN_SECRET_ENTROPY = 3.0
"""Bits per character from which a value of 12 or more characters under a secret's name counts as
a secret (random keys have 4 to 6; ``hunter2hunter2`` has 2.8)."""


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
        self._set(values)

    def add(self, secret: str | None) -> None:
        if secret and len(secret) >= 4 and secret not in self._values:
            self._set([*self._values, secret])

    def _set(self, values: Iterable[str]) -> None:
        # longest first, so that a secret containing another is masked whole
        self._values = sorted(values, key=len, reverse=True)
        # each secret as JSON writes it inside a string, where that differs (``json_text``: per line)
        escaped = ((v, json.dumps(v, ensure_ascii=False)[1:-1]) for v in self._values)
        self._escaped = [e for v, e in escaped if e != v]

    def text(self, text: str) -> str:
        for v in self._values:
            if v in text:
                text = text.replace(v, MASK)
        if _may_hold_key(text):
            for pattern in KEY_SHAPES.values():
                text = pattern.sub(MASK, text)
        return text

    def json_text(self, text: str) -> str:
        """A serialized JSON document (one samples-log line, one cached response) with every secret
        masked: the secrets as JSON writes them too (a value with a quote or a backslash)."""
        for escaped in self._escaped:
            if escaped in text:
                text = text.replace(escaped, MASK)
        return self.text(text)

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
        """``a=1,api_key=X`` -> ``a=1,api_key=***`` (also the ``;`` form after ``model@``), read
        by ``options.key_value_parts``; every other part kept as it was written."""
        from debench.core.options import key_value_parts

        parts = [
            f"{p.text.partition('=')[0]}={MASK}" if p.value is not None and is_secret_name(p.key) else p.text
            for p in key_value_parts(text, sep)
        ]
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


_A_PREFIXES = re.compile(rb"A(?:Iza|KIA|SIA)")
_XOX = re.compile(rb"xox")
"""Google's, AWS's and Slack's prefixes, searched as regular expressions: their scan for a first
literal byte is about twice as fast as ``in`` on a 5 KB line, and the three ``A`` prefixes are one
scan (``b"AIza" in raw or ...``: ~12.5 µs a samples-log line, these two ~4 µs)."""


def _may_hold_key(text: str) -> bool:
    raw = text.encode("utf-8", "surrogatepass")
    return _A_PREFIXES.search(raw) is not None or _XOX.search(raw) is not None or _CANDIDATE in raw.translate(_WORDISH)


def _shaped(text: str) -> tuple[str, str] | None:
    if not _may_hold_key(text):
        return None
    for provider, pattern in KEY_SHAPES.items():
        m = pattern.search(text)
        if m:
            return provider, m.group(0)[:6] + "…"
    return None


def find_key_shaped(text: str) -> tuple[str, str] | None:
    """(provider, masked excerpt) of the first string shaped like a provider key, or None: as it
    stands, with its whitespace removed (``sk-proj- AbC…`` split over spaces or lines), or
    base64-encoded."""
    hit = _shaped(text)
    if hit is None and any(c.isspace() for c in text):
        hit = _shaped(_WHITESPACE.sub("", text))
        if hit is not None:
            hit = (hit[0], hit[1] + " (written with spaces)")
    if hit is None:
        for run in _BASE64_RUN.findall(text):
            try:
                decoded = base64.b64decode(run + "=" * (-len(run) % 4), validate=True).decode("ascii")
            except (binascii.Error, UnicodeDecodeError, ValueError):
                continue
            inner = _shaped(decoded)
            if inner is not None:
                return inner[0], inner[1] + " (base64-encoded)"
    return hit


def is_secret_field(name: str) -> bool:
    """A field name made of words one of which names a secret (narrower than ``is_secret_name``,
    which masks on any name containing key, token, …)."""
    words = {w.lower() for w in _NAME_WORDS.findall(name)}
    return bool(words & SECRET_NAME_WORDS) or name.lower().replace("-", "").replace("_", "") in SECRET_NAME_WORDS


def entropy(text: str) -> float:
    """Shannon entropy of the characters of ``text``, in bits per character."""
    if not text:
        return 0.0
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def secret_under_name(name: str, value: object) -> bool:
    """A string held under a secret's name (``api_key``, ``token``, …) that looks like one: not the
    mask, 12 characters or more, at least ``MIN_SECRET_ENTROPY`` bits per character."""
    return (
        isinstance(value, str)
        and value != MASK
        and len(value) >= 12
        and is_secret_field(name)
        and entropy(value) >= MIN_SECRET_ENTROPY
    )
