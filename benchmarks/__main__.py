"""``python -m benchmarks [--smoke]``: debench's performance and fault benchmarks, one table.

The headline is what a user waits for: whole commands with their default settings, debench beside
lm-eval in the same run (``benchmarks.whole``, ``benchmarks.throughput``), then start-up, the
cached rerun, memory, Debatrix, prompt-prefix reuse, scoring, faults and kill -9, ``arena rank`` at
10,000 and 1,000,000 judgments beside the per-judgment computation, the debates each arena schedule needs
(``benchmarks.adaptive``, a simulation), and the embedded model (its slots, and whether its thread
count changes its answers: ``benchmarks.threads``); one ``held`` /
``NOT HELD`` line per target. The whole commands of the table and the cached rerun run through
``benchmarks.parts``: each part's CPU time and share (start-up, runner, scoring imports, metrics,
plots, results file, after, exit) is printed, so that a slower command shows where it got slower.
Everything runs against the stub server in a child process on
127.0.0.1 (``StubProcess``). ``--smoke`` is the small version CI runs (through
``tests/test_benchmarks_smoke.py``): smaller runs, no lm-eval, no embedded model. Writes
``benchmarks.json`` and ``benchmarks.txt`` to ``--out``.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.adaptive import measure_adaptive
from benchmarks.arena import measure_arena
from benchmarks.debatrix import DebatrixFigures, measure_debatrix
from benchmarks.faults import fault_run, kill_run
from benchmarks.lmeval import ensure_venv
from benchmarks.local_model import local_model_available, measure_local
from benchmarks.memory import cached_rerun, measure_memory
from benchmarks.prefix import measure_prefix
from benchmarks.report import BenchReport, Machine, format_table
from benchmarks.threads import measure_threads
from benchmarks.throughput import HEADLINE, bare_client_window, run_throughput, stub_ceiling
from benchmarks.whole import python_startup_seconds, startup_seconds
from benchmarks.workload import make_data
from debench.testing.stub_server import StubProcess

HERE = Path(__file__).resolve().parent
TARGET_WINDOW = {"high": 0.90, "low": 0.95}
"""Request window >= this share of C / latency: at C > 64 ("high") and at C <= 64 ("low")."""
TARGET_AFTER_WINDOW_S = 2.0
"""The headline's whole command <= its request window + this."""
TARGET_FIRST_REQUEST_S = 0.8
TARGET_CACHED_S = 1.2
TARGET_STARTUP_S = 0.5
TARGET_RSS_GROWTH = 1.10
TARGET_DEBATRIX_RATIO = 0.40


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.splitlines()[0])
    p.add_argument("--smoke", action="store_true", help="the small version (CI): no lm-eval, no embedded model")
    p.add_argument("--out", type=Path, default=Path("runs/benchmarks"), help="where benchmarks.json / .txt go")
    p.add_argument("--no-lmeval", action="store_true", help="skip lm-evaluation-harness")
    p.add_argument("--no-local", action="store_true", help="skip the embedded llama.cpp model")
    p.add_argument(
        "--lmeval-venv", type=Path, default=HERE / ".lmeval-venv", help="throw-away venv for lm-eval (reused)"
    )
    p.add_argument(
        "--data-dir",
        default=os.environ.get("DEBENCH_DATA_DIR") or str(HERE.parent.parent / "shared" / "datasets"),
        help="real data sets (for the cached ibm_speech_likert rerun and the embedded model)",
    )
    p.add_argument("--work", type=Path, default=None, help="keep intermediate files here (default: a temp dir)")
    return p


def _real_data(data_dir: str) -> Path | None:
    path = Path(data_dir)
    return path if (path / "ibm_debate_speeches" / "data.csv").exists() else None


