"""The runner's records reach the log off the request path (issue 46): every worker woken by a
burst of answers sends its next request before the burst's lines are written, one write for them
all; and whatever ends a run (its end, a budget, a job's error, a failed write, a cancellation) every
record a job finished is in the log exactly once when ``run_jobs`` returns or raises, before the
run's claims are released, so a rerun asks only the jobs that did not finish."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import pytest
from conftest import DATA_DIR
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from debench.core.errors import RunStopped, UserError
from debench.core.record_log import FINISHED, RecordLog, read_log
from debench.run.log_writer import PENDING_MAX
from debench.run.runner import run_jobs
from debench.testing.limits import limited
from debench.testing.stub_server import StubServer


class Rec(BaseModel):
    key: str
    status: str
    text: str = ""


class WatchedLog(RecordLog[Rec]):
    """A record log that remembers each write's size and what the file held when the run released
    its claims."""

    def __init__(self, path: Path) -> None:
        super().__init__(path, Rec, "key")
        self.batches: list[int] = []
        self.at_release: list[str] | None = None

    def append_many(self, records: Any) -> None:
        self.batches.append(len(records))
        super().append_many(records)

    def release_claims(self) -> None:
        self.at_release = on_disk(self.path)
        super().release_claims()


def on_disk(path: Path) -> list[str]:
    """The keys of the log's lines, in file order (a key twice if written twice)."""
    return [r.key for _, _, r in read_log(path, Rec, bad_line="raise")] if path.exists() else []


# -- RecordLog.append_many ----------------------------------------------------------------------------------


def test_append_many_redacts_each_record_and_keeps_their_order(tmp_path: Path) -> None:
    """One call, three records: each line redacted on its own (a key-shaped string in one answer never
    reaches the disk, nor ``existing``), in the order given, and read back by a new process as written."""
    key = "sk-" + "a1B2c3D4" * 4
    log = RecordLog(tmp_path / "log.jsonl", Rec, "key")
    log.append_many(
        [Rec(key="b", status="ok"), Rec(key="a", status="ok", text=f"echo {key}"), Rec(key="c", status="error")]
    )
    log.append_many([])
    text = (tmp_path / "log.jsonl").read_text()
    assert key not in text and key not in log.existing["a"].text and "echo " in log.existing["a"].text
    assert on_disk(tmp_path / "log.jsonl") == ["b", "a", "c"] and log.finished() == {"a", "b"}
    log.close()
    assert RecordLog(tmp_path / "log.jsonl", Rec, "key").existing == log.existing


FAILING_WRITE = """
import sys
from pathlib import Path
from pydantic import BaseModel
from debench.core.errors import UserError
from debench.core.record_log import RecordLog
class Rec(BaseModel):
    key: str
    status: str
    text: str = ""
log = RecordLog(Path(sys.argv[1]), Rec, "key")
try:
    log.append_many([Rec(key=f"k{i}", status="ok", text="x" * 400) for i in range(6)])
except UserError as exc:
    print(sorted(log.existing), exc, sep="\\n")
"""
"""Six lines of ~440 bytes in one write, in a process whose files may grow to 1,500 bytes."""


def test_a_write_that_fails_keeps_the_whole_lines_that_reached_the_file(tmp_path: Path) -> None:
    """A file size limit hit inside one write of six lines (what a full disk does): the lines that
    reached the file whole stay, the part of the next one is cut, the process knows the ones kept,
    and the error is one line naming the log."""
    path = tmp_path / "log.jsonl"
    RecordLog(path, Rec, "key").append(Rec(key="before", status="ok"))
    cmd = limited([sys.executable, "-c", FAILING_WRITE, str(path)], file_size=1500)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60, check=True).stdout.splitlines()
    kept = on_disk(path)
    assert kept == ["before", "k0", "k1", "k2"] and path.read_bytes().endswith(b"\n")
    assert out[0] == str(sorted(kept)) and len(out) == 2
    assert out[1].startswith(str(path)) and "cannot write the run's log (File too large)" in out[1]


# -- the writer beside the workers ------------------------------------------------------------------------


@dataclass
class BurstJob:
    """A job of the first wave waits for the burst; one of the second reads the log when it starts
    (its request is on its way); one of the third does so a few turns of the loop later."""

    key: str
    answers: asyncio.Event
    log: Path
    seen: dict[str, list[str]]
    wave: int = 1

    async def run(self) -> Rec:
        if self.wave == 1:
            await self.answers.wait()
        elif self.wave == 3:
            for _ in range(3):
                await asyncio.sleep(0)
        if self.wave > 1:
            self.seen[self.key] = on_disk(self.log)
        return Rec(key=self.key, status="ok")

    def failure(self, status: str, error: str) -> Rec:
        return Rec(key=self.key, status=status, text=error)


