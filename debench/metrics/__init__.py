"""Metrics: the registry in ``base``, one module per family."""