def run(args: argparse.Namespace, work: Path) -> BenchReport:
    smoke = args.smoke
    report = BenchReport(mode="smoke" if smoke else "full", machine=Machine.here())
    started = time.perf_counter()
    lmeval_python = None
    if not smoke and not args.no_lmeval:
        lmeval_python = ensure_venv(args.lmeval_venv)
    real = _real_data(args.data_dir)
    _startup_checks(report, work, runs=3 if smoke else 7)
    with StubProcess() as srv:
        print("stub server ceiling ...", flush=True)
        report.stub_ceiling_sps = stub_ceiling(srv, smoke=smoke)
        c, latency = HEADLINE
        report.figures[
            f"a bare client's share of the ideal window at C={c}, {latency * 1000:.0f} ms (the stub's limit)"
        ] = f"{bare_client_window(srv, smoke=smoke):.1%}"
        print("whole commands, debench and lm-eval ...", flush=True)
        report.throughput = run_throughput(srv, work, smoke=smoke, lmeval_python=lmeval_python)
        _throughput_checks(report)

        print("cached rerun ...", flush=True)
        if real is not None:
            rerun = cached_rerun(srv, work, real)
            what = "ibm_speech_likert (631 real documents)"
        else:
            from benchmarks.workload import BENCH_TASK

            rerun = cached_rerun(srv, work, make_data(work, 631), task=str(BENCH_TASK))
            what = "631 synthetic documents (real data not found)"
        report.check(f"cached rerun of {what}, whole command <= {TARGET_CACHED_S} s", rerun.wall_s <= TARGET_CACHED_S,
                     f"{rerun.wall_s:.2f} s", kind="speed")  # fmt: skip
        report.figures[f"parts of the cached rerun ({what})"] = rerun.shares()
        report.check("cached rerun makes no request", rerun.n_requests == 0, f"{rerun.n_requests} requests")

        print("memory ...", flush=True)
        small, large = (300, 1500) if smoke else (2000, 10000)
        mem_small = measure_memory(srv, work, small)
        mem_large = measure_memory(srv, work, large)
        _memory_checks(report, mem_small, mem_large)

        if real is not None:
            print("debatrix ...", flush=True)
            _debatrix_checks(report, measure_debatrix(srv, work, real))
            print("prompt-prefix reuse ...", flush=True)
            _prefix_figures(report, measure_prefix(srv, work, real, smoke=smoke))

        print("faults ...", flush=True)
        f = fault_run(srv, work, 150 if smoke else 500)
        report.figures["fault run outcomes"] = ", ".join(f"{k} {v}" for k, v in sorted(f.outcomes.items()))
        report.check(
            "30% faults: the run completes",
            f.completed and f.fault_share >= 0.25,
            f"{f.fault_share:.1%} of {sum(f.outcomes.values())} requests failed; exit "
            f"{'0' if f.completed else 'non-zero'}",
        )
        report.check(
            "every document ends as an answer or a counted error",
            f.every_doc_once and f.n_errors == f.n_errors_reported,
            f"{f.n_ok} ok + {f.n_parse_failures} parse failures + {f.n_errors} errors (reported "
            f"{f.n_errors_reported}) = {f.n_docs}",
        )
        report.check("nothing retried past its cap", f.max_attempts_seen <= f.attempt_cap,
                     f"max {f.max_attempts_seen} attempts per prompt at the server, cap {f.attempt_cap}")  # fmt: skip
        report.check(
            "metrics equal a clean run's on the documents that succeeded",
            f.metrics_equal,
            "all metrics, CIs and n identical" if f.metrics_equal else f"differences: {f.metric_diffs}",
        )

        print("kill -9 ...", flush=True)
        k = kill_run(srv, work, 200 if smoke else 500)
        report.figures["kill -9: log lines at each kill"] = str(k.lines_at_kills)
        report.check(
            f"kill -9 x{k.kills} then the same command: every document exactly once",
            k.every_doc_once and k.kills == 5 and k.final_exit == 0,
            f"{k.n_docs} documents, {k.kills} kills, {k.resumed_requests} requests in all "
            f"({k.resumed_requests - k.n_docs} re-asked)",
        )
        report.check(
            "kill -9 x5: metrics equal an uninterrupted run",
            k.metrics_equal,
            "identical" if k.metrics_equal else "different",
        )

    if real is not None:
        _scoring_check(report, real, smoke=smoke)
    print("arena rank ...", flush=True)
    measure_arena(report, work, smoke=smoke)
    print("adaptive tournaments (simulation) ...", flush=True)
    measure_adaptive(report, smoke=smoke)
    if not smoke and not args.no_local:
        _local_checks(report, work, real)
    report.duration_s = time.perf_counter() - started
    return report


