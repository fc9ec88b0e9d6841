"""A hash of a plug-in's module files: what changes when its code changes, even when its version
does not (an editable install, ``pip install -e``, runs its source folder as it is edited).

The files hashed are the Python files of the plug-in's top-level package (the first part of its
entry point's module: ``acme_judge`` for ``acme_judge.kinds:ACME``), found without importing it:
every ``*.py`` under the package's folders (``__pycache__`` apart), by their path inside the
package, or the one file of a single-module plug-in.
"""

from __future__ import annotations

import hashlib
import importlib.util
from pathlib import Path


def _files(top: str) -> list[tuple[str, Path]]:
    """(path inside the package, file) of the top-level module ``top``'s Python files, sorted."""
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        found = []
        for folder in map(Path, spec.submodule_search_locations):
            for path in folder.rglob("*.py"):
                if "__pycache__" not in path.parts and path.is_file():
                    found.append((path.relative_to(folder).as_posix(), path))
        return sorted(found)
    origin = Path(spec.origin) if spec.origin and spec.origin not in ("built-in", "frozen") else None
    return [(origin.name, origin)] if origin is not None and origin.is_file() else []


def sources_sha256(module: str) -> str:
    """sha256 of the Python files of ``module``'s top-level package (names and contents)."""
    digest = hashlib.sha256()
    for rel, path in _files(module.split(".")[0]):
        try:
            content = path.read_bytes()
        except OSError:
            continue
        digest.update(f"{rel}\0{len(content)}\0".encode())
        digest.update(content)
    return digest.hexdigest()