def test_every_worker_of_a_burst_sends_its_next_request_before_the_burst_is_written(tmp_path: Path) -> None:
    """Four answers arrive in one turn of the loop: each of the four workers starts its next job
    before any of the four lines is written (a worker writing its own line first made the k-th
    worker's request wait for k lines). The four lines, with those of the four second jobs (which
    answer without an await), are then written in one write a turn later, not held until the run
    ends: the third jobs, a few turns later, find them."""
    path = tmp_path / "log.jsonl"
    log = WatchedLog(path)
    answers = asyncio.Event()
    seen: dict[str, list[str]] = {}
    first = [f"a{i}" for i in range(4)]
    jobs = [BurstJob(k, answers, path, seen) for k in first]
    jobs += [BurstJob(f"b{i}", answers, path, seen, wave=2) for i in range(4)]
    jobs += [BurstJob(f"c{i}", answers, path, seen, wave=3) for i in range(4)]

    async def run() -> None:
        running = asyncio.ensure_future(run_jobs(jobs, log, concurrency=4, progress=False))
        for _ in range(3):
            await asyncio.sleep(0)  # every first job is waiting for its answer
        answers.set()
        await running

    asyncio.run(run())
    assert all(seen[f"b{i}"] == [] for i in range(4))
    assert all(set(first) <= set(seen[f"c{i}"]) for i in range(4))
    assert log.batches[0] == 8 and sorted(on_disk(path)) == sorted(j.key for j in jobs)


@dataclass
class InstantJob:
    key: str

    async def run(self) -> Rec:
        return Rec(key=self.key, status="ok")

    def failure(self, status: str, error: str) -> Rec:
        return Rec(key=self.key, status=status, text=error)


def test_jobs_that_never_give_the_loop_a_turn_hold_a_bounded_number_of_records(tmp_path: Path) -> None:
    """Answers that come without an await (a baseline's): the writer's task never gets a turn, so the
    worker writes every ``PENDING_MAX`` records itself instead of holding the whole run in memory."""
    log = WatchedLog(tmp_path / "log.jsonl")
    n = 2 * PENDING_MAX + 5
    asyncio.run(run_jobs([InstantJob(f"k{i}") for i in range(n)], log, concurrency=2, progress=False))
    assert max(log.batches) <= PENDING_MAX and sum(log.batches) == n
    assert len(set(on_disk(log.path))) == n


Outcome = Literal["ok", "fails", "stops", "refuses"]


@dataclass
class PlannedJob:
    """Ends after ``turns`` turns of the event loop: with a record (``ok``), with an error the runner
    makes an error record of (``fails``), with a budget reached (``stops``: ``RunStopped``) or with a
    configuration error (``refuses``: ``UserError``). The keys of the jobs that finished (a record
    made) go to ``finished``."""

    key: str
    outcome: Outcome
    turns: int
    finished: list[str] = field(default_factory=list)

    async def run(self) -> Rec:
        for _ in range(self.turns):
            await asyncio.sleep(0)
        if self.outcome == "stops":
            raise RunStopped("budget reached")
        if self.outcome == "refuses":
            raise UserError("a configuration problem")
        self.finished.append(self.key)
        if self.outcome == "fails":
            raise RuntimeError("the endpoint failed")
        return Rec(key=self.key, status="ok")

    def failure(self, status: str, error: str) -> Rec:
        return Rec(key=self.key, status=status, text=error)


async def _run_until(jobs: list[PlannedJob], log: RecordLog[Rec], concurrency: int, cancel_after: int | None) -> str:
    """Run the jobs, cancelled after ``cancel_after`` turns of the loop (as Ctrl-C cancels a run); how
    the run ended."""
    running = asyncio.ensure_future(run_jobs(jobs, log, concurrency=concurrency, progress=False))
    if cancel_after is not None:
        for _ in range(cancel_after):
            await asyncio.sleep(0)
        running.cancel()
    try:
        await running
    except asyncio.CancelledError:
        return "cancelled"
    except RunStopped:
        return "stopped"
    except UserError:
        return "refused"
    return "done"


