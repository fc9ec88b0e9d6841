"""Judge methods: how a model is asked to judge one document (``direct``, ``debatrix-*``)."""

import importlib

_BUILTIN = ["debench.judging.direct", "debench.judging.debatrix"]


def load_builtin_methods() -> None:
    for mod in _BUILTIN:
        importlib.import_module(mod)
