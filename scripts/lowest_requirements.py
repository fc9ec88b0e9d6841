"""Print pip constraints that pin every dependency of pyproject.toml (core and the named extras) to
its floor, to install and test the lowest versions debench declares:

    python scripts/lowest_requirements.py local test > lowest.txt
    python -m venv .venv-lowest && . .venv-lowest/bin/activate
    pip install -c lowest.txt -e ".[local,test]" && python -m pytest -m "not slow"

A requirement without a floor is an error (pyproject.toml declares a floor for each).
"""

from __future__ import annotations

import re
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
FLOOR = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?\s*>=\s*([^,;\s]+)")


def floors(extras: list[str]) -> list[str]:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    requirements = list(project["dependencies"])
    for extra in extras:
        requirements += project["optional-dependencies"][extra]
    out = []
    for req in requirements:
        m = FLOOR.match(req)
        if m is None:
            raise SystemExit(f"{PYPROJECT}: {req!r} has no floor (>=)")
        out.append(f"{m.group(1)}=={m.group(2)}")
    return out


if __name__ == "__main__":
    print("\n".join(floors(sys.argv[1:])))
