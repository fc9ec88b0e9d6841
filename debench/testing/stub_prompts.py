"""A prompt as the stub server sees it (``debench.testing.stub_server``): its key, its tokens
(whitespace words) and the simulated provider prompt cache."""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any

_last_key: list[tuple[Any, str]] = [(None, "")]
"""The last ``messages`` object hashed and its key: the server and then its responder ask for the
same request's key (held by reference, so that the object cannot be another one at the same id)."""


def prompt_key(messages: Any) -> str:
    """A stable short hash of a request's ``messages``: the key of per-prompt statistics and faults."""
    last = _last_key[0]
    if last[0] is messages and messages is not None:
        return last[1]
    canonical = json.dumps(messages, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    key = hashlib.sha256(canonical.encode()).hexdigest()[:16]
    _last_key[0] = (messages, key)
    return key


def words(content: Any) -> list[str]:
    """Whitespace words of a message content (a string or a list of OpenAI content parts)."""
    if isinstance(content, str):
        return content.split()
    if isinstance(content, list):
        return [w for part in content if isinstance(part, dict) for w in str(part.get("text", "")).split()]
    return []


def prompt_tokens(messages: list[Any]) -> int:
    """The stub's token count of a prompt: the words of its messages' contents."""
    return sum(len(words(m.get("content"))) for m in messages if isinstance(m, dict))


class PrefixCache:
    """A simulated provider prompt cache: the stub's tokens are whitespace words, cached in blocks
    of ``BLOCK`` words; a prompt's cached tokens are its leading blocks that some earlier prompt
    also began with (an unbounded cache, as vLLM's prefix cache with room for everything)."""

    BLOCK = 16

    def __init__(self) -> None:
        self._seen: set[bytes] = set()
        self._lock = threading.Lock()

    def cached_tokens(self, messages: list[Any]) -> int:
        """Cached tokens of ``messages``, which are then remembered for later prompts."""
        tokens = [w for m in messages if isinstance(m, dict) for w in (f"<{m.get('role')}>", *words(m.get("content")))]
        digest = b""
        hit, cached = True, 0
        with self._lock:
            for start in range(0, len(tokens) - self.BLOCK + 1, self.BLOCK):
                digest = hashlib.sha1(digest + " ".join(tokens[start : start + self.BLOCK]).encode()).digest()
                if hit and digest in self._seen:
                    cached += self.BLOCK
                else:
                    hit = False
                    self._seen.add(digest)
        return cached
