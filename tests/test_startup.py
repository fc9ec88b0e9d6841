"""Start-up: what a command imports before it answers (``tasks``, ``--help``) or before its first
request (``eval``). Timings are the benchmark's job (``python -m benchmarks``); these tests check
the imports, which decide them."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA_DIR, real_data_dir

from debench.core.blas_threads import THREAD_VARIABLES
from debench.core.entry_points import declared
from debench.metrics.base import METRICS
from debench.metrics.names import BUILTIN_REPORTS
from debench.metrics.reports import REPORTS
from debench.testing.stub_process import StubProcess

HEAVY = ("numpy", "scipy", "litellm", "jinja2", "datasets", "aiohttp", "huggingface_hub", "pandas", "krippendorff")
"""Modules that cost 0.05-2 s each to import on 2 cores."""


def imported_after(code: str) -> set[str]:
    """The top-level packages a fresh interpreter has imported after running ``code``."""
    script = f"import sys\n{code}\nimport json; print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


def test_every_metric_a_builtin_module_registers_is_declared_as_an_entry_point() -> None:
    ours = {name: item.value for name, item in declared("debench.metrics").items() if item.distribution == "debench"}
    for module in sorted(set(ours.values())):
        importlib.import_module(module)
    registered_by_us = {
        name for name, metric in METRICS._items.items() if metric.prepare.__module__.startswith("debench.")
    }
    assert registered_by_us <= set(ours), sorted(registered_by_us - set(ours))
    for name in ours:
        assert METRICS.get(name).name == name
    assert set(REPORTS.names()) == BUILTIN_REPORTS


def test_every_listed_adapter_name_is_registered_by_its_module() -> None:
    from debench.data.base import ADAPTERS

    for name, module in ADAPTERS.module_of.items():
        importlib.import_module(module)
        assert name in ADAPTERS._items, (name, module)
    assert set(ADAPTERS.names()) == set(ADAPTERS.module_of)


def test_looking_up_a_metric_imports_only_its_module() -> None:
    loaded = imported_after(
        "from debench.metrics.base import METRICS\nassert 'kendall_tau_c' in METRICS\nMETRICS.get('accuracy')"
    )
    assert "scipy" not in loaded


@pytest.mark.parametrize("args", [["tasks"], ["--help"], ["eval", "--help"]])
def test_listing_and_help_import_nothing_heavy(args: list[str]) -> None:
    code = f"from debench.cli import main\ntry:\n    main({args!r})\nexcept SystemExit:\n    pass"
    loaded = imported_after(code)
    assert not loaded & set(HEAVY), sorted(loaded & set(HEAVY))


def test_a_command_imports_its_own_module_not_the_other_commands() -> None:
    """Each command's module is imported when the command is named (``debench.cli.COMMANDS``)."""
    code = """
import json, sys
from debench.cli import main
try:
    main(["eval", "--help"])
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.modules if m.startswith("debench.cli."))))
"""
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    loaded = set(json.loads(proc.stdout.strip().splitlines()[-1]))
    assert "debench.cli.eval" in loaded
    assert not loaded & {"debench.cli.arena", "debench.cli.leaderboard", "debench.cli.card", "debench.cli.probe"}

    import click

    from debench.cli import COMMANDS, main

    ctx = click.Context(main)
    for name in COMMANDS:  # each name is its command's own (as --help and the error for a typo list it)
        command = main.get_command(ctx, name)
        assert command is not None and command.name == name


def test_eval_sends_its_first_request_before_importing_what_scoring_needs(tmp_path: Path) -> None:
    """The stub runs in the same interpreter as the command and notes, at the first request, which
    heavy packages are loaded: none but jinja2 (the prompts) and aiohttp (the stub's own server;
    that the client does not import it is the next test's)."""
    real_data_dir("ibm_debate_speeches")
    code = f"""
from debench.testing.stub_server import StubServer
first = []
def responder(body):
    if not first:
        first.append(sorted({{m.split('.')[0] for m in sys.modules}} & {set(HEAVY)!r}))
    return "Score: 4"
with StubServer(responder=responder) as srv:
    from debench.cli import main
    try:
        main(["eval", "--task", "ibm_speech_likert", "--model", "openai/stub", "--api-base", srv.base_url, \
"--limit", "3",
              "--output-dir", {str(tmp_path)!r}, "--no-progress", "--no-cache", "--data-dir", {str(DATA_DIR)!r}])
    except SystemExit as exc:
        assert not exc.code, exc.code
print(json.dumps(first[0]), file=sys.stderr)
"""
    proc = subprocess.run(
        [sys.executable, "-c", "import json, sys\n" + code], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    at_first_request = set(json.loads(proc.stderr.strip().splitlines()[-1]))
    assert at_first_request <= {"aiohttp", "jinja2"}, at_first_request
    assert next(tmp_path.glob("*/results_*.json")).exists()  # and the run then scored and wrote its results


def test_the_direct_client_never_imports_aiohttp(tmp_path: Path) -> None:
    """The direct client is debench's own (``models.http_client``): neither a run that asks the
    server nor a rerun answered from the cache imports aiohttp (~0.13 s of CPU)."""
    real_data_dir("ibm_debate_speeches")
    with StubProcess() as srv:
        args = ["eval", "--task", "ibm_speech_likert", "--model", "openai/stub", "--api-base", srv.base_url]
        args += ["--limit", "3", "--no-progress", "--data-dir", str(DATA_DIR)]
        env = f"import os\nos.environ['DEBENCH_CACHE_DIR'] = {str(tmp_path / 'cache')!r}\n"
        runs = []
        for out in ("first", "rerun"):
            command = [*args, "--output-dir", str(tmp_path / out)]
            runs.append(
                imported_after(
                    f"{env}from debench.cli import main\ntry:\n    main({command!r})\nexcept SystemExit:\n    pass"
                )
            )
        assert srv.stats.total_requests == 3
    assert "aiohttp" not in runs[0]
    assert "aiohttp" not in runs[1]
    assert next((tmp_path / "rerun").glob("*/results_*.json")).exists()


def test_scoring_imports_numpy_with_one_blas_thread_and_leaves_the_environment_as_it_was() -> None:
    """Scoring's products are small: OpenBLAS's second thread costs time and changes no number
    (docs/performance.md). The thread count is set for numpy's import only; a user's is kept."""
    code = """
import os, sys, json
import debench.scoring
threads = len(os.listdir('/proc/self/task'))
print(json.dumps([threads, os.environ.get('OPENBLAS_NUM_THREADS')]))
"""
    env = {k: v for k, v in os.environ.items() if k not in THREAD_VARIABLES}
    for user in (None, "2"):
        run_env = env if user is None else {**env, "OPENBLAS_NUM_THREADS": user}
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=run_env, timeout=120)
        assert proc.returncode == 0, proc.stderr
        threads, variable = json.loads(proc.stdout.strip().splitlines()[-1])
        assert variable == user  # set for numpy's import only; the user's own setting kept
        if user is None:
            assert threads == 1  # (OpenBLAS starts one thread per core by default)
