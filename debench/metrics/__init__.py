"""Metrics: the registry in ``base``, one module per family, the bootstrap and the paired tests.

May import: ``core``, ``data``.
"""
