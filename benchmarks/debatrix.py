"""Debatrix on one real 6-speech DebateArt debate at 100 ms a request: the three dimension columns
one call at a time (``--concurrency 1``: how the method ran before its columns ran concurrently,
56 calls in a row) against the default concurrency (the columns at once). Same calls, same answers
(the stub answers by prompt); the figure is the request window at the stub, and the whole command
beside it.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

from pydantic import BaseModel

from benchmarks.proc import debench_cmd, debench_env
from benchmarks.whole import CommandTiming, timed
from debench.data.loading import load_task_data
from debench.run.task_lookup import load_task
from debench.testing.stub_server import StubProcess

TASK = "debateart_winner"
SUBDIR = Path("debatrix_panelbench") / "DebateArt"


class DebatrixFigures(BaseModel):
    doc_id: str
    n_speeches: int
    sequential: CommandTiming
    concurrent: CommandTiming
    concurrency: int

    @property
    def ratio(self) -> float | None:
        if self.sequential.window_s and self.concurrent.window_s:
            return self.concurrent.window_s / self.sequential.window_s
        return None


def one_debate_dir(real: Path, work: Path, n_speeches: int = 6) -> tuple[Path, str]:
    """A data dir (in ``work``) holding the first real DebateArt debate with ``n_speeches`` speeches."""
    task, _ = load_task(TASK)
    doc = next(d for d in load_task_data(task, "local", real).docs if len(d.speeches) == n_speeches)
    src, dst = real / SUBDIR, work / "debatrix_one" / SUBDIR
    shutil.rmtree(dst, ignore_errors=True)
    for sub in ("motion", "speech"):
        (dst / sub).mkdir(parents=True)
        shutil.copy(src / sub / f"{doc.doc_id}.yml", dst / sub / f"{doc.doc_id}.yml")
    (dst / "gold").mkdir()
    number = str(int(doc.doc_id.rsplit("_", 1)[1]))
    for name in ("final.csv", "dimension.csv"):
        with open(src / "gold" / name, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
        with open(dst / "gold" / name, "w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows([rows[0], *(r for r in rows[1:] if r[0] == number)])
    return work / "debatrix_one", doc.doc_id


def measure_debatrix(srv: StubProcess, work: Path, real: Path, *, concurrency: int = 8) -> DebatrixFigures:
    data_dir, doc_id = one_debate_dir(real, work)
    srv.configure(latency=0.1)
    timings = {}
    for c in (1, concurrency):
        out = work / f"debatrix_out_{c}"
        cmd = debench_cmd(
            "eval",
            "--task",
            TASK,
            "--method",
            "debatrix-h",
            "--model",
            "openai/stub",
            "--api-base",
            srv.base_url,
            "--concurrency",
            str(c),
            "--output-dir",
            str(out),
            "--no-progress",
            "--no-cache",
            "--data-source",
            "local",
            "--data-dir",
            str(data_dir),
        )
        timings[c] = timed(
            cmd, srv, env=debench_env(work / f"debatrix_cache_{c}"), what=f"debatrix at --concurrency {c}"
        )
    task, _ = load_task(TASK)
    n_speeches = len(load_task_data(task, "local", data_dir).docs[0].speeches)
    return DebatrixFigures(
        doc_id=doc_id,
        n_speeches=n_speeches,
        sequential=timings[1],
        concurrent=timings[concurrency],
        concurrency=concurrency,
    )
