"""The leaderboard: validated submissions -> ``leaderboard.json`` and a static HTML page.

Layers, lowest first: ``compare``, ``planted_keys``, ``files`` (what a submission folder may hold,
size caps, reading without following links), ``identity``, ``provenance`` (checks on one
submission's parts) -> ``validate`` (one submission) -> ``collect`` (many, one row per judge and
task) -> ``trusted`` (the allowlist of endpoints), ``spot_check`` (re-judging a seeded sample),
``spot_record`` (the leaderboard's spot-check record, checked at every build) -> ``verify`` (each
entry's standing: verified, self-reported or baseline) -> ``reported`` (the papers' numbers),
``board`` (the JSON's models), ``ranking`` -> ``build`` (the ``Leaderboard``) -> ``display``,
``plots``, ``page`` (the HTML, Jinja2 templates in ``templates/``) -> ``publish`` (build and write
both files, stage the Hub upload). ``pull_request`` compares a submission pull request's tree with
the base branch's.
"""
