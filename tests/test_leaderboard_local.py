"""The leaderboard's own run of the canonical judge it serves itself (``local/smollm2``, direct): the
job makes the model from the maintainers' settings, judges the speeches without the prompt cache,
stops at the entry's budget between two requests and records what it did not judge as not
completed (final); the run validates as an ordinary results file, the same answers as the
committed run of the same settings, and a run once made is never asked again."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATA_DIR
from lbhelp import MAINTAINERS, REPO, TRUSTED, samples_of

pytestmark = [pytest.mark.local_model, pytest.mark.slow]


def test_the_jobs_run_of_the_embedded_model_is_budgeted_final_and_validates(tmp_path: Path) -> None:
    from debench.data.samples import read_records
    from debench.leaderboard.canonical import canonical_judges
    from debench.leaderboard.estimate import prompt_counter
    from debench.leaderboard.maintainers import Budget, load_maintainers
    from debench.leaderboard.reproduce import BUDGET_STOP, ReproduceRun, reproduce
    from debench.leaderboard.trusted import load_trusted, trust
    from debench.leaderboard.validate import validate_submission
    from debench.run.task_lookup import installed_task

    maint = load_maintainers(MAINTAINERS)
    maint.budgets.per_entry = Budget(requests=2, tokens=10**6)
    (judge,) = [j for j in canonical_judges(maint) if j.id == "local/smollm2/direct"]
    t = trust(judge.identity, load_trusted(TRUSTED))
    assert t.ok and t.endpoints[0].id == "smollm2"
    task = installed_task("ibm_speech_likert")
    assert task is not None
    run = ReproduceRun(tmp_path / "reproduced", maint, tmp_path / "ledger.json", DATA_DIR)
    path = reproduce(judge, task, t.endpoints[0], run, prompt_counter(judge.allowed.model))
    assert path is not None and path.parent.name == "local__smollm2"
    # the canonical settings are the committed run's: the same file, the same first two answers
    committed = REPO / "leaderboard" / "reproduced" / "local__smollm2" / path.name
    assert committed.exists()
    records = read_records(samples_of(path))
    judged = [r for r in records if r.status in ("ok", "parse_failure")]
    assert len(records) == 631 and len(judged) == 2 and run.ledger.spent(judge=judge.id).requests == 2
    assert all(r.status == "not_completed" and BUDGET_STOP in (r.error or "") for r in records if r not in judged)
    before = {r.doc_id: r.prediction for r in read_records(samples_of(committed))}
    assert all(r.prediction == before[r.doc_id] for r in judged)
    again = reproduce(judge, task, t.endpoints[0], run, prompt_counter(judge.allowed.model))  # final: nothing asked
    assert again == path and run.ledger.spent(judge=judge.id).requests == 2
    rep = validate_submission(path, data_dir=DATA_DIR, job_run=True)
    assert rep.results.config["reproduction"] == {
        "judge": "local/smollm2/direct",
        "settings": {},
        "endpoints": ["smollm2"],
    }
    assert rep.left_out == 629
