"""Dataset adapters: one module per published format."""

import importlib

_BUILTIN = [
    "debench.data.ibm_speeches",
    "debench.data.debateart",
    "debench.data.bp_competition",
    "debench.data.debatebench",
]


def load_builtin_adapters() -> None:
    for mod in _BUILTIN:
        importlib.import_module(mod)
