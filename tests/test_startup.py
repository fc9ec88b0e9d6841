"""Start-up: what a command imports before it answers (``tasks``, ``--help``) or before its first
request (``eval``). Timings are the benchmark's job (``python -m benchmarks``); these tests check
the imports, which decide them."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

from debench.metrics.base import METRICS

HEAVY = ("numpy", "scipy", "litellm", "matplotlib", "jinja2", "datasets", "aiohttp", "huggingface_hub", "pandas", "krippendorff")
"""Modules that cost 0.05-2 s each to import on 2 cores."""


def imported_after(code: str) -> set[str]:
    """The top-level packages a fresh interpreter has imported after running ``code``."""
    script = f"import sys\n{code}\nimport json; print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


def test_every_declared_metric_name_is_registered_by_its_module() -> None:
    for module in {m for m in METRICS.declared.values()}:
        importlib.import_module(module)
    assert set(METRICS.declared) == set(METRICS.names())


def test_a_declared_metric_is_known_without_importing_its_module() -> None:
    loaded = imported_after("from debench.metrics.base import METRICS\nassert 'kendall_tau_c' in METRICS and 'rank_delta' in METRICS")
    assert "scipy" not in loaded


@pytest.mark.parametrize("args", [["tasks"], ["--help"], ["eval", "--help"]])
def test_listing_and_help_import_nothing_heavy(args: list[str]) -> None:
    code = f"from debench.cli import main\ntry:\n    main({args!r})\nexcept SystemExit:\n    pass"
    loaded = imported_after(code)
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))
