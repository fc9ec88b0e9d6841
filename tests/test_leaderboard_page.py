"""The committed leaderboard page in a real headless browser (Debian's chromium + chromedriver,
driven by selenium): it opens from disk with the network off, shows every task of
leaderboard.json with its tiers, the papers' reported rows apart and unranked, each entry's
provenance, sorts when a header is clicked, shows the JSON's numbers, and escapes whatever a
submission or the reported file holds."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest


REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "leaderboard" / "index.html"
JSON = REPO / "leaderboard" / "leaderboard.json"

pytestmark = pytest.mark.slow  # every test here drives the browser

EXTRACT = """
function cell(td){
  if (!td) return null;
  var v = td.querySelector('.v'), ci = td.querySelector('.ci');
  return {value: td.getAttribute('data-value'), lo: td.getAttribute('data-ci-lo'), hi: td.getAttribute('data-ci-hi'),
          n: td.getAttribute('data-n'), text: v ? v.innerText : td.innerText, ci: ci ? ci.innerText : ''};
}
var out = {tasks: {}, overview: [], nav: []};
document.querySelectorAll('nav a').forEach(function(a){ out.nav.push(a.getAttribute('href')); });
document.querySelectorAll('section.task').forEach(function(sec){
  var rows = [], reported = [];
  sec.querySelectorAll('table.lb tbody tr').forEach(function(tr){
    var cells = {};
    tr.querySelectorAll('td[data-metric]').forEach(function(td){ cells[td.getAttribute('data-metric')] = cell(td); });
    var why = tr.querySelector('td.model .why'), prov = tr.querySelector('td.provenance summary');
    rows.push({entry: tr.getAttribute('data-entry'), tier: tr.cells[0].innerText.trim(), rank: tr.cells[1].innerText.trim(),
               dataTier: tr.getAttribute('data-tier'), tierStart: tr.classList.contains('tier-start'),
               model: tr.querySelector('td.model .name').innerText, n: tr.querySelector('td.n').innerText.trim(),
               leftOut: tr.querySelector('td.left-out').getAttribute('data-value'),
               why: why ? why.innerText : null, provenance: prov ? prov.innerText : null, cells: cells});
  });
  var block = sec.querySelector('.reported-block');
  if (block) {
    block.querySelectorAll('table.reported tbody tr').forEach(function(tr){
      var cells = {};
      tr.querySelectorAll('td[data-metric]').forEach(function(td){ cells[td.getAttribute('data-metric')] = td.getAttribute('data-value'); });
      var badge = tr.querySelector('.badge.nv');
      reported.push({paper: tr.getAttribute('data-paper'), source: tr.getAttribute('data-source'), model: tr.getAttribute('data-model'),
                     method: tr.getAttribute('data-method'), label: badge ? badge.innerText : null,
                     labelVisible: badge ? badge.getBoundingClientRect().width > 0 : false,
                     text: tr.innerText, cells: cells, inVerifiedTable: !!tr.closest('table.lb'), hasRank: !!tr.querySelector('td.rank, td.tier')});
    });
  }
  var lb = sec.querySelector('table.lb');
  var box = sec.getBoundingClientRect();
  out.tasks[sec.getAttribute('data-task')] = {title: sec.querySelector('h2').firstChild.textContent,
    visible: box.height > 0 && getComputedStyle(sec).display !== 'none', rows: rows, reported: reported,
    reportedHeading: block ? block.querySelector('h3').innerText : null,
    reportedAfterVerified: !!(block && lb && (lb.compareDocumentPosition(block) & Node.DOCUMENT_POSITION_FOLLOWING))};
});
document.querySelectorAll('table.overview tbody tr').forEach(function(tr){
  var cells = {};
  tr.querySelectorAll('td[data-task]').forEach(function(td){
    var c = cell(td); c.entry = td.getAttribute('data-entry'); c.tier = td.getAttribute('data-tier');
    var rk = td.querySelector('.rk'); c.rk = rk ? rk.innerText : null; cells[td.getAttribute('data-task')] = c;
  });
  var miss = tr.querySelector('.miss');
  out.overview.push({judge: tr.getAttribute('data-judge'), model: tr.getAttribute('data-model'), method: tr.getAttribute('data-method'),
                     position: tr.cells[0].innerText.trim(), miss: miss ? miss.innerText : null, cells: cells});
});
return out;
"""

COLUMN = """
var table = arguments[0], col = arguments[1];
return Array.prototype.map.call(table.tBodies[0].rows, function(tr){
  return [tr.getAttribute('data-entry') || tr.getAttribute('data-model'), tr.cells[col].getAttribute('data-value')];
});
"""


@pytest.fixture(scope="module")
def board() -> dict[str, Any]:
    assert JSON.is_file() and PAGE.is_file(), "leaderboard/ is not built: python scripts/seed_leaderboard.py"
    return json.loads(JSON.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def driver(chromium: Any) -> Any:
    chromium.get(PAGE.as_uri())  # no network at all: the page must not need it
    return chromium


def _num(text: str) -> float:
    return float(text.strip().replace("−", "-"))


def _shown_matches(text: str, value: float | None) -> bool:
    """The displayed number is ``value`` rounded to the decimals shown."""
    text = text.strip()
    if value is None:
        return text == "—"
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(_num(text) - value) <= 0.5 * 10**-decimals + 1e-12


def _check_cell(cell: dict[str, Any], mv: dict[str, Any], where: str) -> None:
    value, ci = mv["value"], mv["ci95"]
    if value is None:
        assert cell["value"] == "", where
    else:
        assert float(cell["value"]) == value, where  # exact: the attribute holds repr(value)
    assert _shown_matches(cell["text"], value), (where, cell["text"], value)
    if ci is None:
        assert cell["lo"] is None and cell["hi"] is None, where
    else:
        assert float(cell["lo"]) == ci[0] and float(cell["hi"]) == ci[1], where
        lo, hi = re.fullmatch(r"\[(.+), (.+)\]", cell["ci"].strip()).groups()  # type: ignore[union-attr]
        assert _shown_matches(lo, ci[0]) and _shown_matches(hi, ci[1]), (where, cell["ci"], ci)
    if cell["n"] is not None:
        assert int(cell["n"]) == mv["n"], where


def test_page_loads_offline_with_no_external_resource(driver: Any) -> None:
    assert driver.execute_script("return document.documentElement.getAttribute('data-ready')") == "1", "the page script did not run"
    assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert driver.execute_script("return document.querySelectorAll('[src], link[href], iframe, object, embed').length") == 0
    hrefs = driver.execute_script("return Array.prototype.map.call(document.querySelectorAll('a[href]'), function(a){return a.getAttribute('href')})")
    assert hrefs and all(h.startswith("#") for h in hrefs), hrefs
    severe = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    assert not severe, severe  # no script error, no blocked load


def test_page_shows_every_task_with_the_json_numbers(driver: Any, board: dict[str, Any], tmp_path: Path) -> None:
    shown = driver.execute_script(EXTRACT)
    names = [t["name"] for t in board["tasks"]]
    assert names, "the committed leaderboard is empty"
    section_names = sorted(set(names) | {r["task"] for r in board["reported"]["rows"]})
    assert sorted(shown["tasks"]) == section_names
    assert shown["nav"] == ["#overview"] + [f"#task-{n}" for n in section_names] + ["#papers"]
    for t in board["tasks"]:
        page = shown["tasks"][t["name"]]
        assert page["visible"] and page["title"] == t["name"]
        rows = page["rows"]
        entry_rows = [r for r in rows if r["entry"] != "human-reference"]
        assert [r["entry"] for r in entry_rows] == [e["id"] for e in t["entries"]]
        for r, e in zip(entry_rows, t["entries"], strict=True):
            assert r["model"] == e["model"]
            assert r["rank"] == (str(e["rank"]) if e["rank"] is not None else "—")
            assert r["n"] == str(e["metrics"][t["primary_metric"]]["n"])
            assert float(r["leftOut"]) == pytest.approx(1 - e["metrics"][t["primary_metric"]]["n"] / e["n_docs"])
            assert set(r["cells"]) == {c["name"] for c in t["metrics"]}
            for name, cell in r["cells"].items():
                _check_cell(cell, e["metrics"][name], f"{t['name']} {e['id']} {name}")
        refs = [r for r in rows if r["entry"] == "human-reference"]
        assert len(refs) == (1 if t["human_reference"] else 0)
        for ref in t["human_reference"]:
            _check_cell(refs[0]["cells"][ref["metric"]], ref["value"], f"{t['name']} human reference {ref['metric']}")
    # the overview: one row per judge, each task's primary metric
    assert [(r["judge"], r["model"], r["method"]) for r in shown["overview"]] == [(r["judge"], r["model"], r["method"]) for r in board["overview"]]
    for shown_row, row in zip(shown["overview"], board["overview"], strict=True):
        assert set(shown_row["cells"]) == set(names)
        for task, cell in shown_row["cells"].items():
            ref = row["cells"].get(task)
            if ref is None:
                assert cell["value"] == ""
                continue
            assert cell["entry"] == ref["entry"]
            _check_cell(cell, {"value": ref["value"], "ci95": ref["ci95"], "n": None}, f"overview {row['model']} {task}")
    # a look for humans (not committed): DEBENCH_SCREENSHOT_DIR keeps it
    png = tmp_path / "leaderboard.png"
    assert driver.save_screenshot(str(png)) and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("DEBENCH_SCREENSHOT_DIR"):
        shutil.copy(png, Path(os.environ["DEBENCH_SCREENSHOT_DIR"]) / png.name)


def test_page_shows_tiers_and_why_entries_are_unranked(driver: Any, board: dict[str, Any]) -> None:
    shown = driver.execute_script(EXTRACT)
    n_tiers = 0
    for t in board["tasks"]:
        rows = [r for r in shown["tasks"][t["name"]]["rows"] if r["entry"] != "human-reference"]
        previous = "none"
        for r, e in zip(rows, t["entries"], strict=True):
            assert r["tier"] == (f"T{e['tier']}" if e["tier"] is not None else "—"), (t["name"], e["id"])
            assert r["dataTier"] == ("" if e["tier"] is None else str(e["tier"]))
            assert r["tierStart"] == (e["tier"] != previous), (t["name"], e["id"])  # a rule above each new tier
            previous = e["tier"]
            if e["unranked_reason"]:
                assert r["why"] == f"not ranked: {e['unranked_reason']}"
            else:
                assert r["why"] is None
            assert r["provenance"] == ("baseline re-run" if e["provenance"]["basis"] == "recomputed" else "responses traced" + ("spot-checked" if e["provenance"]["spot_check"] else "not spot-checked"))
        n_tiers = max(n_tiers, max((e["tier"] or 0) for e in t["entries"]))
    assert n_tiers >= 2, "the committed board should show more than one tier somewhere"
    for shown_row, row in zip(shown["overview"], board["overview"], strict=True):
        assert shown_row["position"] == (str(row["overall_rank"]) if row["overall_rank"] is not None else "—")
        assert (shown_row["miss"] is None) == (row["overall_rank"] is not None)
        if shown_row["miss"]:
            missing = row["missing_tasks"]
            assert shown_row["miss"].startswith("not ranked overall: no ranked entry on")
            assert (", ".join(missing) in shown_row["miss"]) if len(missing) <= 2 else (f"{len(missing)} of {len(board['overall_tasks'])} tasks" in shown_row["miss"])
        for task, cell in shown_row["cells"].items():
            ref = row["cells"].get(task)
            if ref is not None and ref["rank"] is not None:
                assert cell["rk"] == f"#{ref['rank']} of {ref['n_ranked']} · T{ref['tier']}"


def test_reported_rows_apart_and_marked(driver: Any, board: dict[str, Any]) -> None:
    shown = driver.execute_script(EXTRACT)
    rows = board["reported"]["rows"]
    assert rows, "the committed leaderboard shows the papers' numbers"
    for task in {r["task"] for r in rows}:
        page = shown["tasks"][task]
        expected = [r for r in rows if r["task"] == task]
        assert page["reportedHeading"] == "Reported in papers — not verified"
        if any(t["name"] == task for t in board["tasks"]):
            assert page["reportedAfterVerified"]
        assert len(page["reported"]) == len(expected)
        for got, want in zip(page["reported"], expected, strict=True):
            assert not got["inVerifiedTable"] and not got["hasRank"]  # never ranked with verified rows
            assert got["label"] == "reported in paper, not verified" and got["labelVisible"]
            assert (got["paper"], got["source"], got["model"], got["method"]) == (want["paper"], want["table"], want["model"], want["method"])
            assert want["table"] in got["text"]
            for name, v in want["metrics"].items():
                assert float(got["cells"][name]) == v["value"] and f"printed {v['printed']}" in got["text"]
        # the verified table of the task holds no reported row
        verified_models = {r["model"] for r in page["rows"]}
        assert not verified_models & {r["model_label"] for r in expected}


def _expected(before: list[list[Any]], direction: str, numeric: bool) -> list[str]:
    """What a stable sort of the rows by the column gives (undefined values last)."""

    def key(v: str) -> Any:
        return float(v) if numeric else v

    defined = [r for r in before if r[1] not in (None, "")]
    undefined = [r for r in before if r[1] in (None, "")]
    # reverse=True keeps ties in their original order, like the page's stable sort
    ordered = sorted(defined, key=lambda r: key(r[1]), reverse=direction == "descending")
    return [r[0] for r in ordered + undefined]


def _click_and_check(driver: Any, table: Any, key: str) -> list[str]:
    from selenium.webdriver.common.by import By

    th = table.find_element(By.CSS_SELECTOR, f'thead th[data-key="{key}"]')
    col = driver.execute_script("return Array.prototype.indexOf.call(arguments[0].parentNode.children, arguments[0])", th)
    numeric = th.get_attribute("data-sort") == "num"
    orders = []
    for _ in range(2):  # first click, then the reverse
        before = driver.execute_script(COLUMN, table, col)
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", th)
        th.find_element(By.TAG_NAME, "button").click()
        direction = th.get_attribute("aria-sort")
        assert direction in ("ascending", "descending")
        after = driver.execute_script(COLUMN, table, col)
        assert [r[0] for r in after] == _expected(before, direction, numeric), (key, direction, after)
        values = [float(v) for _, v in after if v not in (None, "")]
        assert values == sorted(values, reverse=direction == "descending")
        orders.append(direction)
    assert orders[0] != orders[1]  # the second click reverses
    # only the clicked header is marked
    marked = driver.execute_script("return arguments[0].querySelectorAll('thead th[aria-sort]').length", table)
    assert marked == 1
    return orders


def test_clicking_a_header_sorts_the_rows(driver: Any, board: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By

    driver.get(PAGE.as_uri())  # fresh order
    for t in board["tasks"]:
        table = driver.find_element(By.CSS_SELECTOR, f'section[data-task="{t["name"]}"] table.lb')
        for c in t["metrics"]:
            first, _ = _click_and_check(driver, table, c["name"])
            # the first click puts the best values first
            assert first == ("descending" if c["higher_is_better"] else "ascending")
        for key in ("n", "left_out", "tier", "rank"):
            _click_and_check(driver, table, key)
    overview = driver.find_element(By.CSS_SELECTOR, "table.overview")
    for key in ["position", "mean_rank", "n_tasks", *[t["name"] for t in board["tasks"]]]:
        _click_and_check(driver, overview, key)


def test_model_column_sorts_by_name(driver: Any, board: dict[str, Any]) -> None:
    from selenium.webdriver.common.by import By

    driver.get(PAGE.as_uri())
    t = max(board["tasks"], key=lambda t: len(t["entries"]))
    table = driver.find_element(By.CSS_SELECTOR, f'section[data-task="{t["name"]}"] table.lb')
    th = table.find_element(By.CSS_SELECTOR, 'thead th[data-key="model"]')
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", th)
    th.find_element(By.TAG_NAME, "button").click()
    assert th.get_attribute("aria-sort") == "ascending"
    names = driver.execute_script(
        "return Array.prototype.map.call(arguments[0].querySelectorAll('tbody tr:not(.reference) td.model .name'), function(e){return e.innerText})", table
    )
    assert names == sorted(names, key=str.lower) and sorted(names) == sorted(e["model"] for e in t["entries"])


HOSTILE = '<script class="injected">document.title="pwned"</script><b class="injected">x</b>'


def test_everything_a_submission_or_paper_holds_is_escaped(driver: Any, board: dict[str, Any], tmp_path: Path) -> None:
    """Model names, identities, submission folders, error reasons and reported rows rendered
    through the templates' autoescape: markup shows as text and never runs."""
    from debench.leaderboard.board import Leaderboard
    from debench.leaderboard.page import render_page

    lb = Leaderboard.model_validate(board)
    entry = lb.tasks[0].entries[0]
    entry.model = "openai/" + HOSTILE
    entry.submission = HOSTILE
    entry.method = 'direct"><b class="injected">x'
    entry.unranked_reason = HOSTILE
    entry.provenance.checks.append(HOSTILE)
    lb.overview[0].model = HOSTILE
    lb.tasks[0].description = HOSTILE
    row = lb.reported.rows[0]
    row.model_label, row.setting, row.note = HOSTILE, HOSTILE, "</script>" + HOSTILE
    lb.title = HOSTILE
    page = tmp_path / "hostile.html"
    page.write_text(render_page(lb), encoding="utf-8")
    driver.get(page.as_uri())
    assert driver.execute_script("return document.documentElement.getAttribute('data-ready')") == "1", "the page script did not run"
    assert driver.execute_script("return document.querySelectorAll('.injected').length") == 0
    assert driver.title == HOSTILE  # shown as text
    text = driver.execute_script("return document.body.innerText")
    assert text.count('<b class="injected">x</b>') >= 6
    # the embedded JSON still parses and holds the strings unchanged
    data = json.loads(driver.execute_script("return document.getElementById('leaderboard-data').textContent"))
    assert data["tasks"][0]["entries"][0]["submission"] == HOSTILE and data["reported"]["rows"][0]["note"] == "</script>" + HOSTILE
