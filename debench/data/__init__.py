"""Documents: dataset adapters (one module per published format, registered in
``debench.data.base.ADAPTERS``; ``generic``: any table with a field mapping), loading local,
fetched, Hub or sample data, ``debench data fetch``, the prompts built from a document
(``prompts``), and the per-sample record every judge writes (``samples``).

May import: ``core``, ``task``.
"""
