"""numpy imported with one BLAS thread, where scoring imports it.

Scoring's products are small (a thousand resamples times a few hundred documents): numpy's OpenBLAS
starting a second thread for them made the cached rerun of ``ibm_speech_likert`` ~0.1 s slower in
wall time and ~0.2 s in CPU (the thread's start and its spinning; docs/performance.md, log of
2026-12-02), and gives the same numbers (``scripts/check_identical_outputs.py``: identical files).
OpenBLAS reads its thread count once, when numpy loads it: the variable is set for that import
only, so no process debench starts inherits it.
"""

from __future__ import annotations

import os
import sys

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")
"""What OpenBLAS reads for its thread count: a user's setting of either is kept."""


def import_numpy_with_one_blas_thread() -> None:
    """Import numpy with OpenBLAS on one thread, unless numpy is imported already (its BLAS has its
    threads then) or the user chose a thread count."""
    if "numpy" in sys.modules or any(v in os.environ for v in THREAD_VARIABLES):
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import numpy  # noqa: F401
    finally:
        del os.environ["OPENBLAS_NUM_THREADS"]
