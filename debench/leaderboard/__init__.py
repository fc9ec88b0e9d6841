"""The leaderboard: validated submissions -> ``leaderboard.json`` and a static HTML page.

``validate`` recomputes every number of a submission from its per-sample log; ``build`` gathers
the validated ones into the versioned JSON; ``page`` renders the self-contained HTML.
"""

from debench.leaderboard.validate import ValidatedSubmission, find_results_files, validate_submission

__all__ = ["ValidatedSubmission", "find_results_files", "validate_submission"]
