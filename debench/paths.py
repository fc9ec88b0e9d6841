"""Where debench keeps what it downloads and caches: ``$DEBENCH_CACHE_DIR``, else
``$XDG_CACHE_HOME/debench``, else ``~/.cache/debench`` (responses, fetched data sets)."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    root = os.environ.get("DEBENCH_CACHE_DIR") or os.path.join(os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "debench")
    return Path(root)
