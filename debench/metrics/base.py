"""The metric interface and registry.

A metric is computed in two steps so that bootstrap resampling stays cheap:

* ``prepare(docs, **args)`` runs once per scoring and builds whatever the metric needs from the
  gold data (targets, annotator tables, ...);
* ``compute(state, preds, idx)`` returns the value on the documents at positions ``idx``
  (``idx`` is ``arange(n)`` for the point estimate, a resample with replacement for the
  bootstrap). ``preds`` is a numpy object array aligned with ``docs``. It returns a float, or
  ``None`` when the metric is undefined (e.g. a correlation with a constant judge).

Most metrics are "simple": a pure function of aligned predictions and targets, declared with
``@simple_metric``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from debench.data.base import Doc
from debench.metrics.names import BUILTIN, STATUS_METRICS  # noqa: F401 - STATUS_METRICS: re-exported
from debench.registries import Registry

Prepare = Callable[..., Any]
Compute = Callable[[Any, np.ndarray, np.ndarray], float | None]


@dataclass(frozen=True)
class Metric:
    name: str
    prepare: Prepare
    compute: Compute
    higher_is_better: bool = True
    description: str = ""
    # Whether the bootstrap resamples documents for this metric (False for whole-run
    # descriptive rates such as completion, which are still given a CI the same way).
    defaults: dict[str, Any] = field(default_factory=dict)


METRICS: Registry[Metric] = Registry("metric", BUILTIN)


def register_metric(metric: Metric) -> Metric:
    return METRICS.add(metric.name, metric)


get_metric = METRICS.get
metric_names = METRICS.names


def simple_metric(
    name: str, *, higher_is_better: bool = True, description: str = ""
) -> Callable[[Callable[..., float | None]], Callable[..., float | None]]:
    """Register ``fn(preds, targets, **args) -> float | None`` as a metric.

    ``preds`` and ``targets`` are numpy object arrays of equal length (already resampled).
    """

    def deco(fn: Callable[..., float | None]) -> Callable[..., float | None]:
        def prepare(docs: Sequence[Doc], **args: Any) -> tuple[np.ndarray, dict[str, Any]]:
            targets = np.empty(len(docs), dtype=object)
            targets[:] = [d.target for d in docs]
            return targets, args

        def compute(state: Any, preds: np.ndarray, idx: np.ndarray) -> float | None:
            targets, args = state
            return fn(preds[idx], targets[idx], **args)

        register_metric(
            Metric(
                name=name,
                prepare=prepare,
                compute=compute,
                higher_is_better=higher_is_better,
                description=description or (fn.__doc__ or "").strip().splitlines()[0],
            )
        )
        return fn

    return deco


def finite_or_none(x: float | None) -> float | None:
    """Normalize NaN/inf to None so that results never hold a non-number."""
    if x is None:
        return None
    x = float(x)
    return x if np.isfinite(x) else None
