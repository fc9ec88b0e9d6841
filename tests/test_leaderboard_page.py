"""The committed leaderboard page in a real headless browser (Debian's chromium + chromedriver,
driven by selenium): it opens from disk with the network off, shows every task of
leaderboard.json, sorts when a header is clicked, and shows the JSON's numbers."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent
PAGE = REPO / "leaderboard" / "index.html"
JSON = REPO / "leaderboard" / "leaderboard.json"

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
CHROMEDRIVER = shutil.which("chromedriver")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,900",
]

pytestmark = pytest.mark.skipif(
    not (CHROMIUM and CHROMEDRIVER),
    reason="Debian's chromium and chromium-driver are not installed (.ci/run installs them: apt-get install chromium chromium-driver)",
)

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
  var rows = [];
  sec.querySelectorAll('table.lb tbody tr').forEach(function(tr){
    var cells = {};
    tr.querySelectorAll('td[data-metric]').forEach(function(td){ cells[td.getAttribute('data-metric')] = cell(td); });
    rows.push({entry: tr.getAttribute('data-entry'), rank: tr.cells[0].innerText.trim(),
               model: tr.querySelector('td.model .name').innerText, n: tr.querySelector('td.n').innerText.trim(), cells: cells});
  });
  var box = sec.getBoundingClientRect();
  out.tasks[sec.getAttribute('data-task')] = {title: sec.querySelector('h2').firstChild.textContent,
    visible: box.height > 0 && getComputedStyle(sec).display !== 'none', rows: rows};
});
document.querySelectorAll('table.overview tbody tr').forEach(function(tr){
  var cells = {};
  tr.querySelectorAll('td[data-task]').forEach(function(td){
    var c = cell(td); c.entry = td.getAttribute('data-entry'); cells[td.getAttribute('data-task')] = c;
  });
  out.overview.push({model: tr.getAttribute('data-model'), method: tr.getAttribute('data-method'), cells: cells});
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
def driver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is in the [test] extra")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.add_argument(f"--user-data-dir={tmp_path_factory.mktemp('chromium-profile')}")
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    drv = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=opts)
    try:
        # No network at all: the page must not need it.
        drv.execute_cdp_cmd("Network.enable", {})
        drv.execute_cdp_cmd("Network.emulateNetworkConditions", {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        drv.get(PAGE.as_uri())
        yield drv
    finally:
        drv.quit()


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
    assert sorted(shown["tasks"]) == sorted(names)
    assert shown["nav"] == ["#overview"] + [f"#task-{n}" for n in names]
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
            assert set(r["cells"]) == {c["name"] for c in t["metrics"]}
            for name, cell in r["cells"].items():
                _check_cell(cell, e["metrics"][name], f"{t['name']} {e['id']} {name}")
        refs = [r for r in rows if r["entry"] == "human-reference"]
        assert len(refs) == (1 if t["human_reference"] else 0)
        for ref in t["human_reference"]:
            _check_cell(refs[0]["cells"][ref["metric"]], ref["value"], f"{t['name']} human reference {ref['metric']}")
    # the overview: one row per model and method, each task's primary metric
    assert [(r["model"], r["method"]) for r in shown["overview"]] == [(r["model"], r["method"]) for r in board["overview"]]
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
        _click_and_check(driver, table, "n")
        _click_and_check(driver, table, "rank")
    overview = driver.find_element(By.CSS_SELECTOR, "table.overview")
    for key in ["mean_rank", "n_tasks", *[t["name"] for t in board["tasks"]]]:
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