def _startup_checks(report: BenchReport, work: Path, runs: int) -> None:
    print("start-up ...", flush=True)
    report.figures["python -c pass (the interpreter alone), median s"] = round(python_startup_seconds(runs), 3)
    for args in (["tasks"], ["--help"]):
        s = startup_seconds(args, work, runs)
        report.check(
            f"debench {' '.join(args)} <= {TARGET_STARTUP_S} s",
            s <= TARGET_STARTUP_S,
            f"{s:.3f} s (median of {runs})",
            kind="speed",
        )


def _throughput_checks(report: BenchReport) -> None:
    for r in report.throughput:
        if r.debench is not None and r.debench.parts:
            what = f"C={r.concurrency}, {int(r.latency_s * 1000)} ms, {r.n_docs} docs"
            report.figures[f"parts of the whole command, {what}"] = r.debench.shares()
        if r.efficiency is not None:
            target = TARGET_WINDOW["low" if r.concurrency <= 64 else "high"]
            report.check(
                f"C={r.concurrency} at {int(r.latency_s * 1000)} ms: request window >= {target:.0%} of C/latency",
                r.efficiency >= target,
                f"{r.debench_sps:.0f}/s of {r.ideal_sps:.0f}/s = {r.efficiency:.1%}",
                kind="speed",
            )
        if r.lmeval_error:
            report.check(f"lm-eval ran at C={r.concurrency}", False, r.lmeval_error, kind="speed")
    head = next((r for r in report.throughput if (r.concurrency, r.latency_s) == HEADLINE), None)
    if head is not None and head.debench is not None and head.debench.window_s is not None:
        d = head.debench
        report.check(
            f"{head.n_docs} documents at C={head.concurrency} / {int(head.latency_s * 1000)} ms: whole command <= "
            f"request window + {TARGET_AFTER_WINDOW_S:.0f} s",
            d.wall_s <= d.window_s + TARGET_AFTER_WINDOW_S,
            d.phases(),
            kind="speed",
        )
        if head.lmeval is not None:
            report.figures[f"headline: lm-eval whole command ({head.n_docs} documents, C={head.concurrency})"] = (
                head.lmeval.phases()
            )
            report.figures["headline: lm-eval / debench whole command"] = f"{head.lmeval.wall_s / d.wall_s:.1f}x"
    firsts = [
        r.debench.to_first_request_s
        for r in report.throughput
        if r.debench and r.debench.to_first_request_s is not None
    ]
    if firsts:
        report.check(
            f"first request <= {TARGET_FIRST_REQUEST_S} s after the command starts",
            max(firsts) <= TARGET_FIRST_REQUEST_S,
            f"{min(firsts):.2f}-{max(firsts):.2f} s over {len(firsts)} runs",
            kind="speed",
        )
    needed = max((r.ideal_sps or 0) for r in report.throughput)
    ceiling = max(report.stub_ceiling_sps.values())
    report.check(
        "stub serves >= 2x what the harness needs",
        ceiling >= 2 * needed,
        f"{ceiling:.0f}/s vs {needed:.0f}/s needed",
        kind="speed",
    )


def _memory_checks(report: BenchReport, small, large) -> None:
    for m in (small, large):
        s = m.stages
        report.figures[f"memory, {m.n_docs} docs (MB)"] = (
            f"peak {m.peak_rss_mb:.0f}; imports {s['imports_rss_mb']:.0f}, after data {s['data_rss_mb']:.0f} "
            f"(+{s['data_growth_mb']:.0f}), after runner {s['runner_rss_mb']:.0f} (+{s['runner_growth_mb']:.0f}), "
            f"after scoring {s['scoring_rss_mb']:.0f}"
        )
    per_doc_kb = (
        (large.stages["runner_growth_mb"] - small.stages["runner_growth_mb"]) * 1024 / (large.n_docs - small.n_docs)
    )
    report.figures["runner's own memory per extra document (KB)"] = round(per_doc_kb, 2)
    report.check(
        f"peak RSS of the {large.n_docs}-document run <= the {small.n_docs}-document run + {TARGET_RSS_GROWTH - 1:.0%}",
        large.peak_rss_mb <= TARGET_RSS_GROWTH * small.peak_rss_mb,
        f"{small.peak_rss_mb:.0f} -> {large.peak_rss_mb:.0f} MB ({large.peak_rss_mb / small.peak_rss_mb - 1:+.1%})",
        kind="speed",
    )


