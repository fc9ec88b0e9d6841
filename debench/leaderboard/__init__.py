"""The leaderboard: validated submissions -> ``leaderboard.json`` and a static HTML page.

Layers, lowest first: ``files`` (what a submission folder may hold, size caps, reading without
following links, refusing planted keys), ``identity``, ``provenance`` (checks on one submission's
parts; replaying a Debatrix record's prompts) -> ``validate`` (one submission, or many with one row
per judge and task) -> ``rebuild`` (the model a recorded identity names), ``self_check`` (the
submitter's re-judging of a seeded sample, ``debench validate --spot-check``), ``trusted`` (the
endpoints the job runs models through), ``maintainers`` (budgets, allowlist), ``reproduce`` (the
leaderboard's own run of every document) -> ``verify`` (each entry's standing: verified,
self-reported or baseline) -> ``reported`` (the papers' numbers),
``board`` (the JSON's models) -> ``build`` (the ``Leaderboard``, with its ranks and tiers) -> ``page``
(the HTML: numbers, charts, Jinja2 templates in ``debench/templates/``) -> ``publish`` (build and
write both files, stage the Hub upload). ``pull_request`` compares a submission pull request's tree
with the base branch's. Numbers are compared and written by ``debench.core.numeric``.

May import: ``core``, ``task``, ``data``, ``models``, ``judging``, ``metrics``, ``scoring``, ``run``, ``view``.
"""
