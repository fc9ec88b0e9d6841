"""Budgets the job counts itself (issue 41), rule by rule: the estimate is the job's own count of
the prompts it would send and the method's requests; a run is stopped between two requests — never
past a budget by more than the one request in flight — whatever a submission claims; the ledger
adds every refresh of a month up; the queue takes new entries in merge order, not name order."""

from __future__ import annotations

import asyncio
import json
import subprocess
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA_DIR, real_data_dir
from lbhelp import MAINTAINERS

from debench.data.prompts import Message
from debench.leaderboard.allowance import Allowance, BudgetReached
from debench.leaderboard.canonical import canonical_judges
from debench.leaderboard.estimate import byte_bound, estimate_run, filler, prompt_counter
from debench.leaderboard.ledger import Ledger, read_ledger
from debench.leaderboard.maintainers import Budget, load_maintainers
from debench.leaderboard.queue import Queue, extend, merge_order
from debench.leaderboard.reproduce import ReproduceRun
from debench.models.base import Model, ModelResponse, Request, Usage
from debench.models.calls import Caller
from debench.models.factory import make_model
from debench.run.task_lookup import installed_task
from debench.task.config import GenerationConfig


def _docs(task: str, n: int) -> tuple[Any, list[Any]]:
    from debench.leaderboard.real_data import REAL_DATA

    real_data_dir("")
    t = installed_task(task)
    assert t is not None
    return t, list(REAL_DATA.get(t, DATA_DIR).docs[:n])


def test_the_estimate_is_the_jobs_own_count_of_the_prompts_it_would_send() -> None:
    import litellm

    from debench.data.prompts import build_messages

    task, docs = _docs("ibm_speech_likert", 12)
    messages = [build_messages(task.prompt.system, task.prompt.user, d, task.prompt.variables) for d in docs]
    mt = task.generation.max_tokens
    gpt = "gpt-4o-mini-2024-07-18"
    got = estimate_run(task, docs, "direct", make_model(gpt), prompt_counter(gpt))
    assert prompt_counter(gpt).by == f"litellm's tokenizer for {gpt}"
    assert got == Budget(requests=12, tokens=sum(litellm.token_counter(model=gpt, messages=m) + mt for m in messages))
    # a model litellm has no tokenizer of: the byte bound, never below the bytes sent
    local = estimate_run(task, docs, "direct", make_model("local/smollm2"), prompt_counter("local/smollm2"))
    assert prompt_counter("local/smollm2").by.startswith("the byte bound")
    assert local == Budget(requests=12, tokens=sum(byte_bound(m) + mt for m in messages))
    assert all(byte_bound(m) >= len("".join(x["content"] for x in m).encode()) for m in messages)
    # the model's own settings are the run's: a max_tokens of the maintainers' counts, not the task's
    short = estimate_run(task, docs, "direct", make_model(gpt, model_args={"max_tokens": 4}), prompt_counter(gpt))
    assert short.tokens == got.tokens - 12 * (mt - 4)


def test_a_debatrix_document_costs_the_requests_of_its_chain() -> None:
    from debench.judging.debatrix import sides_of

    task, docs = _docs("bp_top_team", 1)
    assert task.debatrix is not None
    got = estimate_run(task, docs, "debatrix-f", make_model("local/smollm2"), prompt_counter("local/smollm2"))
    n_dims, n_speeches, n_sides = len(task.debatrix.dimensions), len(docs[0].speeches), len(sides_of(docs[0]))
    # per column: each speech analysed and scored, the debate analysed, each side judged and scored, a verdict
    per_column = 2 * n_speeches + 1 + 2 * n_sides + 1
    assert got.requests == n_dims * per_column + 2 == 106  # + the summary and the final verdict
    assert got.tokens > got.requests * 1000  # every step carries the debate or the notes on it


class _Echo(Model):
    """A model that answers at once, reporting no usage (what a provider may do)."""

    def __init__(self) -> None:
        self.name = "echo"
        self.sent = 0

    def identity(self) -> dict[str, Any]:
        return {"name": self.name}

    async def generate(self, request: Request) -> ModelResponse:
        self.sent += 1
        return ModelResponse(text="Score: 3", usage=Usage())


