"""``debench view``: the run report in a real headless browser (Debian's chromium + chromedriver,
selenium, network off). Runs are real evaluations on the real data against the stub server, with a
mix of answers, parse failures and errors; Debatrix steps and ensemble members are shown; no secret
reaches the page."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir

from debench.api import evaluate
from debench.data.samples import read_records
from debench.run.task_lookup import load_task
from debench.testing.stub_server import FaultPlan, StubServer, fixed_responder, likert_responder
from debench.view.model import verdict
from debench.view.render import write_view

ENV_SECRET = "zq-env-secret-value-7c1f0a9b"
KEY_SHAPED = "sk-proj-" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6"


def _evaluate(
    task_name: str,
    model_spec: str,
    out: Path,
    srv: StubServer,
    *,
    limit: int,
    method: str | None = None,
    ensemble: str | None = None,
) -> Path:
    runs = evaluate(
        task_name,
        model_spec,
        ensemble=ensemble,
        api_base=srv.base_url,
        model_args="max_retries=0",
        limit=limit,
        output_dir=out,
        data_source="local",
        data_dir=DATA_DIR,
        n_bootstrap=20,
        method=method,
        use_cache=False,
    )
    return runs[0].results_path


@pytest.fixture(scope="module")
def likert_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """80 real IBM speeches: parsed scores, unparseable answers and HTTP 500s (no retries)."""
    real_data_dir("ibm_debate_speeches")
    out = tmp_path_factory.mktemp("likert")
    with StubServer(
        responder=likert_responder(seed=4, unparseable_rate=0.15), faults=FaultPlan(server_error=0.1, seed=4)
    ) as srv:
        results = _evaluate("ibm_speech_likert", "openai/stub", out, srv, limit=80)
    # A judge that echoes a key, and an error message that carries one: the page must not show them.
    samples = results.parent / json.loads(results.read_text())["samples_file"]
    lines = [json.loads(line) for line in samples.read_text().splitlines()]
    ok = next(r for r in lines if r["status"] == "ok")
    ok["response"] = f"{ok['response']}\n(my key is {KEY_SHAPED}, and {ENV_SECRET})"
    err = next(r for r in lines if r["status"] == "error")
    err["error"] = f"{err['error']} [api_key={ENV_SECRET}]"
    samples.write_text("".join(json.dumps(r) + "\n" for r in lines))
    return results


@pytest.fixture(scope="module")
def likert_page(likert_run: Path) -> Path:
    mp = pytest.MonkeyPatch()
    mp.setenv("MY_PROVIDER_API_KEY", ENV_SECRET)
    try:
        return write_view(likert_run, data_dir=str(DATA_DIR))
    finally:
        mp.undo()


@pytest.fixture
def driver(chromium: Any) -> Any:
    return chromium


VISIBLE = (
    "return Array.prototype.filter.call(document.querySelectorAll('article.sample'), function(a){return "
    "!a.hidden;}).map(function(a){return a.getAttribute('data-doc');});"
)


def _visible(drv: Any) -> list[str]:
    return drv.execute_script(VISIBLE)


def _click(drv: Any, value: str) -> None:
    from selenium.webdriver.common.by import By

    drv.find_element(By.ID, f"filter-{value}").click()


def _search(drv: Any, text: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    box = drv.find_element(By.ID, "search")
    box.clear()
    drv.execute_script("arguments[0].dispatchEvent(new Event('input'))", box)
    if text:
        box.send_keys(text)
    want = text.strip().lower()
    # the page filters 120 ms after the last keystroke; wait until it did
    WebDriverWait(drv, 5).until(
        lambda d: d.execute_script("return document.getElementById('search').value.trim().toLowerCase()") == want
    )
    drv.execute_script("return new Promise(function(r){setTimeout(r, 300);})")


@pytest.mark.slow  # drives the browser
@pytest.mark.real_data("the page of a run on 80 IBM speeches (the sample has 8)")
def test_filters_and_search_in_chromium(driver: Any, likert_run: Path, likert_page: Path) -> None:
    records = read_records(likert_run.parent / json.loads(likert_run.read_text())["samples_file"])
    by_status = {s: [r.doc_id for r in records if r.status == s] for s in ("ok", "parse_failure", "error")}
    assert all(by_status.values()), by_status  # the run has all three kinds
    wrong = [r.doc_id for r in records if r.status == "ok" and abs(r.prediction - r.target) > 0.5]
    assert wrong
    driver.get(likert_page.as_uri())
    assert driver.execute_script("return document.body.getAttribute('data-ready')") == "1"
    assert not [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    ids = [r.doc_id for r in records]
    assert _visible(driver) == ids
    assert (
        driver.execute_script("return document.getElementById('shown').textContent")
        == f"{len(ids)} of {len(ids)} samples"
    )
    # the scatter has one point per parsed sample
    assert driver.execute_script("return document.querySelectorAll('#chart circle').length") == len(by_status["ok"])
    _click(driver, "wrong")
    assert _visible(driver) == wrong
    _click(driver, "parse_failure")
    assert _visible(driver) == by_status["parse_failure"]
    texts = driver.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('article[data-status=parse_failure] .msg'), "
        "function(m){return m.textContent;})"
    )
    assert len(texts) == len(by_status["parse_failure"]) and all(t.startswith("parse failure:") for t in texts)
    _click(driver, "error")
    assert _visible(driver) == by_status["error"]
    # search: a document id, a phrase only in a collapsed debate text, nothing, and with a filter
    _click(driver, "all")
    target = by_status["ok"][3]
    _search(driver, target)
    assert _visible(driver) == [target]
    doc_text = next(d for d in load_task_docs() if d.doc_id == target).speeches[0].text
    phrase = " ".join(doc_text.split()[40:46])
    _search(driver, phrase)
    assert target in _visible(driver)
    assert (
        driver.execute_script(
            f"var a=document.querySelector('article[data-doc=\"{target}\"] details.debate'); return a.open;"
        )
        is False
    )
    _search(driver, "no sample says zzzyzx")
    assert _visible(driver) == [] and driver.execute_script(
        "return document.getElementById('shown').textContent"
    ).startswith("0 of ")
    _search(driver, target)
    _click(driver, "error")
    assert _visible(driver) == []
    _click(driver, "all")
    _search(driver, "")
    assert len(_visible(driver)) == len(ids)


def load_task_docs():
    from debench.data.loading import load_task_data

    return load_task_data(load_task("ibm_speech_likert")[0], "local", DATA_DIR).docs


@pytest.mark.real_data("the page of a run on 80 IBM speeches (the sample has 8)")
def test_no_secret_reaches_the_page(likert_page: Path) -> None:
    html = likert_page.read_text(encoding="utf-8")
    assert ENV_SECRET not in html and KEY_SHAPED not in html
    assert "(my key is ***, and ***)" in html and "[api_key=***]" in html


@pytest.mark.slow  # drives the browser
def test_confusion_matrix_debatrix_steps_and_ensemble_members(tmp_path: Path, driver: Any) -> None:
    real_data_dir("debatrix_panelbench")
    with StubServer(responder=fixed_responder("Both sides argue with care.\nScore: 6\nWinner: pro")) as srv:
        debatrix = _evaluate("debateart_winner", "openai/stub", tmp_path / "dx", srv, limit=2, method="debatrix-f")
        ensemble = _evaluate(
            "debateart_winner", "openai/a,openai/b", tmp_path / "ens", srv, limit=3, ensemble="majority"
        )
    proc = run_cli("view", str(debatrix), "--data-dir", str(DATA_DIR), "--output", str(tmp_path / "dx.html"))
    assert proc.returncode == 0 and str(tmp_path / "dx.html") in proc.stdout, proc.stderr
    records = read_records(debatrix.parent / json.loads(debatrix.read_text())["samples_file"])
    driver.get((tmp_path / "dx.html").as_uri())
    steps = driver.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('article.sample'), function(a){return "
        "a.querySelectorAll('details.steps .step').length;})"
    )
    assert steps == [len(r.steps) for r in records] and min(steps) > 10
    cells = driver.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('#chart td'), function(td){return "
        "[td.getAttribute('data-gold'), td.getAttribute('data-pred'), +td.textContent];})"
    )
    expected: dict[tuple[str, str], int] = {}
    for r in records:
        if r.status == "ok":
            expected[(r.target, r.prediction)] = expected.get((r.target, r.prediction), 0) + 1
    assert {(g, p): n for g, p, n in cells if n} == expected
    right = [r.doc_id for r in records if r.status == "ok" and verdict(r.prediction, r.target)]
    _click(driver, "correct")
    assert _visible(driver) == right
    # ensemble: each member's answer and the aggregate
    page = write_view(ensemble, data_dir=str(DATA_DIR))
    driver.get(page.as_uri())
    members = driver.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('article.sample'), "
        "function(a){return Array.prototype.map.call(a.querySelectorAll('details.members .step .t'), "
        "function(t){return t.textContent;});})"
    )
    assert members and all(m == ["member · openai/a", "member · openai/b", "aggregate"] for m in members)


@pytest.mark.real_data("the page of a run on 80 IBM speeches (the sample has 8)")
def test_view_errors_are_one_line(tmp_path: Path, likert_run: Path) -> None:
    proc = run_cli("view", str(tmp_path / "nowhere.json"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "results file not found" in proc.stderr
    lonely = tmp_path / "results.json"
    lonely.write_text(likert_run.read_text())
    proc = run_cli("view", str(lonely))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "samples log not found" in proc.stderr


def _arena_responder(request: dict[str, Any]) -> str:
    if "judging a finished debate" in request["messages"][0]["content"]:
        if request["model"] == "j2" and "tea" in request["messages"][0]["content"].lower():
            return "side1: [[3]], side2: [[8]], winner: [[2]]"
        if request["model"] == "j3":
            return "I will not say."
        return "side1: [[7]], side2: [[5]], winner: [[1]]"
    return f"{request['model']} argues its side."


@pytest.mark.slow  # drives the browser
def test_arena_page_lists_every_judges_verdict(driver: Any, tmp_path: Path) -> None:
    topics = tmp_path / "t.txt"
    topics.write_text("Is tea better than coffee?\nShould cities ban cars?\n", encoding="utf-8")
    with StubServer(responder=_arena_responder) as srv:
        proc = run_cli(
            "arena",
            "--models",
            "openai/a,openai/b",
            "--judge",
            "openai/j1,openai/j2,openai/j3",
            "--api-base",
            srv.base_url,
            "--topics",
            str(topics),
            "--rounds",
            "2",
            "--output-dir",
            str(tmp_path / "out"),
            "--no-progress",
            env={"DEBENCH_CACHE_DIR": str(tmp_path / "c")},
        )
    assert proc.returncode == 0, proc.stderr
    folder = next((tmp_path / "out").glob("arena_*"))
    proc = run_cli("view", str(folder))
    assert proc.returncode == 0, proc.stderr
    page = folder / "arena.html"
    driver.get(page.as_uri())
    assert driver.execute_script("return document.body.getAttribute('data-ready')") == "1"
    assert len(_visible(driver)) == 4
    rows = driver.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('article.sample'), function(a){return "
        "[a.getAttribute('data-doc'), Array.prototype.map.call(a.querySelectorAll('table.verdicts tbody tr'), "
        "function(r){return r.getAttribute('data-judge') + '=' + "
        "r.querySelector('.winner').textContent;}).join(' ')];});"
    )
    for doc, verdicts in rows:
        tea = doc.startswith("t000")
        assert verdicts == f"openai/j1=side 1 openai/j2={'side 2' if tea else 'side 1'} openai/j3=—", (doc, verdicts)
    _click(driver, "split")
    assert sorted(_visible(driver)) == sorted(d for d, _ in rows if d.startswith("t000"))
    _click(driver, "all")
    _search(driver, "cars")
    assert sorted(_visible(driver)) == sorted(d for d, _ in rows if d.startswith("t001"))
