"""The leaderboard: validated submissions -> ``leaderboard.json`` and a static HTML page.

A rank is the leaderboard's own number: the refresh job runs each allowlisted entry itself on
every document (docs/leaderboard.md). Modules, lowest first:

* one submission, validated (``validate``: the order of the checks; ``validate_all``: one row per
  judge and task): ``files`` (what a folder may hold, size caps, reading without following links,
  refusing planted keys), ``results_file`` (the results file on its own), ``task_binding`` (the
  installed task it is bound to), ``real_data`` (the real data, loaded once), ``identity`` (model
  identity, method, fingerprint), ``samples_log`` (the samples log, line by line),
  ``provenance`` (where each prediction came from) with ``replay`` (a Debatrix record's prompts),
  ``recomputed_numbers`` (the numbers against their recomputation), ``same_judge`` (one judge,
  one row), ``entry_rules`` (one results file per task, no control character in a name);
* the maintainers' files: ``maintainer_files`` (the one YAML loader), ``maintainers`` (budgets,
  allowlist, overall task set), ``trusted`` (the endpoints the job runs models through);
* the leaderboard's own run: ``allowlist_checks`` (allowlisted? refused at the gate? what it
  costs), ``rebuild`` (the model a recorded identity names), ``reproduce`` (the run of every
  document, within budget), ``compare`` (submitted against reproduced), ``queue`` (merge order),
  ``verify`` (each entry's standing: verified, self-reported or baseline); ``self_check`` is the
  submitter's own re-judging (``debench validate --spot-check``), which ranks nothing;
* the page: ``reported`` (the papers' numbers), ``board`` (the JSON's models), ``ranking`` (ranks,
  tiers, overall ranks), ``build`` (the ``Leaderboard``), ``page`` (the HTML: numbers, charts,
  Jinja2 templates in ``debench/templates/``), ``public_text`` (what is printed or published),
  ``publish`` (build and write both files, stage the Hub upload);
* ``pull_request``: a submission pull request's tree against the base branch's.

Numbers are compared and written by ``debench.core.numeric``.

May import: ``core``, ``task``, ``data``, ``models``, ``judging``, ``metrics``, ``scoring``, ``run``, ``view``.
"""
