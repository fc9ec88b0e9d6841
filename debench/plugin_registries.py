"""The registry of each plug-in group (imported only when a component is used or checked), and the
check ``debench plugins --check`` runs on each component.

May import: ``core``, ``models``, ``judging``, ``metrics``, ``arena``.
"""

from __future__ import annotations

from typing import Any

from debench.core.entry_points import Declared
from debench.core.errors import UserError
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


def component_problem(item: Declared) -> str | None:
    """Why a component cannot be used (None: it can): it does not import, or does not fit its
    group's interface (a judge method must be an ``async def``); another package's metric must also
    compute on a tiny synthetic input (``debench.metrics.synthetic``)."""
    try:
        component = registry_of(item.group).get(item.name)
    except UserError as exc:
        return str(exc)
    if item.group == "debench.metrics" and not item.ours:
        from debench.metrics.synthetic import synthetic_problem

        return synthetic_problem(component)
    return None
