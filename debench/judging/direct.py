"""``direct``: one prompt with the whole document, one answer, parsed by the task's parser."""

from __future__ import annotations

from typing import Any

from debench.data.base import Doc
from debench.data.prompts import Message, build_messages
from debench.data.samples import SampleRecord, Status
from debench.data.transcript import debate_text
from debench.judging.base import JudgeContext, register_method
from debench.models.calls import CallResult
from debench.task.parsing import parse_answer


@register_method("direct")
async def judge_direct(ctx: JudgeContext, doc: Doc) -> SampleRecord:
    messages = build_messages(ctx.task.prompt.system, ctx.task.prompt.user, doc, ctx.task.prompt.variables)
    result = await ctx.call(messages, doc)
    return record_from_response(ctx, doc, messages, result)


def record_from_response(ctx: JudgeContext, doc: Doc, messages: list[Message], result: CallResult) -> SampleRecord:
    r = result.response
    status: Status
    if r.direct:
        status = "ok" if r.parse_error is None else "parse_failure"
        value, reason = (r.prediction, None) if r.parse_error is None else (None, r.parse_error)
    else:
        parsed = parse_answer(r.text, ctx.task.parser, debate_text(doc))
        status = "ok" if parsed.ok else "parse_failure"
        value, reason = parsed.value, parsed.reason
    return SampleRecord(
        doc_id=doc.doc_id,
        status=status,
        prediction=value,
        response=r.text,
        parse_error=reason,
        target=doc.target,
        messages=messages if ctx.store_messages else None,
        prompt_tokens=r.usage.prompt_tokens,
        completion_tokens=r.usage.completion_tokens,
        cached_prompt_tokens=r.usage.cached_prompt_tokens,
        cost_usd=r.cost_usd,
        cached=result.cached or _all_parts_cached(r.parts),
        attempts=0 if result.cached else r.attempts,
        latency_s=round(result.latency_s, 4),
        steps=list(r.parts),
    )


def _all_parts_cached(parts: list[dict[str, Any]]) -> bool:
    """A composite answer (an ensemble) is cached when every part that was called came from the cache."""
    called = [p for p in parts if "cached" in p]
    return bool(called) and all(p["cached"] for p in called)
