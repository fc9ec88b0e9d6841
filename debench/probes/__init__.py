"""Bias probes: transformed copies of debates that expose position, label, length and injection bias.

May import: ``core``, ``task``, ``data``, ``models``, ``judging``, ``metrics``, ``scoring``, ``run``.
"""
