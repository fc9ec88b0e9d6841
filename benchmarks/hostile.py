"""``python -m benchmarks.hostile``: the hostile cases of issue 34 as a user meets them, each a real
``debench`` process against stub servers on 127.0.0.1; one row per case with its exit code, the
last line it printed, its wall time and its peak memory (the child's maximum resident set, from
``os.wait4``). A case holds when it exits as expected within ``--budget`` seconds under 1 GB.

Run twice, two identical evals sharing an output folder are started together ``--pairs`` times
(both must exit 0 each time, and leave no hidden file). Then the hostile files of issue 43
(``benchmarks.hostile_files``): each a one-line refusal within ``--files-budget`` seconds under a
3 GB address-space limit, with its peak memory.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.hostile_files import measure_files
from debench.testing.fixed_status import FixedStatusServer
from debench.testing.stub_server import BatchPlan, FaultPlan, StubServer

GB = 1024**3
SAMPLE = [
    "--task",
    "ibm_speech_likert",
    "--limit",
    "2",
    "--data-source",
    "sample",
    "--no-progress",
    "--bootstrap",
    "20",
]


def run(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str, float, int]:
    """(exit code, last stderr line, seconds, peak RSS bytes) of ``python -m debench.cli ARGV``."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "debench.cli", *argv], env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err
        )
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        lines = err.read().decode("utf-8", "replace").strip().splitlines()
    return proc.returncode, (lines[-1] if lines else ""), time.perf_counter() - t0, usage.ru_maxrss * 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument(
        "--budget",
        type=float,
        default=60.0,
        help="seconds a case may take (importing litellm alone takes 20-30 s on a loaded 2-core machine)",
    )
    ap.add_argument("--pairs", type=int, default=5, help="times two identical evals are started together")
    ap.add_argument("--files-budget", type=float, default=20.0, help="seconds a hostile file of issue 43 may take")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="debench-hostile-"))
    base_env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "LITELLM_"))}
    env = {**base_env, "DEBENCH_CACHE_DIR": str(work / "cache")}
    rows: list[tuple[str, int, int, str, float, int]] = []

    def case(name: str, argv: list[str], expect: int, case_env: dict[str, str] | None = None) -> None:
        code, line, secs, rss = run(argv, case_env or env, work)
        rows.append((name, expect, code, line, secs, rss))

    out = lambda name: ["--output-dir", str(work / name)]  # noqa: E731 - a one-line helper beside its use
    case(
        "--concurrency 1000000000",
        ["eval", "--model", "baseline/random", *SAMPLE, "--concurrency", "1000000000", *out("c")],
        2,
    )
    case(
        "--bootstrap 100000000",
        ["eval", "--model", "baseline/random", *SAMPLE, "--bootstrap", "100000000", *out("b")],
        2,
    )
    case(
        "--api-base with a baseline",
        ["eval", "--model", "baseline/random", *SAMPLE, "--api-base", "http://127.0.0.1:9/v1", *out("ab")],
        2,
    )
    case("vllm/./missing", ["eval", "--model", "vllm/./missing", *SAMPLE, *out("v")], 2)
    (work / ".env").write_text("OPENAI_API_BASE=http://127.0.0.1:9/v1\nOPENAI_API_KEY=sk-dotenv-0123456789abcdef\n")
    case("gpt-4o without a key, .env present", ["eval", "--model", "gpt-4o", *SAMPLE, *out("k")], 2)
    (work / ".env").unlink()
    for status, message in (
        (401, "invalid key"),
        (403, "forbidden"),
        (422, "unprocessable"),
        (501, "not implemented"),
        (429, "insufficient_quota"),
    ):
        with FixedStatusServer(status, {"error": {"message": message, "type": "error"}}) as fixed:
            case(
                f"a server answering {status}",
                ["eval", "--model", "openai/stub", "--api-base", fixed.base_url, *SAMPLE, *out(f"s{status}")],
                2,
            )
    with StubServer(faults=FaultPlan(fail_first_n_per_prompt=100, fail_kind="slow", slow_seconds=30)) as srv:
        case(
            "a server that never answers (timeout=1)",
            [
                "eval",
                "--model",
                "openai/stub",
                "--api-base",
                srv.base_url,
                *SAMPLE,
                "--model-args",
                "timeout=1,max_retries=2,base_delay=0.1",
                *out("t"),
            ],
            2,
        )
    with StubServer(batch=BatchPlan(duration=3600)) as srv:
        case(
            "a batch that never completes",
            [
                "eval",
                "--model",
                "openai/gpt-4o-mini",
                "--api-base",
                srv.base_url,
                *SAMPLE,
                "--batch",
                "--batch-poll",
                "0.2",
                "--batch-deadline",
                "0.002",
                *out("bd"),
            ],
            2,
        )
    task = work / "loop.yaml"
    task.write_text(
        (Path(__file__).resolve().parent.parent / "tasks" / "ibm_speech_likert.yaml")
        .read_text()
        .replace("user: |", "user: |\n    {% for i in range(100000000) %}{% endfor %}", 1)
    )
    case(
        "a prompt with range(100000000)",
        ["eval", "--model", "baseline/random", "--task", str(task), *SAMPLE[2:], *out("j")],
        2,
    )
    with StubServer() as one, StubServer() as two:
        for srv, name in ((one, "first"), (two, "second")):
            case(f"OPENAI_API_BASE = the {name} server", ["eval", "--model", "gpt-4o", *SAMPLE, *out("e")], 0,
                 {**env, "OPENAI_API_BASE": srv.base_url, "OPENAI_API_KEY": "sk-bench-0123456789abcdef"})  # fmt: skip
        endpoint_requests = (one.stats.total_requests, two.stats.total_requests)

    pair_codes = []
    with StubServer(latency=0.05) as srv:
        for i in range(args.pairs):
            argv = [
                sys.executable,
                "-m",
                "debench.cli",
                "eval",
                "--model",
                "openai/stub",
                "--api-base",
                srv.base_url,
                "--task",
                "ibm_speech_likert",
                "--data-source",
                "sample",
                "--no-progress",
                "--bootstrap",
                "20",
                "--output-dir",
                str(work / f"pair{i}"),
            ]
            procs = [
                subprocess.Popen(
                    argv,
                    env={**env, "DEBENCH_CACHE_DIR": str(work / f"pc{i}")},
                    cwd=work,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                for _ in range(2)
            ]
            pair_codes.append(tuple(p.wait() for p in procs))
    hidden = [str(p) for p in work.glob("pair*/**/.*")]
    file_lines, files_held, n_files = measure_files(work, env, args.files_budget)

    width = max(len(r[0]) for r in rows)
    held = 0
    for name, expect, code, line, secs, rss in rows:
        ok = code == expect and secs <= args.budget and rss < GB
        held += ok
        print(
            f"{'held' if ok else 'NOT HELD':8} {name:{width}}  exit {code} (want {expect})  {secs:5.1f} s  "
            f"{rss / 2**20:6.0f} MB  {line[:110]}"
        )
    endpoints_ok = endpoint_requests == (2, 2)
    pairs_ok = all(c == (0, 0) for c in pair_codes) and not hidden
    print(
        f"{'held' if endpoints_ok else 'NOT HELD':8} two endpoints set in the environment: requests "
        f"{endpoint_requests} (want (2, 2))"
    )
    print(
        f"{'held' if pairs_ok else 'NOT HELD':8} two identical evals started together: exit codes {pair_codes}; "
        f"hidden files left: {len(hidden)}"
    )
    print("\n".join(file_lines))
    print(f"{held + endpoints_ok + pairs_ok + files_held} of {len(rows) + 2 + n_files} held")
    shutil.rmtree(work, ignore_errors=True)
    return 0 if held == len(rows) and endpoints_ok and pairs_ok and files_held == n_files else 1


if __name__ == "__main__":
    raise SystemExit(main())
