"""Prompt-prefix reuse: the share of prompt tokens a provider's prompt cache (or vLLM's prefix
cache) could serve, before and after the prompts were laid out to share their start.

Each workload runs against the stub with its simulated prompt cache (``PrefixCache``: an unbounded
cache of 16-word blocks, as vLLM's prefix cache with room for everything): the figure is the
stub's cached prompt tokens / prompt tokens. Workloads, as users run them:

* ``debateart``: the eight DebateArt tasks (winner, argument, source, language; verdict and
  score variants) one after another on the same debates;
* ``debatrix``: ``debatrix-h`` and ``debatrix-f`` on DebateArt debates (every step of every column);
* ``ibm``: ``ibm_speech_likert`` then ``ibm_speech_likert_cot`` on the same speeches.

"Before" runs the code and task files of ``BEFORE_REV`` (the commit this work started from),
extracted with ``git archive`` into a temporary folder and put first on ``PYTHONPATH``; "after"
runs this checkout.
"""

from __future__ import annotations

import importlib.util
import subprocess
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

from pydantic import BaseModel

from benchmarks.proc import debench_cmd, debench_env, run_measured
from debench.testing.stub_server import StubProcess

ROOT = Path(__file__).resolve().parent.parent
BEFORE_REV = "695f96c"
DEBATEART_TASKS = ",".join(
    f"debateart_{d}{v}" for d in ("winner", "argument", "source", "language") for v in ("", "_scores")
)
WORKLOADS: dict[str, list[tuple[str, ...]]] = {
    "debateart": [("--task", DEBATEART_TASKS)],
    "debatrix": [
        ("--task", "debateart_winner", "--method", "debatrix-h"),
        ("--task", "debateart_winner", "--method", "debatrix-f"),
    ],
    "ibm": [("--task", "ibm_speech_likert,ibm_speech_likert_cot")],
}


class PrefixShare(BaseModel):
    prompt_tokens: int
    cached_prompt_tokens: int

    @property
    def share(self) -> float:
        return self.cached_prompt_tokens / self.prompt_tokens if self.prompt_tokens else 0.0


def checkout(rev: str, into: Path) -> Path | None:
    """``debench/`` and ``tasks/`` of ``rev`` extracted into ``into`` (None outside a git checkout)."""
    try:
        tar = subprocess.run(
            ["git", "-C", str(ROOT), "archive", rev, "debench", "tasks"], capture_output=True, check=True
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        return None
    with tarfile.open(fileobj=BytesIO(tar)) as archive:
        archive.extractall(into, filter="data")
    return into


def measure_workload(
    srv: StubProcess, work: Path, real: Path, name: str, limit: int, *, code: Path | None = None
) -> PrefixShare:
    """One workload with a fresh simulated prompt cache; ``code`` runs another checkout's debench."""
    srv.configure(latency=0.0, prefix_cache=True)
    srv.reset_stats()
    tag = f"prefix_{name}_{'before' if code else 'after'}"
    env = debench_env(work / f"cache_{tag}", **({"PYTHONPATH": str(code)} if code else {}))
    for i, args in enumerate(WORKLOADS[name]):
        cmd = debench_cmd(
            "eval",
            *args,
            "--model",
            "openai/stub",
            "--api-base",
            srv.base_url,
            "--limit",
            str(limit),
            "--output-dir",
            str(work / f"out_{tag}_{i}"),
            "--no-progress",
            "--no-cache",
            "--bootstrap",
            "0",
            "--concurrency",
            "1",
            "--data-source",
            "local",
            "--data-dir",
            str(real),
        )
        run_measured(cmd, env=env, cwd=work).check(f"{tag} {' '.join(args)}")
    stats = srv.stats
    srv.configure(prefix_cache=False)
    return PrefixShare(prompt_tokens=stats.prompt_tokens, cached_prompt_tokens=stats.cached_prompt_tokens)


def why_not_before(name: str, code: Path | None) -> str | None:
    """Why ``BEFORE_REV``'s code cannot run workload ``name`` here (None: it can)."""
    if code is None:
        return "not measured (no git history)"
    if name == "ibm" and importlib.util.find_spec("matplotlib") is None:
        # that code draws the IBM tasks' plots with matplotlib, which debench no longer depends on
        return f"not measured (the code of {BEFORE_REV} needs matplotlib, not installed)"
    return None


def measure_prefix(srv: StubProcess, work: Path, real: Path, *, smoke: bool) -> dict[str, dict[str, PrefixShare | str]]:
    """workload -> {"before": share, or why it was not measured; "after": share}."""
    real = real.resolve()  # the commands run in ``work``
    limits = {"debateart": 3 if smoke else 10, "debatrix": 1 if smoke else 2, "ibm": 10 if smoke else 50}
    out: dict[str, dict[str, PrefixShare | str]] = {}
    with tempfile.TemporaryDirectory(prefix="debench-before-") as tmp:
        before = checkout(BEFORE_REV, Path(tmp))
        for name in WORKLOADS:
            why = why_not_before(name, before)
            out[name] = {
                "before": why
                if why is not None
                else measure_workload(srv, work, real, name, limits[name], code=before),
                "after": measure_workload(srv, work, real, name, limits[name]),
            }
    return out
