"""``ask-twice``: the direct method, asking once more when the first answer cannot be parsed
(both answers are kept in the sample's steps)."""

from __future__ import annotations

from debench.plugin_types import Doc, JudgeContext, SampleRecord, build_messages, record_from_response


async def ask_twice(ctx: JudgeContext, doc: Doc) -> SampleRecord:
    messages = build_messages(ctx.task.prompt.system, ctx.task.prompt.user, doc, ctx.task.prompt.variables)
    first = record_from_response(ctx, doc, messages, await ctx.call(messages, doc))
    if first.status != "parse_failure":
        return first
    second = record_from_response(ctx, doc, messages, await ctx.call(messages, doc))
    second.steps = [{"first_answer": first.response, "first_parse_error": first.parse_error}, *second.steps]
    return second
