"""The judge card (``debench card``): one answer to "can I trust this model to judge debates?".

A card reads the files of the runs ``eval``, ``eval --repeats``, ``probe`` and the memorization probe
wrote for one judge (``build``: from existing files, as the leaderboard's job would; ``run``: runs
what is missing through the same pipeline first) and holds one section per criterion — agreement,
replaceability, consistency, bias, memorization, cost — each row with its value, 95% CI and n, the
threshold it is held to with its source (``thresholds``), and a status with the reason, then an
overall line (``overall``). ``model`` is the versioned ``card.json``; ``page`` writes ``card.md`` and
``card.html`` (through ``view.pages``); ``compare`` sets two cards side by side.

May import: ``core``, ``task``, ``data``, ``models``, ``metrics``, ``scoring``, ``run``, ``probes``, ``view``.
"""
