"""The leaderboard: validated submissions -> ``leaderboard.json`` and a static HTML page.

Layers, lowest first: ``compare``, ``planted_keys``, ``identity``, ``provenance`` (checks on one
submission's parts) -> ``validate`` (one submission) -> ``collect`` (many, one row per judge and
task) -> ``reported`` (the papers' numbers), ``board`` (the JSON's models), ``ranking`` ->
``build`` (the ``Leaderboard``) -> ``display``, ``plots``, ``page`` (the HTML, Jinja2 templates in
``templates/``) -> ``publish`` (write both files). ``pull_request`` checks what a submission pull
request may change.
"""

