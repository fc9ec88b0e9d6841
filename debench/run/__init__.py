"""Running a task: task files read and checked (``task_files``), names resolved to files
(``task_lookup``), jobs run concurrently with their log, cache and retries (``runner``), one task
evaluated from data to results file (``pipeline``), and two runs compared (``compare_runs``).

May import: ``core``, ``task``, ``data``, ``models``, ``judging``, ``metrics``, ``scoring``.
"""
