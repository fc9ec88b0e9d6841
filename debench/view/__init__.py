"""The HTML pages: the one Jinja2 environment and stylesheet (``pages``; templates in
``debench/templates/``), and ``debench view``'s self-contained reports of a run and of an arena run
(``model``, ``arena``, ``render``).

May import: ``core``, ``task``, ``data``, ``models``, ``judging``, ``metrics``, ``scoring``, ``run``, ``arena``.
"""
