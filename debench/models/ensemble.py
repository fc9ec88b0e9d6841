"""``--model a,b,c --ensemble mean|median|majority``: several judges answer; their parsed answers
are combined (rules in ``debench.models.aggregate``) and scored like any other judge's.

Every member is called with the same prompt through the run's ``debench.models.calls.Caller`` (the
response cache under the member's *own* identity, its own generation settings, the context check),
so a member's answers are shared with its single-model runs and with other ensembles. Each
member's raw answer, parsed value or parse failure, tokens and cache status go into the sample's
``steps``. A member whose prompt does not fit its context window sits the document out; when no
member fits, the sample is *not completed*. A member that fails after its retries makes the
sample an error (retried on resume; the members that answered are cached).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

from debench.core.entry_points import PluginIdentity
from debench.core.errors import UserError
from debench.data.transcript import debate_text
from debench.models.aggregate import check_aggregate, combine
from debench.models.base import ContextOverflow, Model, ModelResponse, Request, Usage
from debench.task.config import TaskConfig
from debench.task.parsing import parse_answer


class EnsembleModel(Model):
    kind = "ensemble"
    cacheable = False  # the members are cached one by one
    composite = True

    def __init__(self, members: list[Model], aggregate: str):
        if len(members) < 2:
            raise UserError("an ensemble needs at least two models (--model a,b[,c...])", field="--model")
        names = [m.name for m in members]
        if len(set(names)) != len(names):
            raise UserError("--model lists the same model twice", field="--model")
        self.members = members
        self.aggregate = aggregate
        self.name = f"ensemble-{aggregate}({','.join(names)})"
        self.default_concurrency = min(m.default_concurrency for m in members)

    def identity(self) -> dict[str, Any]:
        return {"name": self.name, "aggregate": self.aggregate, "members": [m.identity() for m in self.members]}

    def plugins(self) -> list[PluginIdentity]:
        return [p for m in self.members for p in m.plugins()]

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "aggregate": self.aggregate,
            "members": [m.describe() for m in self.members],
            "identity": self.identity(),
        }

    def check_ready(self) -> None:
        for m in self.members:
            m.check_ready()

    def prepare(self, docs: Iterable[Any], task: TaskConfig) -> None:
        check_aggregate(self.aggregate, task)
        for m in self.members:
            m.prepare(docs, task)

    async def generate(self, request: Request) -> ModelResponse:
        raise UserError(f"{self.name} answers through a caller (debench.models.calls.Caller)")

    async def _ask(self, caller: Any, member: Model, request: Request) -> dict[str, Any]:
        try:
            result = await caller.call(
                member, request.messages, request.generation, request.grammar_text, doc=request.doc, task=request.task
            )
        except ContextOverflow as exc:
            return {"step": "member", "member": member.name, "status": "not_completed", "error": str(exc)}
        r = result.response
        part: dict[str, Any] = {
            "step": "member",
            "member": member.name,
            "response": r.text,
            "prompt_tokens": r.usage.prompt_tokens,
            "completion_tokens": r.usage.completion_tokens,
            "cached_prompt_tokens": r.usage.cached_prompt_tokens,
            "cost_usd": r.cost_usd,
            "cached": result.cached,
            "attempts": 0 if result.cached or not member.makes_requests else r.attempts,
        }
        if r.direct:
            part.update(status="ok", prediction=r.prediction)
        else:
            assert request.task is not None
            parsed = parse_answer(r.text, request.task.parser, debate_text(request.doc) if request.doc else None)
            part.update(
                status="ok" if parsed.ok else "parse_failure", prediction=parsed.value, parse_error=parsed.reason
            )
        return part

    async def generate_with(self, caller: Any, request: Request) -> ModelResponse:
        if request.task is None:
            raise UserError(f"{self.name} judges task documents; it cannot take part in free-form generation")
        parts = await self._member_parts(caller, request)
        usage, cost, attempts = _spent(parts)
        values = [p["prediction"] for p in parts if p["status"] == "ok"]
        if not values:
            return ModelResponse(
                direct=True,
                parse_error="no member's answer could be parsed",
                parts=parts,
                usage=usage,
                cost_usd=cost,
                attempts=attempts,
            )
        prediction, raw = combine(self.aggregate, values, request.task)
        parts.append(
            {
                "step": "aggregate",
                "rule": self.aggregate,
                "n_members": len(values),
                "value": raw,
                "prediction": prediction,
            }
        )
        return ModelResponse(
            direct=True, prediction=prediction, parts=parts, usage=usage, cost_usd=cost, attempts=attempts
        )

    async def _member_parts(self, caller: Any, request: Request) -> list[dict[str, Any]]:
        """Every member's step, asked together; the first member's failure is raised, and a
        ``ContextOverflow`` when no member's context window fits the prompt."""
        outcomes = await asyncio.gather(*(self._ask(caller, m, request) for m in self.members), return_exceptions=True)
        failures = [o for o in outcomes if isinstance(o, BaseException)]
        if failures:
            raise failures[0]
        parts: list[dict[str, Any]] = [o for o in outcomes if isinstance(o, dict)]
        if all(p["status"] == "not_completed" for p in parts):
            raise ContextOverflow("; ".join(p["error"] for p in parts))
        return parts

    async def aclose(self) -> None:
        for m in self.members:
            await m.aclose()


def _spent(parts: list[dict[str, Any]]) -> tuple[Usage, float | None, int]:
    """The members' tokens, cost and requests. The cost is that of the members that asked their
    provider (a cached answer costs nothing now), None when one of those has no known price."""
    usage = Usage(
        prompt_tokens=sum(p.get("prompt_tokens", 0) for p in parts),
        completion_tokens=sum(p.get("completion_tokens", 0) for p in parts),
        cached_prompt_tokens=sum(p.get("cached_prompt_tokens", 0) for p in parts),
    )
    fresh = [p for p in parts if p["status"] != "not_completed" and not p["cached"]]
    prices = [p.get("cost_usd") for p in fresh]
    known = [float(c) for c in prices if c is not None]
    cost = float(sum(known)) if len(known) == len(prices) else None
    return usage, cost, sum(p.get("attempts", 0) for p in parts)