def _debatrix_checks(report: BenchReport, d: DebatrixFigures) -> None:
    ratio = d.ratio
    report.check(
        f"Debatrix, one {d.n_speeches}-speech debate at 100 ms: columns at once <= "
        f"{TARGET_DEBATRIX_RATIO:.0%} of one call at a time",
        ratio is not None and ratio <= TARGET_DEBATRIX_RATIO,
        f"window {d.concurrent.window_s:.2f} s vs {d.sequential.window_s:.2f} s = {ratio:.0%}; whole command "
        f"{d.concurrent.wall_s:.2f} s vs {d.sequential.wall_s:.2f} s; {d.concurrent.n_requests} and "
        f"{d.sequential.n_requests} calls",
        kind="speed",
    )
    report.check(
        "Debatrix: the same number of calls with the columns at once",
        d.concurrent.n_requests == d.sequential.n_requests,
        f"{d.concurrent.n_requests} vs {d.sequential.n_requests}",
    )


def _prefix_figures(report: BenchReport, shares: dict) -> None:
    for name, s in shares.items():
        before = s["before"] if isinstance(s["before"], str) else f"{s['before'].share:.1%}"
        report.figures[f"prompt tokens that are a repeated prefix, {name} (before -> after)"] = (
            f"{before} -> {s['after'].share:.1%} of {s['after'].prompt_tokens} tokens"
        )


def _scoring_check(report: BenchReport, real: Path, *, smoke: bool) -> None:
    print("scoring ...", flush=True)
    from benchmarks.scoring import check, measure_scoring

    figures = measure_scoring(real, repeat=2 if smoke else 5)
    for name, f in figures["tasks"].items():
        if "best_s" in f:
            report.figures[f"scoring {name} ({f['n_docs']} docs), best / median s"] = (
                f"{f['best_s']:.3f} / {f['median_s']:.3f}"
            )
    c = check(figures)
    report.check(c.name, c.held, c.figure, c.note, kind=c.kind)


def _local_checks(report: BenchReport, work: Path, real: Path | None) -> None:
    why = local_model_available() or (None if real is not None else "the real data is not found")
    if why:
        report.check("embedded model measured at C=1 and C=4", False, f"skipped: {why}", kind="speed")
        return
    print("embedded model ...", flush=True)
    from debench.models.llama_cpp_settings import DEFAULT_N_PARALLEL

    assert real is not None
    loc = measure_local(work, real, n_docs=8)
    for n, rate in loc.docs_per_s.items():
        report.figures[f"embedded model, {n} slot(s), C={n} (docs/s)"] = round(rate, 3)
    for agreement in measure_threads(work, real, n_docs=30):
        report.figures[
            f"embedded model, 1 vs 2 threads, {agreement.task}: same raw answer, same score (of {agreement.n_docs})"
        ] = f"{agreement.same_response}, {agreement.same_prediction}"
    default_rate = loc.docs_per_s.get(DEFAULT_N_PARALLEL, 0.0)
    best_rate = loc.docs_per_s[loc.best]
    report.check(
        "embedded model: the default n_parallel is the faster setting (or within 10%, run-to-run noise here)",
        default_rate >= 0.90 * best_rate,
        " vs ".join(f"C={n}: {r:.3f} docs/s" for n, r in loc.docs_per_s.items())
        + f"; default n_parallel={DEFAULT_N_PARALLEL}",
        kind="speed",
    )


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    if args.work is not None:
        args.work.mkdir(parents=True, exist_ok=True)
        report = run(args, args.work)
    else:
        with tempfile.TemporaryDirectory(prefix="debench-bench-") as tmp:
            report = run(args, Path(tmp))
    table = format_table(report)
    print("\n" + table)
    (args.out / "benchmarks.json").write_text(report.model_dump_json(indent=2) + "\n")
    (args.out / "benchmarks.txt").write_text(table + "\n")
    print(f"\nwritten: {args.out / 'benchmarks.json'}, {args.out / 'benchmarks.txt'}")
    return 0 if all(c.held for c in report.checks if c.kind == "correctness") else 1


if __name__ == "__main__":
    sys.exit(main())
