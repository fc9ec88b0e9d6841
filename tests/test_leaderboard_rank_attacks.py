"""A rank that cannot be bought: the cheapest attacks a submitter would try, each run against the real
code path (real data, a stub OpenAI-compatible server on 127.0.0.1, real files in a temporary
submissions tree, the leaderboard's own build), and none of them ranks.

* gold answers served by the submitter's own endpoint (and the same answers typed by hand under a
  trusted provider's model name): shown as self-reported, never ranked; the job never asks the
  submitter's endpoint;
* the hardest documents turned into parse failures: not ranked;
* a prompt edited to show the model the human ratings, with the results file's hashes patched: refused.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA_DIR, real_data_dir
from lbhelp import (
    SEEDS,
    add_submission,
    board_build,
    board_json,
    cli,
    copy_submission,
    edit_json,
    edit_records,
    entries_of,
    refresh_main,
    rescore,
    stub_eval,
    submissions_tree,
)

from debench.testing.stub_server import StubServer

TASK = "ibm_speech_likert"
pytestmark = pytest.mark.slow


def _ibm_docs() -> list[Any]:
    from debench.data.loading import load_task_data
    from debench.run.task_lookup import load_task

    real_data_dir("ibm_debate_speeches")
    task, _ = load_task(TASK)
    return load_task_data(task, "local", str(DATA_DIR)).docs


def gold_responder() -> Any:
    """A 'model' that answers every speech with its gold label (the human mean, rounded)."""
    gold = {d.fields["speech"].strip(): min(5, max(1, round(d.target))) for d in _ibm_docs()}

    def respond(request: dict[str, Any]) -> str:
        speech = request["messages"][-1]["content"].split('"""')[1].strip()
        return f"Score: {gold[speech]}"

    return respond


@pytest.fixture(scope="module")
def gold_server() -> Iterator[StubServer]:
    with StubServer(responder=gold_responder()) as srv:
        yield srv


