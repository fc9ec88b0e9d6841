"""Issue 41's attacks, rebuilt from its text on bp_top_team (22 real debates): an OpenAI stand-in on
127.0.0.1 (debench's stub server) answers for the provider, submissions are ``debench eval`` runs
through it, and the real ``scripts/refresh_leaderboard.py --reproduce`` is the refresh job (with the
maintainers' key and the stub as its OpenAI endpoint). Whatever the nominations' settings, names
and folders, the job runs each canonical judge once with the maintainers' settings, ranks one row
for it, and shows every nomination's numbers as its claim beside that row; it spends what it
counted, within its budgets, and the queue behind an entry it cannot afford moves."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA_DIR, real_data_dir
from lbhelp import (
    MAINTAINERS,
    REPO,
    copy_submission,
    edit_json,
    edit_records,
    entries_of,
    gate,
    refresh_board,
    rescore,
    stub_eval,
    submissions_tree,
    variant,
    without_endpoint,
)

from debench.testing.stub_server import StubServer

pytestmark = pytest.mark.slow  # each runs a refresh over several validated submissions
MODEL = "gpt-4o-mini-2024-07-18"
JUDGE = f"{MODEL}/direct"
TASK = "bp_top_team"
TEAMS = ("OG", "OO", "CG", "CO")


def judge(request: dict[str, Any]) -> str:
    """The provider's model, as the stub plays it: a verdict that depends on the whole prompt (and
    Debatrix's notes and scores)."""
    last = request["messages"][-1]["content"]
    if 'Answer only "Score: N"' in last:
        return "Score: 6"
    if "Winner: OG" in last:
        key = hashlib.sha256(json.dumps(request["messages"], sort_keys=True).encode()).digest()[0]
        return f"A close debate.\nWinner: {TEAMS[key % 4]}"
    return "A note on the speech."


