"""The debate arena (Moniri, Hassani & Dobriban): models debate topics, judges decide, and the
judgments are ranked: the protocol, debate jobs, the round robin and the adaptive schedule, the
ranking statistics (Bradley–Terry, bootstraps, style control, self-preference) and the
``--rating`` methods.

May import: ``core``, ``task``, ``data``, ``models``, ``judging``, ``metrics``, ``scoring``, ``run``.
"""
