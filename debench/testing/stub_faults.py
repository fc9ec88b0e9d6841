"""The stub server's fault injection (``debench.testing.stub_server``): which completion requests
fail, and how.

Faults are decided per completion request, in this order of precedence:

0. ``FaultPlan.refuse``: a request whose messages contain one of these texts is refused as malformed
   (a 400 ``invalid_request_error``, as a provider refuses one document's prompt), every time;
1. ``FaultPlan.script``: successive requests take the listed outcomes in order until the list is used up;
2. ``FaultPlan.fail_first_n_per_prompt``: the first N attempts of each distinct prompt get ``fail_kind``;
3. the rates (``rate_limit``, ``server_error``, ``drop``, ``slow``): one seeded draw per request, keyed on
   (seed, prompt key, attempt number of that prompt), so each prompt sees the same sequence of outcomes
   whatever order concurrent requests arrive in.

Otherwise the request succeeds.
"""

from __future__ import annotations

import hashlib
import itertools
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

Outcome = Literal["ok", "429", "500", "drop", "slow", "400", "401", "filtered"]
"""What the server does with one completion request (the values of ``FaultPlan.script``)."""
FaultKind = Literal["429", "500", "drop", "slow"]


class FaultPlan(BaseModel):
    """Which completion requests fail, and how. The default plan never fails.

    Rates are probabilities per request and must sum to at most 1. See the module docstring for the
    order in which ``script``, ``fail_first_n_per_prompt`` and the rates apply.
    """

    model_config = ConfigDict(extra="forbid")

    rate_limit: float = Field(default=0.0, ge=0.0, le=1.0, description="HTTP 429 with Retry-After")
    server_error: float = Field(default=0.0, ge=0.0, le=1.0, description="HTTP 500")
    drop: float = Field(default=0.0, ge=0.0, le=1.0, description="connection aborted, no response")
    slow: float = Field(default=0.0, ge=0.0, le=1.0, description="answer only after slow_seconds")
    seed: int = 0
    retry_after: str | None = Field(default="1", description="Retry-After header of a 429; None omits it")
    slow_seconds: float = Field(default=30.0, ge=0.0)
    script: list[Outcome] = Field(default_factory=list)
    fail_first_n_per_prompt: int = Field(default=0, ge=0)
    fail_kind: FaultKind = "429"
    refuse: list[str] = Field(default_factory=list, description="texts whose prompts get a 400, every time")

    @model_validator(mode="after")
    def _rates_sum_to_at_most_one(self) -> FaultPlan:
        if self.rate_limit + self.server_error + self.drop + self.slow > 1.0 + 1e-9:
            raise ValueError("fault rates must sum to at most 1")
        return self


def _unit_draw(*parts: object) -> float:
    """A deterministic number in [0, 1) derived from ``parts``."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


class FaultState:
    """The mutable side of a ``FaultPlan``: script cursor and attempts per prompt."""

    def __init__(self, plan: FaultPlan) -> None:
        self.plan = plan
        self._script_pos = 0
        self._attempts: dict[str, int] = {}
        self._thresholds = tuple(itertools.accumulate((plan.rate_limit, plan.server_error, plan.drop, plan.slow)))
        self._any_rate = self._thresholds[-1] > 0

    def decide(self, key: str, text: str = "") -> Outcome:
        """The outcome of the next attempt of the prompt ``key`` (its messages' ``text``)."""
        attempt = self._attempts.get(key, 0) + 1
        self._attempts[key] = attempt
        plan = self.plan
        if any(refused in text for refused in plan.refuse):
            return "400"
        if self._script_pos < len(plan.script):
            self._script_pos += 1
            return plan.script[self._script_pos - 1]
        if attempt <= plan.fail_first_n_per_prompt:
            return plan.fail_kind
        if self._any_rate:
            draw = _unit_draw(plan.seed, key, attempt)
            faults: tuple[Outcome, ...] = ("429", "500", "drop", "slow")
            for outcome, threshold in zip(faults, self._thresholds, strict=True):
                if draw < threshold:
                    return outcome
        return "ok"
