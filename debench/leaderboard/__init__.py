"""The leaderboard: validated submissions -> ``leaderboard.json`` and a static HTML page.

A rank is the leaderboard's own number: the refresh job runs each canonical judge (an allowlisted
model × a judge method, with the maintainers' settings) itself on every document, within budgets
it counts itself, and ranks one row per judge; a submission nominates a judge and its own numbers
are compared with that row (docs/leaderboard.md). Modules, lowest first:

* one submission, validated (``validate``: the order of the checks; ``validate_all``, and
  ``one_row_per_judge`` for the judges that are not canonical): ``files`` (what a folder may hold,
  size, line, blank-line and nesting ceilings, reading without following links, refusing planted
  keys), ``results_file`` (the results file on its own), ``task_binding`` (the installed task it
  is bound to, the ceiling on bootstrap resamples), ``real_data`` (the real data, loaded once),
  ``identity`` (model identity, method, fingerprint), ``samples_log`` (the samples log, line by
  line, nothing but a record's fields), ``provenance`` (where each prediction came from) with
  ``replay`` (a Debatrix record's prompts), ``recomputed_numbers`` (the numbers against their
  recomputation), ``same_judge`` (one judge, one row), ``entry_rules`` (one results file per task,
  names that read as what they are); ``validation_record`` (each content validated once);
* the maintainers' files: ``maintainer_files`` (the one YAML loader), ``maintainers`` (canonical
  judges, budgets, overall task set), ``trusted`` (the endpoints the job runs models through);
* the leaderboard's own run: ``canonical`` (what a submission nominates, the gate's ceilings),
  ``estimate`` (the job's own count of a run's cost), ``allowance`` (a run's budgets, checked
  before every request), ``ledger`` (what every refresh spent), ``job_files`` (the files the job
  commits, read and written alike), ``reproduce`` (the run of every document), ``compare``
  (submitted against reproduced), ``queue`` (merge order), ``verify`` (each entry's standing:
  a canonical judge's row, a nomination, self-reported or baseline), ``job_probe`` (the job's
  memorization probe of each row's judge, within the same budgets), ``job_cards`` (each canonical
  judge's card, ``debench.card``, from the job's own runs; the page links it); ``rebuild`` and
  ``self_check`` are the submitter's own re-judging (``debench validate --spot-check``), which
  ranks nothing;
* the page: ``reported`` (the papers' numbers), ``board`` (the JSON's models), ``ranking`` (ranks,
  tiers, overall ranks), ``build`` (the ``Leaderboard``), ``page`` (the HTML: numbers, charts,
  Jinja2 templates in ``debench/templates/``), ``public_text`` (what is printed or published),
  ``publish`` (build and write both files, stage the Hub upload);
* ``pull_request``: a submission pull request's tree against the base branch's.

Numbers are compared and written by ``debench.core.numeric``.

May import: ``core``, ``task``, ``data``, ``models``, ``judging``, ``metrics``, ``scoring``, ``run``, ``probes``,
``card``, ``view``.
"""
