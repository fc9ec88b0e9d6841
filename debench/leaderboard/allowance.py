"""What one run of the leaderboard's job may still spend, checked by the job before every request.

An ``Allowance`` is the run's ``models.calls.RequestGuard``: before each request is sent it counts
the prompt (``debench.leaderboard.estimate.prompt_counter``), reserves that plus the request's
``max_tokens``, and refuses — ``BudgetReached``, which stops the run between two requests, never
in the middle of one, once the requests under way have ended and been recorded — when the
reservation would pass what is left of any of its budgets (the entry's, the refresh's, the
month's) or when the refresh's wall time would run out before a request of the run's mean
duration could end. Whatever the submission claims, a run spends at most its budgets: the
reservations of the requests in flight are held against them, and what a request cost once it
ends is the larger of the provider's count and the job's own (its prompt as counted plus its
answer, at most ``max_tokens``), a failed or cancelled request its whole reservation. Each
request's cost is handed to ``on_spend`` (the ledger line of the run).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from debench.core.errors import RunStopped
from debench.data.prompts import Message
from debench.leaderboard.estimate import PromptCounter
from debench.leaderboard.maintainers import Budget
from debench.models.base import ModelResponse

Scope = Literal["entry", "refresh", "month", "wall"]
_WHAT = {
    "entry": "one entry's budget",
    "refresh": "this refresh's budget",
    "month": "this month's budget",
    "wall": "this refresh's wall time",
}


class BudgetReached(RunStopped):
    """The run stops before a request that would pass ``scope``'s budget (the requests already
    under way finish and are recorded: ``debench.run.runner.run_jobs``)."""

    def __init__(self, scope: Scope, spent: Budget) -> None:
        super().__init__(f"{_WHAT[scope]} ran out ({spent.requests} requests, {spent.tokens} tokens spent by this run)")
        self.scope: Scope = scope


@dataclass(frozen=True)
class _Ticket:
    prompt: int
    reserved: int
    started: float


@dataclass
class Allowance:
    """A run's allowance (see the module docstring). ``left``: scope -> what is left in it for the
    run; ``deadline``: ``time.monotonic()`` after which no request may still be running."""

    left: dict[Scope, Budget]
    deadline: float
    counter: PromptCounter
    on_spend: Callable[[int, int, float], None] = lambda requests, tokens, seconds: None
    requests: int = 0
    tokens: int = 0
    in_flight: int = 0
    reserved: int = 0
    seconds: float = field(default=0.0)
    timed: int = 0

    @property
    def spent(self) -> Budget:
        return Budget(requests=self.requests, tokens=self.tokens)

    def admit(self, messages: list[Message], max_tokens: int) -> object:
        prompt = self.counter.count(messages)
        need = prompt + max_tokens
        for scope, cap in self.left.items():
            if self.requests + self.in_flight + 1 > cap.requests or self.tokens + self.reserved + need > cap.tokens:
                raise BudgetReached(scope, self.spent)
        mean = self.seconds / self.timed if self.timed else 0.0
        now = time.monotonic()
        if now + mean > self.deadline:
            raise BudgetReached("wall", self.spent)
        self.in_flight += 1
        self.reserved += need
        return _Ticket(prompt, need, now)

    def settle(self, ticket: object, response: ModelResponse | None, attempts: int) -> None:
        assert isinstance(ticket, _Ticket)
        self.in_flight -= 1
        self.reserved -= ticket.reserved
        if response is None:
            tokens = ticket.reserved
        else:
            answer = self.counter.count([{"role": "assistant", "content": response.text or ""}])
            tokens = max(response.usage.total_tokens, ticket.prompt + min(answer, ticket.reserved - ticket.prompt))
        requests = max(1, attempts)
        seconds = time.monotonic() - ticket.started
        self.requests += requests
        self.tokens += tokens
        self.seconds += seconds
        self.timed += 1
        self.on_spend(requests, tokens, seconds)
