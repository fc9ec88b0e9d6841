"""The leaderboard's own run through the embedded model it serves itself (``local/smollm2``): the
job rebuilds the model from the committed submission's identity, judges the speeches without the
prompt cache, stops at the entry's budget and records what it did not judge as not completed
(final); the run validates as an ordinary results file, and an entry whose metrics leave out
almost everything is shown but never ranked."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import DATA_DIR
from lbhelp import MAINTAINERS, TRUSTED, smollm2_results

pytestmark = [pytest.mark.local_model, pytest.mark.slow]


def test_the_jobs_run_of_the_embedded_model_is_budgeted_final_and_validates(smollm2: Path, tmp_path: Path) -> None:
    from debench.data.samples import read_records
    from debench.leaderboard.maintainers import Budget, load_maintainers
    from debench.leaderboard.reproduce import BUDGET_STOP, ReproduceRun, reproduce
    from debench.leaderboard.trusted import load_trusted, trust
    from debench.leaderboard.validate import validate_submission

    sub = validate_submission(smollm2_results(smollm2), data_dir=DATA_DIR)
    maint = load_maintainers(MAINTAINERS)
    maint.budgets.per_entry = Budget(requests=2, tokens=10**6)
    t = trust(sub.identity, load_trusted(TRUSTED))
    assert t.ok and t.endpoints[0].id == "smollm2"
    run = ReproduceRun(out_dir=tmp_path / "reproduced", maintainers=maint, data_dir=DATA_DIR, chunk=2)
    path = reproduce(sub, t.endpoints, run, lambda ident: None)
    records = read_records(path.parent / sub.samples_path.name)
    judged = [r for r in records if r.status in ("ok", "parse_failure")]
    assert len(records) == 631 and len(judged) == 2 and run.spent.requests == 2
    assert all(r.status == "not_completed" and BUDGET_STOP in (r.error or "") for r in records if r not in judged)
    submitted = {r.doc_id: r.prediction for r in sub.records}
    assert [r.doc_id for r in judged] == [r.doc_id for r in sub.records[:2]]
    assert all(r.prediction == submitted[r.doc_id] for r in judged)  # the first two speeches: as submitted
    again = reproduce(sub, t.endpoints, run, lambda ident: None)  # final: nothing is asked again
    assert again == path and run.spent.requests == 2
    rep = validate_submission(path, data_dir=DATA_DIR, job_run=True)
    assert rep.results.config["reproduction"]["of"] == f"local__smollm2/{sub.results_path.name}"
    assert rep.left_out == 629
