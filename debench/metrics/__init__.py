"""Metrics: registry in ``base``, one module per family."""

import importlib

_BUILTIN = [
    "debench.metrics.speech_rating",
    "debench.metrics.classification",
    "debench.metrics.debatebench",
]


def load_builtin_metrics() -> None:
    for mod in _BUILTIN:
        importlib.import_module(mod)
