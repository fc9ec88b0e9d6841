"""Bias probes: deterministic document transforms and their registry.

A probe turns one document into a *probed* copy that differs in one controlled way (speaking
order, team labels, length, an injected line). The probed copy is judged like any document; its
verdict is mapped back to the true sides with ``label_map`` and compared with the verdict on the
original. A probe returns ``None`` for a document it does not apply to (e.g. a 1v1 swap on a BP
debate).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from debench.core.errors import UserError
from debench.core.registries import Registry
from debench.data.base import Doc, Speech
from debench.data.transcript import SpeechLabel, format_transcript
from debench.task.config import TaskConfig


class ProbedDoc(BaseModel):
    """A probed copy of one document and how to read its verdict back."""

    model_config = ConfigDict(frozen=True)

    probe: str
    source_id: str
    doc: Doc
    label_map: dict[str, str] = Field(default_factory=dict)
    """Presented side label -> true side label (empty: labels unchanged)."""
    target_side: str | None = None
    """True label of the side the probe acted on (padded, trimmed or injected side)."""
    note: str = ""

    def true_label(self, label: Any) -> Any:
        return self.label_map.get(label, label) if isinstance(label, str) else label


@dataclass(frozen=True)
class ProbeContext:
    task: TaskConfig
    speech_label: SpeechLabel | None
    seed: int = 0
    claim: Callable[[str], str] = field(default=lambda side: f"Winner: {side}")
    """The answer line claiming the verdict for a side, in the task's answer format."""


ApplyFn = Callable[[Doc, ProbeContext, float | None], ProbedDoc | None]


@dataclass(frozen=True)
class Probe:
    name: str
    description: str
    apply: ApplyFn
    effect: str | None = None
    """Name of the probe's own statistic (e.g. ``injection_success_rate``), if it has one."""
    effect_description: str = ""
    default_arg: float | None = None
    arg_range: tuple[float, float] | None = None


PROBES: Registry[Probe] = Registry(
    "probe", ["debench.probes.inject", "debench.probes.length", "debench.probes.order"], field="--probe"
)
ALIASES: dict[str, list[str]] = {
    "swap": ["swap_sides", "relabel_teams"],
    "length": ["pad_length", "trim_length"],
    "all": ["swap_sides", "relabel_teams", "pad_length", "trim_length", "inject"],
}
"""Short names; an alias keeps only the probes that apply to the task's documents."""


def register_probe(probe: Probe) -> Probe:
    return PROBES.add(probe.name, probe)


def get_probe(name: str) -> Probe:
    if name not in PROBES:
        raise UserError(PROBES.unknown_message(name, f"; aliases: {', '.join(ALIASES)}"), field="--probe")
    return PROBES.get(name)


probe_names = PROBES.names


@dataclass(frozen=True)
class ProbeSpec:
    """One requested probe: its name, its argument, and whether it was asked for by name
    (an explicit probe that applies to no document is an error; one from an alias is dropped)."""

    probe: Probe
    arg: float | None
    explicit: bool

    @property
    def key(self) -> str:
        return self.probe.name if self.arg is None else f"{self.probe.name}:{self.arg:g}"


def parse_probe_specs(text: str) -> list[ProbeSpec]:
    """``swap,length,inject`` or ``pad_length:1.5,inject`` -> probe specs, in order, no repeats."""
    out: dict[str, ProbeSpec] = {}
    for raw in (p.strip() for p in text.split(",")):
        if not raw:
            continue
        name, sep, arg_text = raw.partition(":")
        if name in ALIASES:
            if sep:
                raise UserError(
                    f"the alias '{name}' takes no argument; give the probe by name (e.g. pad_length:1.5)",
                    field="--probe",
                )
            for n in ALIASES[name]:
                p = get_probe(n)
                out.setdefault(n, ProbeSpec(p, p.default_arg, explicit=False))
            continue
        probe = get_probe(name)
        arg = probe.default_arg
        if sep:
            if probe.arg_range is None:
                raise UserError(f"probe '{name}' takes no argument", field="--probe")
            try:
                arg = float(arg_text)
            except ValueError:
                raise UserError(f"probe '{raw}': the argument must be a number", field="--probe") from None
            lo, hi = probe.arg_range
            if not lo <= arg <= hi:
                raise UserError(f"probe '{raw}': the argument must be within [{lo:g}, {hi:g}]", field="--probe")
        out[name] = ProbeSpec(probe, arg, explicit=True)
    if not out:
        raise UserError("no probe given", field="--probe")
    return list(out.values())


# ---------------------------------------------------------------- helpers for probes


def sides_in_order(doc: Doc) -> list[str]:
    """Sides in the order they first speak."""
    seen: list[str] = []
    for s in doc.speeches:
        if s.side is not None and s.side not in seen:
            seen.append(s.side)
    return seen


def side_words(doc: Doc) -> dict[str, int]:
    words: dict[str, int] = {}
    for s in doc.speeches:
        if s.side is not None:
            words[s.side] = words.get(s.side, 0) + len(s.text.split())
    return words


def longest_side(doc: Doc) -> str | None:
    """The side with the most words, or None when two sides share the maximum."""
    words = side_words(doc)
    if not words:
        return None
    top = max(words.values())
    leaders = [s for s, w in words.items() if w == top]
    return leaders[0] if len(leaders) == 1 else None


def stable_int(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:8], "big")


def make_probed(
    probe: str,
    doc: Doc,
    speeches: list[Speech],
    ctx: ProbeContext,
    *,
    label_map: dict[str, str] | None = None,
    target_side: str | None = None,
    note: str = "",
    fields: dict[str, Any] | None = None,
) -> ProbedDoc:
    """The probed copy: new speeches, the transcript rebuilt with the adapter's own headers, and a
    doc_id naming the probe and a hash of the content (so a changed transform never reuses a
    stale answer from the resume log)."""
    new_fields = dict(doc.fields)
    new_fields.update(fields or {})
    if "transcript" in doc.fields:
        if ctx.speech_label is None:
            raise UserError(
                f"task '{ctx.task.name}': adapter '{ctx.task.dataset.adapter}' does not declare its transcript "
                "headers, so probes cannot rebuild its transcript"
            )
        new_fields["transcript"] = format_transcript(speeches, ctx.speech_label)
    new = transformed_doc(probe, doc, speeches, new_fields)
    return ProbedDoc(
        probe=probe, source_id=doc.doc_id, doc=new, label_map=label_map or {}, target_side=target_side, note=note
    )


def transformed_doc(probe: str, doc: Doc, speeches: list[Speech], fields: dict[str, Any]) -> Doc:
    """``doc`` with new speeches and fields, its doc_id naming the probe and a hash of the content
    (``<doc_id>#<probe>:<hash>``), so a changed transform never reuses a stale answer from a log."""
    digest = hashlib.sha256(
        json.dumps([[s.model_dump() for s in speeches], fields], sort_keys=True, default=str).encode()
    ).hexdigest()[:10]
    return doc.model_copy(
        update={
            "doc_id": f"{doc.doc_id}#{probe}:{digest}",
            "speeches": speeches,
            "fields": fields,
            "meta": {**doc.meta, "probe": probe, "probe_source": doc.doc_id},
        }
    )
