"""A metric computed on tiny made-up inputs: ``debench plugins --check``'s test of another package's
metric before any task uses it.

Two inputs of seven documents each, with the prediction shapes debench's parsers give most tasks:
Likert-like numbers and choice labels (``1``, ``2``, ``tie``). A metric passes when it computes on
one of them (a value, or NaN with its reason); it fails when it raises on both, or answers other
than ``Draws`` (``debench.metrics.base``). A metric of other predictions (mappings, lists) is
checked at its first use, on the task's first documents (``debench.scoring.scores``).
"""

from __future__ import annotations

import numpy as np

from debench.core.errors import UserError
from debench.data.base import Doc
from debench.metrics.base import Metric

SYNTHETIC: dict[str, tuple[list[object], list[object]]] = {
    "numbers": ([1, 2, 3, 4, 5, 3, 2], [1, 2, 4, 4, 5, 2, 2]),
    "labels": (["1", "2", "1", "2", "tie", "1", "2"], ["1", "2", "2", "2", "tie", "1", "1"]),
}
"""Input name -> (gold values, predictions)."""


def synthetic_problem(metric: Metric) -> str | None:
    """Why ``metric`` computes on none of the synthetic inputs (each input's one line), or None."""
    problems = []
    for name, (targets, predictions) in SYNTHETIC.items():
        docs = [Doc(doc_id=f"synthetic-{i}", target=t) for i, t in enumerate(targets)]
        preds = np.empty(len(predictions), dtype=object)
        preds[:] = predictions
        try:
            metric.value(metric.prepare(docs), preds)
        except UserError as exc:
            problems.append(f"on {name}: {exc}")
            continue
        return None
    return "; ".join(problems)
