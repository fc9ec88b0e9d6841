"""Throughput: the stub's own ceiling, then debench and lm-eval side by side at each setting, each
the whole command a user runs with its default settings (debench: 1,000 bootstrap draws per
metric), split into start-up, request window and the work after the last answer."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import aiohttp

from benchmarks.lmeval import run_lmeval, write_task
from benchmarks.report import ThroughputRow
from benchmarks.whole import CommandTiming
from benchmarks.workload import BENCH_TASK, make_data, measured_eval
from debench.data.loading import load_task_data
from debench.data.prompts import build_messages
from debench.run.task_lookup import load_task
from debench.testing.stub_server import StubProcess

FULL_SETTINGS: list[tuple[int, float]] = [(1, 0.1), (8, 0.1), (32, 0.1), (64, 0.1), (128, 0.1), (64, 0.0)]
HEADLINE = (128, 0.1)
"""The setting of the headline target: 2,048 documents at C = 128, 100 ms per request."""


def docs_for(concurrency: int, latency: float, *, smoke: bool) -> int:
    """Enough documents for 16+ rounds of requests at C (512 at least; fewer in the smoke run)."""
    if smoke:
        return max(64, 4 * concurrency)
    return 2048 if latency == 0 else max(512, 16 * concurrency)


async def _hammer(url: str, n: int, concurrency: int) -> float:
    body = {"model": "stub", "messages": [{"role": "user", "content": "Rate this speech."}]}
    sem = asyncio.Semaphore(concurrency)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:

        async def one(i: int) -> None:
            async with sem:
                body["messages"][0]["content"] = f"Rate speech {i}."
                async with session.post(
                    url, data=json.dumps(body), headers={"content-type": "application/json"}
                ) as resp:
                    await resp.read()

        t0 = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        return n / (time.perf_counter() - t0)


def stub_ceiling(srv: StubProcess, *, smoke: bool) -> dict[str, float]:
    """Requests/s the stub serves to a bare aiohttp client (which itself takes one core)."""
    out: dict[str, float] = {}
    n = 1000 if smoke else 6000
    for latency, concurrency in ((0.0, 64), (0.1, 512)):
        srv.configure(latency=latency)
        rate = asyncio.run(_hammer(srv.base_url + "/chat/completions", n, concurrency))
        out[f"latency {int(latency * 1000)} ms, C={concurrency}"] = round(rate, 1)
    return out


def bare_client_window(srv: StubProcess, *, smoke: bool) -> float:
    """The share of the ideal request window a bare aiohttp client (no prompts, no parsing, no log)
    gets from the stub at the headline setting: the stub's own limit on the window, which no
    client can pass. Measured at the stub, as debench's window is."""
    concurrency, latency = HEADLINE
    n = 512 if smoke else 2048
    srv.configure(latency=latency)
    srv.reset_stats()
    asyncio.run(_hammer(srv.base_url + "/chat/completions", n, concurrency))
    window = srv.stats.window_s
    return (n / concurrency * latency) / window if window else 0.0


def lmeval_rows(data_dir: Path, n_docs: int) -> tuple[str, list[dict[str, str]]]:
    """The system prompt and, per document, the user prompt exactly as debench renders them."""
    task, _ = load_task(str(BENCH_TASK))
    docs = load_task_data(task, "local", data_dir).docs[:n_docs]
    system = ""
    rows = []
    for doc in docs:
        messages = build_messages(task.prompt.system, task.prompt.user, doc, task.prompt.variables)
        system = messages[0]["content"]
        rows.append({"user": messages[-1]["content"], "label": str(doc.label)})
    return system, rows


def run_throughput(
    srv: StubProcess,
    work: Path,
    *,
    smoke: bool,
    lmeval_python: Path | None,
    settings: list[tuple[int, float]] | None = None,
) -> list[ThroughputRow]:
    settings = settings or ([(8, 0.05), (32, 0.05), (64, 0.0)] if smoke else FULL_SETTINGS)
    max_docs = max(docs_for(c, lat, smoke=smoke) for c, lat in settings)
    data_dir = make_data(work, max_docs)
    task_dir: Path | None = None
    system = ""
    if lmeval_python is not None:
        system, rows = lmeval_rows(data_dir, max_docs)
        task_dir = write_task(work / "lmeval_task", rows, max_tokens=16)
    out: list[ThroughputRow] = []
    for concurrency, latency in settings:
        n = docs_for(concurrency, latency, smoke=smoke)
        srv.configure(latency=latency)
        row = ThroughputRow(concurrency=concurrency, latency_s=latency, n_docs=n)
        tag = f"c{concurrency}_l{int(latency * 1000)}"
        run = measured_eval(
            srv, work, tag, task=BENCH_TASK, data_dir=data_dir, concurrency=concurrency, limit=n, bootstrap=None,
            parts=True,
        )  # fmt: skip
        if run.n_requests != n or not run.window_s:
            raise RuntimeError(f"debench sent {run.n_requests} requests for {n} documents")
        row.debench = CommandTiming.of(run.proc, srv)
        row.debench_sps = n / run.window_s
        if lmeval_python is not None and task_dir is not None:
            srv.reset_stats()
            res = run_lmeval(
                lmeval_python,
                task_dir,
                base_url=srv.base_url,
                system=system,
                concurrency=concurrency,
                limit=n,
                out_dir=work / f"lmeval_{tag}",
            )
            stats = srv.stats
            if res.returncode != 0 or stats.total_requests < n or not stats.window_s:
                row.lmeval_error = (
                    f"exit {res.returncode}, {stats.total_requests} requests: {res.stderr.strip()[-300:]}"
                )
            else:
                row.lmeval = CommandTiming.of(res, srv)
                row.lmeval_sps = n / stats.window_s
        print(_progress(row), flush=True)
        out.append(row)
    return out


def _progress(r: ThroughputRow) -> str:
    eff = f" ({r.efficiency:.1%} of ideal)" if r.efficiency is not None else ""
    lm = (
        f"; lm-eval {r.lmeval.phases()}"
        if r.lmeval
        else (f"; lm-eval failed: {r.lmeval_error}" if r.lmeval_error else "")
    )
    assert r.debench is not None
    return (
        f"  C={r.concurrency:<3} latency {int(r.latency_s * 1000)} ms, {r.n_docs} docs: "
        f"debench {r.debench.phases()}{eff}{lm}"
    )
