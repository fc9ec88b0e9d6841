"""The metadata-only copy of a public debate: what a judge that *remembers* the debate needs, and no speech.

DebateArt debates and the BP competition rounds are public pages with their results. A copy keeps
the motion (and a BP round's information slide), the debaters' names and sides, and says where the
debate was published and how many rounds it had; every speech's text is left out, with what a
debater wrote besides (a DebateArt debate's background, the instigator's own text), and the
transcript is replaced by that note. The task's own prompt, parser and grammar then ask who won, as for the full
debate. A judge that reads debates is at chance here (no better than the most frequent label); one
that answers better knows the outcome (``debench.probes.memorization``).

The copy's doc_id is ``<doc_id>#metadata_only:<content hash>`` (``probes.base.transformed_doc``):
its answers never mix with the full debate's.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from debench.data.base import Doc, Speech
from debench.probes.base import sides_in_order, transformed_doc
from debench.task.config import TaskConfig

PROBE = "metadata_only"


def _debateart(doc: Doc) -> str:
    sides = sides_in_order(doc)
    rounds = sum(1 for s in doc.speeches if sides and s.side == sides[0])
    first = f", {sides[0]} first" if sides else ""
    return (
        "It was published on debateart.com, whose readers voted on the winner; it ran "
        f"{rounds} round(s): {len(doc.speeches)} speeches{first}."
    )


def _bp_competition(doc: Doc) -> str:
    round_name = str(doc.meta.get("round") or "a knock-out round")
    return (
        f"It is a recorded British Parliamentary round: {round_name} (WUDC, EUDC or NAUDC), whose result the "
        "tournament published; eight speeches in the order OG, OO, OG, OO, CG, CO, CG, CO."
    )


@dataclass(frozen=True)
class Published:
    """Where an adapter's debates were published with their results."""

    where: Callable[[Doc], str]
    """A debate -> where it was published, in a sentence."""
    debater_fields: tuple[str, ...] = ()
    """Fields a debater wrote, left out with the speeches (DebateArt's background is the instigator's own
    text, often arguments); a BP information slide is the tournament's, part of the motion."""


PUBLISHED: dict[str, Published] = {
    "debateart": Published(_debateart, debater_fields=("info_slide",)),
    "bp_competition": Published(_bp_competition),
}
"""The adapters whose debates are public with their results."""

NOTE = (
    "[The speeches of this debate are not shown. {published} If you know this debate and its result, "
    "answer with that result; if you do not, give your best guess.]"
)


def published_refusal(task: TaskConfig) -> str | None:
    """None when the task's debates are a public record with their results; else why the probe does not apply."""
    if task.dataset.adapter not in PUBLISHED:
        return (
            f"task '{task.name}': its debates (adapter '{task.dataset.adapter}') are not a public record with "
            f"their results (those are: {', '.join(sorted(PUBLISHED))})"
        )
    return None


def metadata_only(doc: Doc, task: TaskConfig) -> Doc:
    """The copy of ``doc`` without its speeches' text (``published_refusal(task)`` must be None)."""
    published = PUBLISHED[task.dataset.adapter]
    speeches = [Speech(speaker=s.speaker, side=s.side, text="") for s in doc.speeches]
    note = NOTE.format(published=published.where(doc))
    fields = {**doc.fields, **dict.fromkeys(published.debater_fields, ""), "transcript": note}
    return transformed_doc(PROBE, doc, speeches, fields)
