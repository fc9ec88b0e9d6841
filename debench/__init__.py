"""debench: how well do language models judge debates?

The Python API (``debench.api``): ``evaluate``, ``aevaluate``, ``score``, ``load_results``, and the
objects they take (``JudgeSpec``, ``EvalOptions``, ``ScoreOptions``). They are imported on first use, so
``import debench`` (and the CLI's start-up) stays cheap.

May import: ``api``, ``core``.
"""

import os as _os
from typing import Any as _Any

# litellm fetches a remote cost map at import unless told otherwise; debench must work offline.
_os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
# litellm loads a `.env` file (searched upward from the working directory) when imported in its
# default "DEV" mode, so a `.env` could silently change the endpoint and key of a run. debench does
# not load `.env`: the environment the user started it with is what it uses (docs/running.md).
_os.environ.setdefault("LITELLM_MODE", "PRODUCTION")

__all__ = ["EvalOptions", "JudgeSpec", "ScoreOptions", "aevaluate", "evaluate", "load_results", "score"]


def __getattr__(name: str) -> _Any:
    if name == "__version__":
        from debench.core.version import debench_version

        return debench_version()
    if name in __all__:
        from debench import api

        return getattr(api, name)
    raise AttributeError(f"module 'debench' has no attribute {name!r}")