def _call(caller: Caller, model: Model, text: str, max_tokens: int = 16) -> Any:
    gen = GenerationConfig(max_tokens=max_tokens)
    return asyncio.run(caller.call(model, [{"role": "user", "content": text}], gen))


def test_a_run_stops_between_two_requests_at_each_of_its_budgets() -> None:
    counter = prompt_counter("local/smollm2")
    prompt = "x" * 1000
    one = byte_bound([{"role": "user", "content": prompt}]) + 16
    for scope, cap in (
        ("entry", Budget(requests=3, tokens=10**9)),
        ("month", Budget(requests=10**6, tokens=int(2.5 * one))),
    ):
        spent: list[tuple[int, int]] = []
        allowance = Allowance(
            {"entry": Budget(requests=10**6, tokens=10**9), scope: cap},  # type: ignore[dict-item]
            time.monotonic() + 3600,
            counter,
            lambda r, t, s, spent=spent: spent.append((r, t)),
        )
        model, caller = _Echo(), Caller(None, guard=allowance)
        with pytest.raises(BudgetReached) as stop:
            for _ in range(100):
                _call(caller, model, prompt)
        assert stop.value.scope == scope
        # never more than the budget: a request starts only when its prompt and max_tokens fit
        assert allowance.requests == model.sent == len(spent) <= cap.requests and allowance.tokens <= cap.tokens
        assert model.sent == (3 if scope == "entry" else 2)
        # the provider reported no usage: the job's own count stands (prompt + the answer's tokens)
        assert spent[0][1] >= one - 16


def test_the_refreshs_wall_time_stops_a_run_before_a_request_that_would_pass_it() -> None:
    allowance = Allowance({}, time.monotonic() - 1, prompt_counter("local/smollm2"))
    with pytest.raises(BudgetReached) as stop:
        _call(Caller(None, guard=allowance), _Echo(), "x")
    assert stop.value.scope == "wall" and "wall time" in str(stop.value)


def test_requests_under_way_count_against_the_budget_before_they_are_settled() -> None:
    """At --concurrency N, requests admitted but not yet answered hold their place: the budget's
    last request is the last one admitted, however many are still under way."""
    allowance = Allowance({"entry": Budget(requests=3, tokens=10**9)}, time.monotonic() + 3600, prompt_counter("x"))
    messages: list[Message] = [{"role": "user", "content": "x"}]
    tickets = [allowance.admit(messages, 8) for _ in range(3)]
    with pytest.raises(BudgetReached) as stop:
        allowance.admit(messages, 8)
    assert stop.value.scope == "entry" and allowance.in_flight == 3 and allowance.requests == 0
    for ticket in tickets:
        allowance.settle(ticket, None, 1)
    assert allowance.requests == 3 and allowance.in_flight == 0 and allowance.reserved == 0