@pytest.fixture(scope="module")
def gold_run(gold_server: StubServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The attack: ``debench eval`` of the submitter's gold-answering endpoint on all 631 speeches."""
    return stub_eval(tmp_path_factory.mktemp("gold"), gold_server.base_url)


def _section(html: str, table: str) -> str:
    start = html.index(f'data-table="{table}"')
    return html[start : html.index("</table>", start)]


def test_gold_answers_from_the_submitters_endpoint_are_shown_not_ranked(
    gold_run: Path, gold_server: StubServer, tmp_path: Path
) -> None:
    results = json.loads(gold_run.read_text())
    assert results["metrics"]["kendall_tau_c"]["value"] > 0.6  # the gold answers: far above every real judge
    subs = submissions_tree(tmp_path, TASK)
    res, _ = add_submission(subs, gold_run, "acme__gold-judge")
    # the submitter's self-check of their own endpoint passes: it verifies nothing
    got = cli("validate", str(res), "--spot-check", "8")
    assert got.exit_code == 0, got.stderr
    assert "self-check 100% at its own endpoint (not a verification)" in got.stdout
    gold_server.reset_stats()
    out = tmp_path / "out"
    got = board_build(subs, out)
    assert got.exit_code == 0, got.stderr
    assert gold_server.stats.requests == []  # the leaderboard's job never asks the submitter's endpoint
    groups = entries_of(board_json(out), TASK)
    assert groups["verified"] == []
    (gold,) = groups["self_reported"]
    assert gold["model"] == "openai/judge" and gold["rank"] is None and gold["tier"] is None
    assert "127.0.0.1" in gold["standing_reason"] and "loopback" in gold["standing_reason"]
    assert gold["metrics"]["kendall_tau_c"] == results["metrics"]["kendall_tau_c"]  # shown with its numbers and CI
    assert all(e["rank"] is None for e in groups["baselines"])
    html = (out / "index.html").read_text()
    assert gold["id"] in _section(html, f"self-{TASK}") and gold["id"] not in _section(html, TASK)
    assert "A rank is the leaderboard's own number." in html


def test_the_same_answers_typed_in_as_a_trusted_providers_model_are_not_ranked(gold_run: Path, tmp_path: Path) -> None:
    """The gold answers renamed as an OpenAI model (litellm's default endpoint, which the allowlist
    trusts): a pattern-like name is not on the exact allowlist; an allowlisted one waits for the
    job's own run through OpenAI with the maintainers' key, which never takes the submitted answers."""
    from debench.run.runner import run_fingerprint
    from debench.run.task_lookup import load_task

    task, _ = load_task(TASK)
    for name, folder in (("openai/gpt-4o", "openai__gpt-4o"), ("gpt-4o-2024-08-06", "gpt-4o-2024-08-06")):
        subs = submissions_tree(tmp_path / folder, TASK, ("baseline/random",))
        res, _ = add_submission(subs, gold_run, folder)
        identity = {"name": name, "send_grammar": False}

        def rename(d: dict[str, Any], name: str = name, identity: dict[str, Any] = identity) -> None:
            d["model"] = {"name": name, "kind": "litellm", "identity": identity}
            d["config"]["fingerprint"] = run_fingerprint(
                task, identity, d["dataset"]["content_hash"], d["task"]["method"]
            )

        edit_json(res, rename)
        out = tmp_path / folder / "out"
        code, _, err = refresh_main(
            "--submissions",
            str(subs),
            "--out",
            str(out),
            "--reproduced",
            str(out / "reproduced"),
            "--queue",
            str(out / "queue.json"),
            "--data-dir",
            str(DATA_DIR),
            "--reproduce",
        )
        assert code == 0, err
        groups = entries_of(board_json(out), TASK)
        (entry,) = groups["self_reported"]
        assert groups["verified"] == [] and entry["model"] == name and entry["rank"] is None
        if name == "openai/gpt-4o":
            assert "not a model of the maintainers' allowlist" in entry["standing_reason"]
        else:  # no key in the environment: the canonical judge's run waits; the answers are never ranked
            assert "OPENAI_API_KEY" in entry["standing_reason"] and entry["nominates"] == f"{name}/direct"
            assert [(w["judge"], w["nominated_by"]) for w in board_json(out)["waiting"]] == [
                (f"{name}/direct", f"{folder}/{res.name}")
            ]


# ----------------------------------------------------------------------------- parse failures


def _smollm2() -> Path:
    (res,) = (SEEDS / "local__smollm2").glob("results_ibm_speech_likert_*.json")
    return res


def test_hard_documents_turned_into_parse_failures_are_not_ranked(tmp_path: Path) -> None:

    honest = _smollm2()
    subs = tmp_path / "honest" / "leaderboard" / "submissions"
    shutil.copytree(honest.parent, subs / honest.parent.name)
    got = board_build(subs, tmp_path / "honest-out")
    assert got.exit_code == 0, got.stderr
    (genuine,) = entries_of(board_json(tmp_path / "honest-out"), TASK)["self_reported"]

    # the attack: the 331 speeches the model got most wrong become parse failures, numbers recomputed —
    # the 311 lowest-rated speeches it gave a 5 and the 20 highest-rated it gave a 1
    forged = tmp_path / "forged" / "leaderboard" / "submissions"
    res, samples = copy_submission(honest, forged / honest.parent.name)
    records = [json.loads(line) for line in samples.read_text().splitlines()]
    fives = sorted((r for r in records if r["prediction"] == 5), key=lambda r: r["target"])[:311]
    ones = sorted((r for r in records if r["prediction"] == 1), key=lambda r: -r["target"])[:20]
    hardest = {r["doc_id"] for r in fives + ones}

    def fail(i: int, rec: dict[str, Any]) -> None:
        if rec["doc_id"] in hardest:
            rec.update(
                status="parse_failure",
                prediction=None,
                response="I would rather not give this speech a number.",
                parse_error="no match",
            )

    edit_records(samples, fail)
    rescore(res)
    tau = json.loads(res.read_text())["metrics"]["kendall_tau_c"]["value"]
    assert (
        tau > 0.4 > genuine["metrics"]["kendall_tau_c"]["value"] + 0.4
    )  # what it buys where parse failures are left out
    # not reproduced by the leaderboard: shown with its (forged) numbers, never ranked; the job's own
    # run, not the submitter, decides which documents fail
    got = board_build(forged, tmp_path / "forged-out")
    assert got.exit_code == 0, got.stderr
    groups = entries_of(board_json(tmp_path / "forged-out"), TASK)
    (entry,) = groups["self_reported"]
    assert groups["verified"] == [] and entry["rank"] is None and "waits in the queue" in entry["standing_reason"]
    assert entry["left_out_share"] == pytest.approx(331 / 631)


# ------------------------------------------------------------------------------ an edited prompt


def ratings_reader(request: dict[str, Any]) -> str:
    """A 'model' that reads the human ratings the edited prompt shows it."""
    m = re.search(r"Other listeners rated it: \[([^\]]*)\]", request["messages"][-1]["content"])
    if not m:
        return "Score: 3"
    ratings = [float(x) for x in m.group(1).split(",") if x.strip()]
    return f"Score: {min(5, max(1, round(sum(ratings) / len(ratings))))}"


def test_an_edited_prompt_is_refused_even_with_patched_hashes(tmp_path: Path) -> None:
    from debench.run.pipeline import task_identity, task_sha
    from debench.run.runner import run_fingerprint
    from debench.run.task_lookup import load_task, tasks_dir

    real_data_dir("ibm_debate_speeches")
    text = (tasks_dir() / f"{TASK}.yaml").read_text()
    marker = '    Reply with the number only, in the form "Score: N".'
    assert marker in text
    edited = tmp_path / f"{TASK}.yaml"
    edited.write_text(text.replace(marker, "    Other listeners rated it: {{ meta.ratings }}\n\n" + marker))
    with StubServer(responder=ratings_reader) as srv:
        res = stub_eval(tmp_path / "run", srv.base_url, str(edited), "openai/judge", "--limit", "60")
    installed, _ = load_task(TASK)
    samples = res.parent / json.loads(res.read_text())["samples_file"]
    assert "Other listeners rated it: [" in samples.read_text()

    def patch(d: dict[str, Any]) -> None:  # what a forger does so that every hash and version matches
        d["task"]["config_sha256"] = task_sha(installed)
        d["task"]["identity_sha256"] = task_identity(installed)  # results 1.1
        d["task"]["version"] = installed.version
        d["config"]["task_file"] = f"tasks/{TASK}.yaml"
        d["config"]["fingerprint"] = run_fingerprint(
            installed, d["model"]["identity"], d["dataset"]["content_hash"], d["task"]["method"]
        )

    edit_json(res, patch)
    got = cli("validate", str(res))
    assert got.exit_code == 2
    (line,) = got.stderr.strip().splitlines()
    assert str(samples) in line and "line 1" in line and "field 'messages.1.content'" in line
    assert f"differ from what the installed task {TASK} renders" in line and "Other listeners rated it" in line
