"""The registry of each plug-in group (imported only when a component is used or checked).

May import: ``core``, ``models``, ``judging``, ``metrics``, ``arena``.
"""

from __future__ import annotations

from typing import Any

from debench.core.registries import Registry


def registry_of(group: str) -> Registry[Any]:
    if group == "debench.models":
        from debench.models.kinds import MODEL_KINDS

        return MODEL_KINDS
    if group == "debench.metrics":
        from debench.metrics.base import METRICS

        return METRICS
    if group == "debench.methods":
        from debench.judging.base import METHODS

        return METHODS
    if group == "debench.arena_ratings":
        from debench.arena.ratings import RATINGS

        return RATINGS
    raise KeyError(group)