def test_the_wall_time_counts_the_mean_request_before_the_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A request is not started when a request of the run's mean duration would end after the
    deadline (the clock is set by the test: no sleep, no timing)."""
    now = [0.0]
    monkeypatch.setattr(time, "monotonic", lambda: now[0])
    allowance = Allowance({}, 150.0, prompt_counter("x"))
    messages: list[Message] = [{"role": "user", "content": "x"}]
    ticket = allowance.admit(messages, 8)
    now[0] = 100.0  # the first request took 100 s
    allowance.settle(ticket, None, 1)
    with pytest.raises(BudgetReached) as stop:
        allowance.admit(messages, 8)  # 100 s + a mean of 100 s ends after the deadline at 150 s
    assert stop.value.scope == "wall" and allowance.requests == 1


def test_a_request_cut_off_counts_its_whole_reservation() -> None:
    class _Hangs(_Echo):
        async def generate(self, request: Request) -> ModelResponse:
            raise asyncio.CancelledError

    allowance = Allowance({"entry": Budget(requests=10, tokens=10**6)}, time.monotonic() + 60, prompt_counter("x"))
    with pytest.raises(asyncio.CancelledError):
        _call(Caller(None, guard=allowance), _Hangs(), "y" * 100, max_tokens=50)
    assert allowance.requests == 1 and allowance.tokens == byte_bound([{"role": "user", "content": "y" * 100}]) + 50
    assert allowance.in_flight == 0 and allowance.reserved == 0


def test_the_ledger_adds_up_every_refresh_of_a_month(tmp_path: Path) -> None:
    maint = load_maintainers(MAINTAINERS)
    now = datetime.now(UTC)
    ledger = Ledger()
    ledger.line("2000-01-01T00:00:00Z", "2000-01", "reproduction", "j/direct", "t").requests = 10**6  # another month
    earlier = ledger.line("earlier", now.strftime("%Y-%m"), "reproduction", "j/direct", "t")
    earlier.requests, earlier.tokens = 19_000, 1_000
    (tmp_path / "ledger.json").write_text(json.dumps(ledger.model_dump()))
    run = ReproduceRun(tmp_path / "reproduced", maint, tmp_path / "ledger.json", started=now)
    left = run.left()
    assert left["month"].requests == maint.budgets.per_month.requests - 19_000  # this month's refreshes together
    assert left["refresh"] == Budget(
        requests=maint.budgets.per_refresh.requests, tokens=maint.budgets.per_refresh.tokens
    )
    judges = canonical_judges(maint)
    task = installed_task("ibm_speech_likert")
    assert task is not None
    allowance = run.allowance(judges[0], task, prompt_counter("x"))
    allowance.on_spend(2, 300, 0.5)  # what the guard reports after a request: written at once
    got = read_ledger(tmp_path / "ledger.json")
    assert got.spent(refresh=run.refresh) == Budget(requests=2, tokens=300)
    assert got.spent(judge=judges[0].id, task=task.name) == Budget(requests=2, tokens=300)
    assert allowance.left["month"].requests == 1000 and run.entry_left(judges[0], task).requests == 1998


def test_the_filler_answer_is_as_long_as_max_tokens_under_either_count() -> None:
    counter = prompt_counter("gpt-4o-mini-2024-07-18")
    text = filler(50)
    assert counter.count([{"role": "assistant", "content": text}]) >= 50
    assert byte_bound([{"role": "assistant", "content": text}]) >= 50


def test_new_entries_are_queued_in_merge_order_not_name_order(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(tmp_path), *args], check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    subs = tmp_path / "leaderboard" / "submissions"
    for folder in ("zz_vendor", "aa_squatter"):  # the vendor merged first
        (subs / folder).mkdir(parents=True)
        (subs / folder / "results_x.json").write_text("{}")
        git("add", "-A")
        git("commit", "-q", "-m", folder)
    order = merge_order(tmp_path)
    assert order == {"zz_vendor": 0, "aa_squatter": 1}
    q = extend(Queue(), ["aa_squatter/results_x.json", "zz_vendor/results_x.json"], order)
    assert q.entries == ["zz_vendor/results_x.json", "aa_squatter/results_x.json"]
    assert merge_order(tmp_path / "not-a-checkout") == {}


def test_a_stopped_run_records_the_requests_under_way_and_starts_no_other(tmp_path: Path) -> None:
    """A budget reached before one job's request: the jobs already asking finish and are recorded
    (they were paid for), the run then ends, and no job starts after it."""
    from debench.core.record_log import RecordLog
    from debench.data.samples import SampleRecord
    from debench.run.runner import run_jobs

    started: list[str] = []
    release = asyncio.Event()

    class Job:
        def __init__(self, key: str) -> None:
            self.key = key

        async def run(self) -> SampleRecord:
            started.append(self.key)
            if self.key == "stop":  # while "slow" waits for its answer
                release.set()
                raise BudgetReached("refresh", Budget(requests=1, tokens=1))
            if self.key == "slow":  # its answer comes a few turns of the loop after the budget is reached
                await release.wait()
                for _ in range(5):
                    await asyncio.sleep(0)
            return SampleRecord(doc_id=self.key, status="ok", prediction=1)

        def failure(self, status: Any, error: str) -> SampleRecord:
            return SampleRecord(doc_id=self.key, status=status, error=error)

    async def main() -> None:
        log = RecordLog(tmp_path / "log.jsonl", SampleRecord, "doc_id")
        try:
            await run_jobs([Job("slow"), Job("stop"), Job("later")], log, concurrency=2, progress=False)
        finally:
            log.close()

    with pytest.raises(BudgetReached):
        asyncio.run(main())
    from debench.data.samples import read_records

    assert [r.doc_id for r in read_records(tmp_path / "log.jsonl")] == ["slow"] and "later" not in started