@pytest.fixture
def provider(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    """The stand-in for OpenAI: every model string reaches it with the key in the environment."""
    with StubServer(responder=judge) as srv:
        monkeypatch.setenv("OPENAI_BASE_URL", srv.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-the-maintainers-key")
        yield srv


def _metadata_only(request: dict[str, Any]) -> bool:
    """A prompt of the memorization probe: the debate without its speeches."""
    return "The speeches of this debate are not shown" in json.dumps(request["messages"])


def _vendor_run(out: Path, *extra: str) -> Path:
    """A vendor's honest run of the model on bp_top_team (the stub answering as the provider's
    model), recorded as a run of OpenAI's public API: no api_base."""
    real_data_dir("debatrix_panelbench")
    with pytest.MonkeyPatch.context() as mp, StubServer(responder=judge) as srv:
        mp.setenv("OPENAI_API_KEY", "sk-the-vendors-key")
        results = stub_eval(out, srv.base_url, TASK, MODEL, *extra)
    without_endpoint(results)
    return results


@pytest.fixture(scope="module")
def honest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _vendor_run(tmp_path_factory.mktemp("honest"))


def _forged(honest: Path, dest: Path) -> Path:
    """The squatter's folder: the vendor's plain model with every answer set to the gold team (the
    first of the teams that shared the win)."""
    res, samples = copy_submission(honest, dest)

    def gold(i: int, r: dict[str, Any]) -> None:
        team = r["target"][0] if isinstance(r["target"], list) else r["target"]
        r.update(prediction=team, response=f"Winner: {team}", status="ok", parse_error=None)

    edit_records(samples, gold)
    rescore(res)
    return res


def _queue(lb: Path, *results: Path) -> None:
    entries = [f"{r.parent.name}/{r.name}" for r in results]
    (lb / "queue.json").write_text(json.dumps({"schema_version": "1.0", "entries": entries}))


def test_one_row_and_one_paid_run_per_canonical_judge_whatever_the_nominations(
    honest: Path, provider: StubServer, tmp_path: Path
) -> None:
    lb = tmp_path / "leaderboard"
    subs = lb / "submissions"
    squatter = _forged(honest, subs / "aaa_squatter")
    vendor, _ = copy_submission(honest, subs / "openai")
    clones = [
        variant(honest, subs / "clone_max_tokens", lambda i: i.update(generation={"max_tokens": 400})),
        variant(honest, subs / "clone_temperature", lambda i: i.update(generation={"temperature": 0})),
        variant(honest, subs / "clone_api_base", lambda i: i.update(api_base=["https://api.openai.com/v1/"])),
    ]
    hostile = {
        "stop": {"stop": ["Winner: CO"]},
        "temperature 2": {"temperature": 2},
        "seed 3": {"temperature": 1, "seed": 3},
        "top_p 1": {"top_p": 1},
    }
    for k, gen in enumerate(hostile.values()):
        variant(honest, subs / f"hostile{k}", lambda i, gen=gen: i.update(generation=gen))
    _queue(lb, squatter, vendor)  # the squatter merged first
    code, _, err, board = refresh_board(lb, "--reproduce")
    assert code == 0, err
    assert board["not_built"] == []  # nothing refused as a copy: the vendor's own entry included
    groups = entries_of(board, TASK)
    (row,) = groups["verified"]  # one ranked row for the judge, whoever nominated it
    assert row["judge"] == JUDGE and row["rank"] == 1 and row["submission"] is None
    assert row["canonical"]["settings"] == {} and row["canonical"]["endpoints"] == ["openai"]
    assert row["results_file"].startswith(f"reproduced/{MODEL}/")
    # one paid run: 22 requests, then the judge's memorization probe (22 metadata-only prompts), none
    # carrying a setting a submitter chose
    asked = provider.stats.requests
    assert len(asked) == 44 and sum(_metadata_only(r) for r in asked) == 22
    assert all("stop" not in r and "seed" not in r and "top_p" not in r for r in asked)
    assert {r.get("temperature") for r in asked} == {0.0} and {r["max_tokens"] for r in asked} == {400}
    by_folder = {e["submission"]: e for e in groups["self_reported"]}
    nominations = {"aaa_squatter", "openai", *(c.parent.name for c in clones)}
    assert sorted(row["canonical"]["nominations"]) == sorted(
        f"{f}/{by_folder[f]['results_file'].rsplit('/', 1)[1]}" for f in nominations
    )
    for folder in nominations:
        assert by_folder[folder]["nominates"] == JUDGE and by_folder[folder]["rank"] is None
    # the squatter's forged numbers are only its claim, far outside the noise; the vendor's agree
    forged = by_folder["aaa_squatter"]["comparison"]
    assert forged["submitted"] == 1.0 and forged["within_noise"] is False and forged["reproduced"] < 0.6
    same = by_folder["openai"]["comparison"]
    assert same["difference"] == 0 and same["agreement"] == 1 and same["within_noise"] is True
    assert row["metrics"]["accuracy"]["value"] == same["reproduced"]
    for k, what in enumerate(hostile):
        entry = by_folder[f"hostile{k}"]
        assert entry["nominates"] is None and what in entry["standing_reason"], entry["standing_reason"]
    # a run once made is final and paid once: the next refresh asks nothing
    before = len(provider.stats.requests)
    code, _, err, board = refresh_board(lb, "--reproduce")
    assert code == 0, err
    assert len(provider.stats.requests) == before and len(entries_of(board, TASK)["verified"]) == 1
    ledger = json.loads((lb / "ledger.json").read_text())
    assert [(ln["judge"], ln["purpose"], ln["requests"]) for ln in ledger["lines"]] == [
        (JUDGE, "reproduction", 22),
        (JUDGE, "memorization", 22),
    ]


def test_hostile_settings_under_a_competitors_name_are_never_run_nor_ranked(
    honest: Path, provider: StubServer, tmp_path: Path
) -> None:
    lb = tmp_path / "leaderboard"
    for k, gen in enumerate(({"temperature": 2}, {"temperature": 1, "seed": 5}, {"stop": ["Winner"]})):
        variant(honest, lb / "submissions" / f"competitor{k}", lambda i, gen=gen: i.update(generation=gen))
    code, _, err, board = refresh_board(lb, "--reproduce")
    assert code == 0, err
    groups = entries_of(board, TASK)
    assert groups["verified"] == [] and provider.stats.requests == []
    assert all("settings differ from the canonical judge" in e["standing_reason"] for e in groups["self_reported"])


def _pull_request(tmp_path: Path, results: Path, folder: str, merged: Any = None) -> tuple[int, str, str]:
    """The gate of a pull request adding ``results`` as ``folder`` to a base holding what ``merged`` puts there."""
    base = tmp_path / "base"
    (base / "leaderboard" / "submissions").mkdir(parents=True)
    if merged is not None:
        merged(base / "leaderboard" / "submissions")
    pr = tmp_path / "pr"
    shutil.copytree(base, pr)
    copy_submission(results, pr / "leaderboard" / "submissions" / folder)
    return gate(pr, base, tmp_path / "board")


def test_the_vendors_pull_request_after_a_squatters_is_accepted(honest: Path, tmp_path: Path) -> None:
    code, out, err = _pull_request(tmp_path, honest, "openai", lambda subs: _forged(honest, subs / "squatter"))
    assert code == 0, (out, err)
    assert "adds only leaderboard/submissions/openai/" in out


def test_an_honest_debatrix_submission_of_an_allowlisted_model_passes_the_gate(tmp_path: Path) -> None:
    """A Debatrix record sums the prompt tokens of its 106 steps: the gate used to compare that sum
    with the model's window (128,000 tokens) and refuse the run. (Debatrix-H, whose prompts carry
    the speeches so far, passes the window with the stub's count of words; the allowlist ranks the
    model with Debatrix-F, so this one is self-reported, and accepted.)"""
    results = _vendor_run(tmp_path / "run", "--method", "debatrix-h", "--limit", "1")
    recs = [json.loads(line) for line in (results.parent / json.loads(results.read_text())["samples_file"]).open()]
    assert all(len(r["steps"]) == 106 for r in recs) and max(r["prompt_tokens"] for r in recs) > 128_000
    code, out, err = _pull_request(tmp_path, results, "openai-debatrix")
    assert code == 0, (out, err)
    assert "ranked with the method(s) debatrix-f, direct (the maintainers' allowlist), not debatrix-h" in out


def test_a_refresh_spends_its_budgets_and_the_queue_behind_an_expensive_entry_moves(
    honest: Path, provider: StubServer, tmp_path: Path
) -> None:
    """A Debatrix nomination claiming almost no usage, queued first: the job's own estimate (2,332
    requests) is above one entry's budget, so it is never started and the entry behind it runs.
    Then two canonical judges under a per-refresh budget that holds one run: the first refresh runs
    one, the second the other; neither passes the refresh's budget."""
    lb = tmp_path / "leaderboard"
    dbx = _vendor_run(tmp_path / "dbx", "--method", "debatrix-f", "--limit", "1")
    edit_json(dbx, lambda d: d["usage"].update(n_requests=1, prompt_tokens=5, completion_tokens=5, total_tokens=10))
    expensive, _ = copy_submission(dbx, lb / "submissions" / "aaa_debatrix")
    mini, _ = copy_submission(honest, lb / "submissions" / "mini")
    big = variant(honest, lb / "submissions" / "big", lambda i: i.update(name="gpt-4o-2024-08-06"))
    edit_json(big, lambda d: d["model"].update(name="gpt-4o-2024-08-06"))
    _queue(lb, expensive, mini, big)
    text = MAINTAINERS.read_text().replace("requests: 4000\n", "requests: 30\n")  # per refresh: one run of 22
    maint = tmp_path / "maintainers.yaml"
    maint.write_text(text.replace("requests: 2000\n", "requests: 30\n"))  # per entry
    code, _, err, board = refresh_board(lb, "--reproduce", "--maintainers", str(maint))
    assert code == 0, err
    by_folder = {e["submission"]: e for e in entries_of(board, TASK)["self_reported"]}
    assert "never run: the leaderboard's estimate" in by_folder["aaa_debatrix"]["standing_reason"]
    assert "2,332 requests" in by_folder["aaa_debatrix"]["standing_reason"]  # not the 1 it claimed
    assert len(provider.stats.requests) == 22 and by_folder["mini"]["comparison"] is not None
    assert [w["judge"] for w in board["waiting"]] == ["gpt-4o-2024-08-06/direct"]
    assert "does not fit what is left of refresh's budget" in board["waiting"][0]["reason"]
    code, _, err, board = refresh_board(lb, "--reproduce", "--maintainers", str(maint))  # the next refresh
    assert code == 0, err
    assert len(provider.stats.requests) == 44 and board["waiting"] == []
    assert sorted(e["judge"] for e in entries_of(board, TASK)["verified"]) == ["gpt-4o-2024-08-06/direct", JUDGE]
    ledger = json.loads((lb / "ledger.json").read_text())["lines"]
    assert [ln["requests"] for ln in ledger] == [22, 22] and ledger[0]["refresh"] != ledger[1]["refresh"]


def test_a_run_stopped_by_the_refreshs_budget_is_resumed_not_paid_again(
    honest: Path, provider: StubServer, tmp_path: Path
) -> None:
    from debench.leaderboard.canonical import canonical_judges
    from debench.leaderboard.estimate import prompt_counter
    from debench.leaderboard.maintainers import load_maintainers
    from debench.leaderboard.real_data import REAL_DATA
    from debench.leaderboard.reproduce import ReproduceRun, records_by_doc, reproduce
    from debench.leaderboard.trusted import load_trusted, trust
    from debench.run.task_lookup import installed_task

    maint = load_maintainers(MAINTAINERS)
    maint.budgets.per_refresh.requests, maint.budgets.per_refresh.tokens = 10, 160_000
    (j,) = [j for j in canonical_judges(maint) if j.id == JUDGE]
    endpoint = trust(j.identity, load_trusted(REPO / "leaderboard" / "trusted_endpoints.yaml")).endpoints[0]
    task = installed_task(TASK)
    assert task is not None
    counter = prompt_counter(MODEL)
    first = ReproduceRun(tmp_path / "reproduced", maint, tmp_path / "ledger.json", DATA_DIR)
    assert reproduce(j, task, endpoint, first, counter) is None  # stopped between two requests: waits
    sent = len(provider.stats.requests)
    spent = first.ledger.spent(refresh=first.refresh)
    assert sent == spent.requests <= 10 and spent.tokens <= 160_000  # never past either budget
    samples = first.paths(j, task, REAL_DATA.get(task, DATA_DIR))[1]
    assert len(records_by_doc(samples)) == sent  # every answer paid for is kept: the requests under way finished
    maint.budgets.per_refresh.requests, maint.budgets.per_refresh.tokens = 4000, 6_000_000
    second = ReproduceRun(tmp_path / "reproduced", maint, tmp_path / "ledger.json", DATA_DIR)
    assert reproduce(j, task, endpoint, second, counter) is not None
    assert len(provider.stats.requests) == 22  # the documents judged before were not asked again


def test_the_judges_card_is_the_jobs_own_and_its_memorization_probe_waits_for_the_budget(
    honest: Path, provider: StubServer, tmp_path: Path
) -> None:
    """The squatter's forged nomination (accuracy 1.0) queues the judge; the job's run fits the
    refresh's budget, its memorization probe (22 more requests) does not: the card, built from the
    job's run and the committed baseline on the same documents, says memorization was not measured
    and why, and the page links it. The next refresh runs the probe within its budget, counted in
    the ledger, and the card reads its report."""
    subs = submissions_tree(tmp_path, TASK, ("baseline/random",))
    lb = subs.parent
    squatter = _forged(honest, subs / "aaa_squatter")
    _queue(lb, squatter)
    maint = tmp_path / "maintainers.yaml"
    text = MAINTAINERS.read_text().replace("requests: 4000\n", "requests: 30\n")  # per refresh: one run of 22
    maint.write_text(text.replace("requests: 2000\n", "requests: 30\n"))  # per entry
    code, _, err, board = refresh_board(lb, "--reproduce", "--maintainers", str(maint))
    assert code == 0, err
    (row,) = entries_of(board, TASK)["verified"]
    link = row["canonical"]["card"]
    assert (
        link["path"] == f"cards/{MODEL}/direct/card.html"
        and link["status"] == board_card(lb, link)["overall"]["status"]
    )
    assert f'href="{link["path"]}"' in (lb / "index.html").read_text()
    card = board_card(lb, link)
    (memorized,) = card["criteria"]["memorization"]["rows"]
    assert memorized["status"] == "not_measured" and "the probe waits" in memorized["reason"]
    assert "does not fit what is left of the refresh's budget" in memorized["reason"]
    assert len(provider.stats.requests) == 22  # the probe sent nothing
    # the card is the job's run: the row's numbers, the baseline beside them, never the squatter's claim
    (agreement,) = card["criteria"]["agreement"]["rows"]
    assert agreement["primary"]["number"]["value"] == row["metrics"]["accuracy"]["value"] < 0.6
    assert list(agreement["baselines"]) == ["baseline/random"]
    files = card["runs"][TASK]
    assert not any("aaa_squatter" in f for f in files) and "1.0" not in json.dumps(agreement["primary"])
    assert all((lb / link["path"]).parent.joinpath(f).resolve().is_file() for f in files)
    assert (lb / link["path"]).parent.joinpath(files[0]).resolve() == (lb / row["results_file"]).resolve()

    code, _, err, board = refresh_board(lb, "--reproduce", "--maintainers", str(maint))  # the next refresh
    assert code == 0, err
    probe = provider.stats.requests[22:]
    assert len(probe) == 22 and all(_metadata_only(r) for r in probe)
    assert all("stop" not in r and "seed" not in r and r.get("temperature") == 0.0 for r in probe)
    ledger = json.loads((lb / "ledger.json").read_text())["lines"]
    assert [(ln["purpose"], ln["requests"]) for ln in ledger] == [("reproduction", 22), ("memorization", 22)]
    (row,) = entries_of(board, TASK)["verified"]
    (memorized,) = board_card(lb, row["canonical"]["card"])["criteria"]["memorization"]["rows"]
    assert memorized["status"] != "not_measured" and memorized["accuracy"]["n"] > 0, memorized
    assert sorted(p.name.split("_")[0] for p in (lb / "reproduced" / MODEL).glob("memorization_*")) == [
        "memorization",
        "memorization",
    ]


def board_card(lb: Path, link: dict[str, Any]) -> dict[str, Any]:
    """The ``card.json`` beside the card a leaderboard row links."""
    return dict(json.loads((lb / link["path"]).with_name("card.json").read_text()))
