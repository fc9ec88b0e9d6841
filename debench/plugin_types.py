"""The interface of each plug-in group, in one place (docs/plugins.md has a complete example of each).

* ``debench.models`` -> a ``ModelKind`` (the entry's name is the model-string prefix), making models
  from a ``ModelRequest``;
* ``debench.metrics`` -> a ``Metric`` (the entry's name is what a task lists under ``metrics:``), or
  a module that registers one with ``register_metric`` / ``register_sum_metric``; the arguments it
  takes are declared by a ``MetricArgs`` subclass (``Metric.params``);
* ``debench.methods`` -> a ``JudgeMethod``: ``async (JudgeContext, Doc) -> SampleRecord``;
* ``debench.arena_ratings`` -> a ``RatingMethod`` (``debench arena rank --rating NAME``).

Each is defined beside its registry; this module gathers them for a plug-in's author.

May import: ``core``, ``models``, ``judging``, ``metrics``, ``arena``.
"""

from __future__ import annotations

from debench.arena.ratings import RatingMethod
from debench.judging.base import JudgeContext, JudgeMethod
from debench.metrics.base import Metric, register_metric, register_sum_metric
from debench.metrics.params import MetricArgs
from debench.models.kinds import ModelKind, ModelRequest

__all__ = [
    "JudgeContext",
    "JudgeMethod",
    "Metric",
    "MetricArgs",
    "ModelKind",
    "ModelRequest",
    "RatingMethod",
    "register_metric",
    "register_sum_metric",
]
