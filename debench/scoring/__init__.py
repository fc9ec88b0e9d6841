"""Scoring a run: parsed predictions -> every metric with its CI (``scores``), predictions files
read as records, the results file (``results``), the summary of a group run, and the consistency
of repeated runs (``repeats``).

May import: ``core``, ``task``, ``data``, ``metrics``.
"""

from debench.core.blas_threads import import_numpy_with_one_blas_thread

import_numpy_with_one_blas_thread()
