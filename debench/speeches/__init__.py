"""Opening speeches written by a model and rated beside the IBM human-annotated speeches
(Debatable Intelligence §5.3).

May import: ``core``, ``task``, ``data``, ``models``, ``judging``, ``metrics``, ``scoring``, ``run``.
"""