def _check_run(
    plans: list[tuple[str, Outcome, int]], concurrency: int, cancel_after: int | None
) -> tuple[str, list[str]]:
    """Run the planned jobs on a fresh log, then rerun them all (each ending with a record): the
    first run's log holds every record made, once, already when the claims were released; the rerun
    asks exactly the jobs not finished (no record, or an error record). How the first run ended,
    and the jobs it finished."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "log.jsonl"
        finished: list[str] = []
        jobs = [PlannedJob(k, o, t, finished) for k, o, t in plans]
        log = WatchedLog(path)
        ended = asyncio.run(_run_until(jobs, log, concurrency, cancel_after))
        log.close()
        assert sorted(on_disk(path)) == sorted(finished) == sorted(set(finished))
        assert sorted(log.at_release or []) == sorted(finished)  # None: cancelled before it began
        done = {k for k, o, _ in plans if k in finished and o == "ok"}
        rerun: list[str] = []
        again = RecordLog(path, Rec, "key")
        asyncio.run(
            run_jobs([PlannedJob(k, "ok", t, rerun) for k, _, t in plans], again, concurrency=3, progress=False)
        )
        assert sorted(rerun) == sorted(k for k, _, _ in plans if k not in done)
        again.compact([k for k, _, _ in plans])
        again.close()
        assert on_disk(path) == [k for k, _, _ in plans]
        assert all(again.existing[k].status in FINISHED for k, _, _ in plans)
    return ended, finished


@st.composite
def planned_runs(draw: st.DrawFn) -> tuple[list[tuple[str, Outcome, int]], int, int | None]:
    keys = draw(st.lists(st.text("abcdefxyz0123456789", min_size=1, max_size=6), unique=True, max_size=24))
    outcomes = st.sampled_from(["ok", "ok", "ok", "fails", "stops", "refuses"])
    plans = [(k, draw(outcomes), draw(st.integers(0, 6))) for k in keys]
    return plans, draw(st.integers(1, 8)), draw(st.none() | st.integers(0, 30))


@settings(max_examples=30, deadline=None)
@given(run=planned_runs())
def test_every_finished_record_is_on_disk_once_however_the_run_ends(
    run: tuple[list[tuple[str, Outcome, int]], int, int | None],
) -> None:
    """Random jobs (keys, outcomes, how many turns of the loop each takes), random concurrency, a
    cancellation at a random turn or none: ``_check_run``'s invariants hold whatever ended the run."""
    _check_run(*run)


@pytest.mark.parametrize(
    ("plans", "concurrency", "cancel_after", "ended", "finished"),
    [
        ([(f"k{i}", "ok", i % 3) for i in range(7)], 2, None, "done", {f"k{i}" for i in range(7)}),
        (
            [("a", "ok", 2), ("b", "stops", 1), ("c", "ok", 2), ("d", "ok", 2), ("e", "ok", 0)],
            3,
            None,
            "stopped",
            {"a", "c"},
        ),
        (
            [("a", "ok", 2), ("b", "refuses", 2), ("c", "ok", 6), ("d", "fails", 2), ("e", "ok", 0)],
            3,
            None,
            "refused",
            {"a", "d", "e"},
        ),
        ([(f"k{i}", "ok", 2) for i in range(12)], 3, 5, "cancelled", None),
    ],
)
def test_each_ending_leaves_the_finished_records_and_only_them(
    plans: list[tuple[str, Outcome, int]],
    concurrency: int,
    cancel_after: int | None,
    ended: str,
    finished: set[str] | None,
) -> None:
    """Each way a run ends, once for certain (the property test draws them at random), each with
    records still to write when it ends (every case fails without the writer's last write): at the
    end; a budget reached (the two jobs under way finish and are kept, none starts after); a job's
    configuration error (the jobs that ended with it, or just after, are kept, an error record among
    them; the one still under way is cancelled; the rerun asks both); a cancellation half-way
    through (as Ctrl-C does), some jobs finished and some not."""
    how, done = _check_run(plans, concurrency, cancel_after)
    assert how == ended
    assert set(done) == finished if finished is not None else 0 < len(done) < len(plans)


def test_a_failed_write_stops_the_run_and_the_rerun_asks_only_the_rest(tmp_path: Path) -> None:
    """Through the stub at concurrency 2, the samples log limited to a few lines (a file size limit: what
    a full disk does): one line naming the log, exit 2, the records written before kept whole; the
    rerun (no response cache) asks the endpoint only for the documents not in the log."""
    out = tmp_path / "o"
    argv = [
        *("eval", "--task", "ibm_speech_likert", "--model", "openai/stub", "--limit", "8", "--concurrency", "2"),
        *("--no-progress", "--no-cache", "--bootstrap", "20", "--data-dir", str(DATA_DIR), "--output-dir", str(out)),
    ]
    with StubServer() as srv:
        argv += ["--api-base", srv.base_url]
        cmd = limited([sys.executable, "-m", "debench.cli", *argv], file_size=10_000)
        first = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        log = next(out.glob("*/samples_*.jsonl"))
        kept = [json.loads(x)["doc_id"] for x in log.read_text().splitlines()]
        srv.reset_stats()
        again = subprocess.run(
            [sys.executable, "-m", "debench.cli", *argv], capture_output=True, text=True, timeout=120
        )
        asked = srv.stats.total_requests
    lines = first.stderr.strip().splitlines()
    assert first.returncode == 2 and len(lines) == 1 and "cannot write the run's log (File too large)" in lines[0]
    assert 0 < len(kept) < 8 and log.read_bytes().endswith(b"\n")
    assert again.returncode == 0, again.stderr
    assert asked == 8 - len(kept)
    final = [json.loads(x)["doc_id"] for x in log.read_text().splitlines()]
    assert len(final) == len(set(final)) == 8 and set(kept) < set(final)
