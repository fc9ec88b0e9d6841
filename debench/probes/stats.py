"""Per-probe statistics from pairs of (original, probed) verdicts, each rate with a Wilson CI.

* ``flip_rate`` — among pairs with both verdicts parsed, the share whose verdict (mapped back to
  the true sides) differs. A tie turning into a side is a flip.
* side shares (``original_shares`` / ``probed_shares``) — among parsed verdicts that name a side,
  the share for the side that spoke first, spoke last, or has the most words, each document
  read as it was presented (true labels). Compare with ``chance_share``.
* the probe's own effect — ``injection_success_rate`` / ``padded_side_gain``: among pairs whose
  original verdict was another side, the share whose probed verdict is the target side;
  ``trimmed_side_loss``: among pairs whose original verdict was the trimmed side, the share whose
  probed verdict is not.

Parse failures, errors and documents that did not fit the context are counted per side of the
pair (``original`` / ``probed``) and left out of every rate.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from debench.data.base import Doc
from debench.data.samples import SampleRecord
from debench.metrics.bootstrap import proportion_ci
from debench.probes.base import Probe, ProbedDoc, longest_side, sides_in_order
from debench.probes.report import ProbeEffect, ProbePair, ProbeSummary, Rate, SideShares, StatusCounts, VerdictView


def rate(flags: list[bool]) -> Rate:
    value, ci = proportion_ci(np.array(flags, dtype=float))
    return Rate(value=value, ci95=ci, n=len(flags), k=int(sum(flags)))


def _verdict(prediction: Any, probed: ProbedDoc | None) -> Any:
    top = prediction[0] if isinstance(prediction, list) and prediction else prediction
    return probed.true_label(top) if probed is not None else top


def view(doc: Doc, record: SampleRecord | None, probed: ProbedDoc | None = None) -> VerdictView:
    """The verdict on a presented document, with its positions, in true side labels."""
    m = probed.true_label if probed is not None else (lambda x: x)
    sides = [s.side for s in doc.speeches if s.side is not None]
    status = record.status if record is not None else "missing"
    raw = record.prediction if record is not None and record.status == "ok" else None
    return VerdictView(
        doc_id=doc.doc_id,
        status=status,
        raw_prediction=raw,
        verdict=_verdict(raw, probed) if raw is not None else None,
        first_speaker=m(sides[0]) if sides else None,
        last_speaker=m(sides[-1]) if sides else None,
        longest_side=m(longest_side(doc)) if longest_side(doc) is not None else None,
    )


def make_pair(original: Doc, probed: ProbedDoc, records: dict[str, SampleRecord]) -> ProbePair:
    a = view(original, records.get(original.doc_id))
    b = view(probed.doc, records.get(probed.doc.doc_id), probed)
    both = a.status == "ok" and b.status == "ok"
    return ProbePair(
        probe=probed.probe,
        source_id=original.doc_id,
        original=a,
        probed=b,
        flipped=(a.verdict != b.verdict) if both else None,
        target_side=probed.target_side,
        label_map=probed.label_map,
        note=probed.note,
    )


def _counts(views: list[VerdictView]) -> StatusCounts:
    c = StatusCounts()
    for v in views:
        setattr(c, v.status, getattr(c, v.status) + 1)
    return c


def _shares(views: list[VerdictView], sides_of: dict[str, list[str]]) -> SideShares:
    decided = [v for v in views if v.status == "ok" and v.verdict in sides_of[v.doc_id]]
    undecided = sum(1 for v in views if v.status == "ok" and v.verdict not in sides_of[v.doc_id])
    return SideShares(
        first_speaker=rate([v.verdict == v.first_speaker for v in decided]),
        last_speaker=rate([v.verdict == v.last_speaker for v in decided]),
        longest_side=rate([v.verdict == v.longest_side for v in decided if v.longest_side is not None]),
        n_undecided=undecided,
    )


def _effect(probe: Probe, pairs: list[ProbePair]) -> ProbeEffect | None:
    if probe.effect is None:
        return None
    both = [p for p in pairs if p.flipped is not None and p.target_side is not None]
    if probe.effect == "trimmed_side_loss":
        flags = [p.probed.verdict != p.target_side for p in both if p.original.verdict == p.target_side]
    else:
        flags = [p.probed.verdict == p.target_side for p in both if p.original.verdict != p.target_side]
    return ProbeEffect(name=probe.effect, description=probe.effect_description, rate=rate(flags))


def summarize(
    probe: Probe, key: str, pairs: list[ProbePair], originals: dict[str, Doc], n_not_applicable: int
) -> ProbeSummary:
    sides_of: dict[str, list[str]] = {}
    for p in pairs:
        true_sides = sides_in_order(originals[p.source_id])
        sides_of[p.original.doc_id] = true_sides
        sides_of[p.probed.doc_id] = true_sides
    n_sides = {len(sides_in_order(originals[p.source_id])) for p in pairs}
    return ProbeSummary(
        probe=key,
        description=probe.description,
        n_docs=len(pairs),
        n_not_applicable=n_not_applicable,
        original=_counts([p.original for p in pairs]),
        probed=_counts([p.probed for p in pairs]),
        flip_rate=rate([bool(p.flipped) for p in pairs if p.flipped is not None]),
        original_shares=_shares([p.original for p in pairs], sides_of),
        probed_shares=_shares([p.probed for p in pairs], sides_of),
        chance_share=1 / n_sides.pop() if len(n_sides) == 1 else None,
        effect=_effect(probe, pairs),
    )
