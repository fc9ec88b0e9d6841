"""Judge methods: how a model is asked to judge one document (``direct``, ``debatrix-*``);
registered in ``debench.judging.base.METHODS``.

May import: ``core``, ``task``, ``data``, ``models``.
"""
