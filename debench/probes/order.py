"""Order probes: who speaks first (1v1) and which label each position carries (BP).

``swap_sides`` (two-sided debates): the other side opens. Each side keeps its own speeches in
their own order; turns alternate starting with the side that spoke second (leftover speeches of
the side with more turns come last). Labels do not change — "pro" still argues for the motion —
so a verdict needs no mapping back. A judge that follows content keeps its verdict; a judge that
follows position flips.

``relabel_teams`` (BP): the speeches stay in their order but the four team labels are reversed
along the speaking order (OG<->CO, OO<->CG), in the headers, the speaker names and the speeches'
own mentions of the teams ("Opening Government", "OG"), so the team speaking last is presented
as Opening Government. Verdicts are mapped back to the true teams. A judge that follows position
keeps its (mapped) verdict; one that follows the label ("CO wins") flips. Role titles spoken in
the debate ("Prime Minister", "Whip") are left as they are, and the task's own description of
the BP order no longer matches the presented labels: both are cues the probe does not remove.
"""

from __future__ import annotations

import re

from debench.data.base import Doc, Speech
from debench.probes.base import Probe, ProbeContext, ProbedDoc, make_probed, register_probe, sides_in_order

BP_TEAMS = ("OG", "OO", "CG", "CO")
TEAM_NAMES = {
    "OG": "Opening Government",
    "OO": "Opening Opposition",
    "CG": "Closing Government",
    "CO": "Closing Opposition",
}
ROLES = {"OG": ("pm", "dpm"), "OO": ("lo", "dlo"), "CG": ("mg", "gw"), "CO": ("mo", "ow")}
"""DebateBench's speaker roles per team, in speaking order."""

_BY_NAME = {v.lower(): k for k, v in TEAM_NAMES.items()}
_TEAM_MENTION = re.compile(
    r"(?<![A-Za-z])(?i:(?:opening|closing)[ _](?:government|opposition))(?=s?(?![A-Za-z]))|\b(?:OG|OO|CG|CO)\b"
)


def swap_sides(doc: Doc, ctx: ProbeContext, arg: float | None) -> ProbedDoc | None:
    sides = sides_in_order(doc)
    if len(sides) != 2 or any(s.side is None for s in doc.speeches):
        return None
    first, second = sides
    queues = {side: [s for s in doc.speeches if s.side == side] for side in sides}
    order: list[Speech] = []
    turn = [second, first]
    i = 0
    while queues[first] or queues[second]:
        side = turn[i % 2]
        if queues[side]:
            order.append(queues[side].pop(0))
        i += 1
    return make_probed("swap_sides", doc, order, ctx, note=f"{second} speaks first, {order[-1].side} last")


def _styled(template: str, text: str) -> str:
    """``text`` in the letter case of ``template`` (UPPER, Title Case, Sentence case or lower)."""
    if template.isupper():
        return text.upper()
    if template.islower():
        return text.lower()
    words = re.split(r"[ _]", template)
    if all(w[:1].isupper() for w in words):
        return text.title()
    return text[:1].upper() + text[1:].lower()


def relabel_text(text: str, mapping: dict[str, str]) -> str:
    """Every mention of a BP team (full name or two-letter code) replaced by its new label."""

    def sub(m: re.Match[str]) -> str:
        found = m.group()
        if found in BP_TEAMS:
            return mapping.get(found, found)
        team = _BY_NAME[found.lower().replace("_", " ")]
        new = TEAM_NAMES[mapping.get(team, team)]
        if "_" in found:
            new = new.replace(" ", "_")
        return _styled(found, new)

    return _TEAM_MENTION.sub(sub, text)


def _relabel_speaker(speaker: str, mapping: dict[str, str]) -> str:
    for team, roles in ROLES.items():
        if speaker.lower() in roles:
            new_roles = ROLES[mapping[team]]
            return new_roles[roles.index(speaker.lower())]
    return relabel_text(speaker, mapping)


def relabel_teams(doc: Doc, ctx: ProbeContext, arg: float | None) -> ProbedDoc | None:
    sides = sides_in_order(doc)
    if sorted(sides) != sorted(BP_TEAMS):
        return None
    presented = {true: sides[len(sides) - 1 - i] for i, true in enumerate(sides)}  # true -> presented
    speeches = [
        Speech(
            speaker=_relabel_speaker(s.speaker, presented),
            side=presented[s.side or ""],
            text=relabel_text(s.text, presented),
        )
        for s in doc.speeches
    ]
    fields = {k: relabel_text(v, presented) for k, v in doc.fields.items() if isinstance(v, str) and k != "transcript"}
    label_map = {p: t for t, p in presented.items()}
    note = ", ".join(f"{t} shown as {p}" for t, p in presented.items())
    return make_probed("relabel_teams", doc, speeches, ctx, label_map=label_map, note=note, fields=fields)


register_probe(
    Probe(
        name="swap_sides",
        description="two-sided debates: the side that spoke second opens; each side keeps its speeches and their order",
        apply=swap_sides,
    )
)
register_probe(
    Probe(
        name="relabel_teams",
        description="BP debates: team labels reversed along the speaking order (OG<->CO, "
        "OO<->CG), verdicts mapped back",
        apply=relabel_teams,
    )
)
