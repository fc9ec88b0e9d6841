"""The leaderboard page in a real headless browser (Debian's chromium + chromedriver, driven by
selenium): the committed page opens from disk with the network off, says at the top that a rank
means the leaderboard reproduced it, ranks only verified entries, draws baselines as reference
lines and self-reported entries in their own table, shows the papers' reported rows apart and
unranked, the JSON's numbers, each entry's provenance, and the overview's wait for a second verified
judge; a page with many verified judges (committed seed runs given that standing) shows tiers,
an overall ranking and sorts when a header is clicked; whatever a submission or the reported file
holds is escaped."""

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
function rowOf(tr){
  var cells = {};
  tr.querySelectorAll('td[data-metric]').forEach(function(td){ cells[td.getAttribute('data-metric')] = cell(td); });
  var why = tr.querySelector('td.model .why'), prov = tr.querySelector('td.provenance summary'), \
tier = tr.querySelector('td.tier'),
      rank = tr.querySelector('td.rank'), badge = tr.querySelector('td.model .badge.base'), \
n = tr.querySelector('td.n'),
      left = tr.querySelector('td.left-out'), name = tr.querySelector('td.model .name');
  return {entry: tr.getAttribute('data-entry'), standing: tr.getAttribute('data-standing'), cls: tr.className,
          tier: tier ? tier.innerText.trim() : null, rank: rank ? rank.innerText.trim() : null,
          dataTier: tr.getAttribute('data-tier'), tierStart: tr.classList.contains('tier-start'),
          model: name ? name.innerText : null, n: n ? n.innerText.trim() : null, \
leftOut: left ? left.getAttribute('data-value') : null,
          level: badge ? badge.innerText : null, why: why ? why.innerText : null, \
provenance: prov ? prov.innerText : null, cells: cells,
          text: tr.innerText};
}
function rows(sel, root){ return Array.prototype.map.call((root || document).querySelectorAll(sel), rowOf); }
var out = {tasks: {}, overview: [], selfOverview: [], nav: [], lede: document.querySelector('.lede').innerText,
           waiting: (document.getElementById('overall-waiting') || {}).innerText || null};
document.querySelectorAll('nav a').forEach(function(a){ out.nav.push(a.getAttribute('href')); });
document.querySelectorAll('section.task').forEach(function(sec){
  var reported = [];
  var block = sec.querySelector('.reported-block');
  if (block) {
    block.querySelectorAll('table.reported tbody tr').forEach(function(tr){
      var cells = {};
      tr.querySelectorAll('td[data-metric]').forEach(function(td){ cells[td.getAttribute('data-metric')] = \
td.getAttribute('data-value'); });
      var badge = tr.querySelector('.badge.nv');
      reported.push({paper: tr.getAttribute('data-paper'), source: tr.getAttribute('data-source'), \
model: tr.getAttribute('data-model'),
                     method: tr.getAttribute('data-method'), label: badge ? badge.innerText : null,
                     labelVisible: badge ? badge.getBoundingClientRect().width > 0 : false,
                     text: tr.innerText, cells: cells, inVerifiedTable: !!tr.closest('table.lb'), \
hasRank: !!tr.querySelector('td.rank, td.tier')});
    });
  }
  var lb = sec.querySelector('table.lb.ranked');
  var box = sec.getBoundingClientRect();
  out.tasks[sec.getAttribute('data-task')] = {title: sec.querySelector('h2').firstChild.textContent,
    visible: box.height > 0 && getComputedStyle(sec).display !== 'none',
    ranked: lb ? rows('tbody:not(.references) tr', lb) : [], references: lb ? rows('tbody.references tr', lb) : [],
    selfReported: rows('table.lb.self-reported tbody tr', sec),
    selfHeading: (sec.querySelector('.self-reported-block h3') || {}).innerText || null,
    plots: sec.querySelectorAll('.plots svg').length, \
baselineLines: sec.querySelectorAll('.plots svg line.baseline-line').length,
    reported: reported, reportedHeading: block ? block.querySelector('h3').innerText : null,
    reportedAfterVerified: !!(block && lb && (lb.compareDocumentPosition(block) & Node.DOCUMENT_POSITION_FOLLOWING))};
});
function overviewRows(sel){
  return Array.prototype.map.call(document.querySelectorAll(sel), function(tr){
    var cells = {};
    tr.querySelectorAll('td[data-task]').forEach(function(td){
      var c = cell(td); c.entry = td.getAttribute('data-entry'); c.tier = td.getAttribute('data-tier');
      var rk = td.querySelector('.rk'); c.rk = rk ? rk.innerText : null; cells[td.getAttribute('data-task')] = c;
    });
    var miss = tr.querySelector('.miss'), rank = tr.querySelector('td.rank');
    return {judge: tr.getAttribute('data-judge'), model: tr.getAttribute('data-model'), \
method: tr.getAttribute('data-method'),
            position: rank ? rank.innerText.trim() : null, miss: miss ? miss.innerText : null, cells: cells};
  });
}
out.overview = overviewRows('table.overview[data-table="overview"] tbody tr');
out.selfOverview = overviewRows('table.overview[data-table="overview-self-reported"] tbody tr');
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
def mixed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """(page, its JSON): committed seed runs given standings — on bp_top_team and debateart_winner,
    random and majority verified, last (bp) and first (winner) verified, longest self-reported,
    the other side's baseline a baseline."""
    from conftest import DATA_DIR

    from debench.leaderboard.build import build_leaderboard
    from debench.leaderboard.publish import write_leaderboard
    from debench.leaderboard.validate import validate_all

    subs = REPO / "leaderboard" / "submissions"
    standing = {
        ("bp_top_team", "baseline/random"): "verified",
        ("bp_top_team", "baseline/majority"): "verified",
        ("bp_top_team", "baseline/last"): "verified",
        ("bp_top_team", "baseline/longest"): "self_reported",
        ("bp_top_team", "baseline/first"): "baseline",
        ("debateart_winner", "baseline/random"): "verified",
        ("debateart_winner", "baseline/majority"): "verified",
        ("debateart_winner", "baseline/first"): "verified",
        ("debateart_winner", "baseline/longest"): "self_reported",
        ("debateart_winner", "baseline/last"): "baseline",
    }
    files = [
        p
        for (task, model) in standing
        for p in (subs / model.replace("/", "__")).glob(f"results_{task}_*.json")
        if p.name.count("_") == task.count("_") + 2
    ]
    ok, errors = validate_all(files, data_dir=DATA_DIR)
    assert not errors, errors
    kept = [(s, standing[(s.task.name, s.results.model.name)], "given for this page") for s in ok]
    out = tmp_path_factory.mktemp("mixed")
    board = build_leaderboard(kept)
    write_leaderboard(board, out)
    return out / "index.html", json.loads((out / "leaderboard.json").read_text())


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
        lo, hi = re.fullmatch(r"\[(.+), (.+)\]", cell["ci"].strip()).groups()
        assert _shown_matches(lo, ci[0]) and _shown_matches(hi, ci[1]), (where, cell["ci"], ci)
    if cell["n"] is not None:
        assert int(cell["n"]) == mv["n"], where


def test_page_loads_offline_with_no_external_resource(driver: Any) -> None:
    assert driver.execute_script("return document.documentElement.getAttribute('data-ready')") == "1", (
        "the page script did not run"
    )
    assert driver.execute_script("return performance.getEntriesByType('resource').length") == 0
    assert (
        driver.execute_script("return document.querySelectorAll('[src], link[href], iframe, object, embed').length")
        == 0
    )
    hrefs = driver.execute_script(
        "return Array.prototype.map.call(document.querySelectorAll('a[href]'), "
        "function(a){return a.getAttribute('href')})"
    )
    # in-page anchors, and the canonical judges' cards the job writes beside the page (never a remote address)
    assert hrefs and all(h.startswith("#") or re.fullmatch(r"cards/[^:/]+/[^:/]+/card\.html", h) for h in hrefs), hrefs
    assert any(h.startswith("cards/") for h in hrefs)
    severe = [e for e in driver.get_log("browser") if e.get("level") == "SEVERE"]
    assert not severe, severe  # no script error, no blocked load


def _check_rows(shown: list[dict[str, Any]], entries: list[dict[str, Any]], t: dict[str, Any]) -> None:
    assert [r["entry"] for r in shown] == [e["id"] for e in entries]
    for r, e in zip(shown, entries, strict=True):
        assert r["model"] == e["model"] and r["standing"] == e["standing"]
        assert r["n"] == str(e["metrics"][t["primary_metric"]]["n"])
        assert float(r["leftOut"]) == pytest.approx(e["left_out_share"])
        assert set(r["cells"]) == {c["name"] for c in t["metrics"]}
        for name, cell in r["cells"].items():
            _check_cell(cell, e["metrics"][name], f"{t['name']} {e['id']} {name}")


def _check_page(shown: dict[str, Any], board: dict[str, Any]) -> None:
    """Every task's three groups and the overview, as the JSON has them."""
    names = [t["name"] for t in board["tasks"]]
    section_names = sorted(set(names) | {r["task"] for r in board["reported"]["rows"]})
    assert sorted(shown["tasks"]) == section_names
    assert shown["nav"] == ["#overview"] + [f"#task-{n}" for n in section_names] + (
        ["#papers"] if board["reported"]["papers"] else []
    )
    for t in board["tasks"]:
        page = shown["tasks"][t["name"]]
        assert page["visible"] and page["title"] == t["name"]
        if t["verified"]:
            _check_rows(page["ranked"], t["verified"], t)
            for r, e in zip(page["ranked"], t["verified"], strict=True):
                assert r["rank"] == (str(e["rank"]) if e["rank"] is not None else "—")
        else:
            assert [r["entry"] for r in page["ranked"]] == ["none"] and "nothing is ranked" in page["ranked"][0]["text"]
        baselines = [r for r in page["references"] if r["entry"] != "human-reference"]
        _check_rows(baselines, t["baselines"], t)
        for r, e in zip(baselines, t["baselines"], strict=True):  # reference lines: never a rank or a tier
            assert r["rank"] == "—" and r["tier"] == "—" and "reference-line" in r["cls"]
            assert r["level"] == f"{e['baseline_level']} level" and r["provenance"] == "baseline re-run"
        refs = [r for r in page["references"] if r["entry"] == "human-reference"]
        assert len(refs) == (1 if t["human_reference"] else 0)
        for ref in t["human_reference"]:
            _check_cell(refs[0]["cells"][ref["metric"]], ref["value"], f"{t['name']} human reference {ref['metric']}")
        _check_rows(page["selfReported"], t["self_reported"], t)
        for r, e in zip(page["selfReported"], t["self_reported"], strict=True):  # apart, never ranked
            assert (
                r["rank"] is None
                and r["tier"] is None
                and r["provenance"] == "self-reported"
                and e["standing_reason"] in r["why"]
            )
        assert (page["selfHeading"] is not None) == bool(t["self_reported"])
        assert page["baselineLines"] >= len(
            [e for e in t["baselines"] if e["metrics"][t["primary_metric"]]["value"] is not None]
        )
    for shown_rows, rows in (
        (shown["overview"], board["overview"]),
        (shown["selfOverview"], board["overview_self_reported"]),
    ):
        assert [(r["judge"], r["model"], r["method"]) for r in shown_rows] == [
            (r["judge"], r["model"], r["method"]) for r in rows
        ]
        columns = {
            task for row in rows for task in row["cells"]
        }  # the tasks where one of the table's judges has an entry
        for shown_row, row in zip(shown_rows, rows, strict=True):
            assert set(shown_row["cells"]) == columns
            for task, cell in shown_row["cells"].items():
                ref = row["cells"].get(task)
                if ref is None:
                    assert cell["value"] == ""
                    continue
                assert cell["entry"] == ref["entry"]
                _check_cell(
                    cell, {"value": ref["value"], "ci95": ref["ci95"], "n": None}, f"overview {row['model']} {task}"
                )
    assert all(r["position"] is None for r in shown["selfOverview"])  # no rank column at all
    assert (shown["waiting"] or None) == board["overall_waiting"]


def test_the_committed_page_ranks_only_the_leaderboards_own_numbers(
    driver: Any, board: dict[str, Any], tmp_path: Path
) -> None:
    driver.get(PAGE.as_uri())
    shown = driver.execute_script(EXTRACT)
    assert shown["lede"].startswith("A rank is the leaderboard's own number.") and "self-reported" in shown["lede"]
    _check_page(shown, board)
    # the canonical judge local/smollm2/direct: the job's own run on all 631 speeches, ranked with its own
    # numbers; the submission nominating it is self-reported, compared with that run
    (smollm2,) = [e for t in board["tasks"] for e in t["verified"]]
    (nominee,) = [e for t in board["tasks"] for e in t["self_reported"]]
    rep = nominee["comparison"]
    assert smollm2["model"] == "local/smollm2" and smollm2["rank"] == 1 and smollm2["n_docs"] == 631
    assert smollm2["canonical"]["judge"] == "local/smollm2/direct" and smollm2["canonical"]["settings"] == {}
    assert nominee["nominates"] == "local/smollm2/direct" and rep["n_docs"] == 631 and rep["within_noise"]
    assert smollm2["metrics"]["kendall_tau_c"]["value"] == rep["reproduced"] != rep["submitted"]
    assert nominee["rank"] is None and board["waiting"] == []
    settings = driver.find_elements("css selector", f'tr[data-entry="{smollm2["id"]}"] .sub.settings')
    assert [s.get_attribute("textContent") for s in settings] == ["the task's own settings"]  # the row shows them
    assert not driver.find_elements("css selector", ".waiting-list li")
    assert all(e["rank"] is None for t in board["tasks"] for e in t["baselines"])
    # the overall task set is the maintainers'; the overview waits for two verified judges and says so
    assert (
        board["overall_waiting"]
        and "at least 2 verified judges" in shown["waiting"]
        and "fixed by the maintainers" in shown["waiting"]
    )
    (row,) = shown["overview"]  # its row, with no overall position until a second verified judge
    assert (
        row["model"] == "local/smollm2"
        and row["position"] == "—"
        and row["cells"]["ibm_speech_likert"]["text"] == "−0.058"
    )
    # a look for humans (not committed): DEBENCH_SCREENSHOT_DIR keeps it
    png = tmp_path / "leaderboard.png"
    assert driver.save_screenshot(str(png)) and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("DEBENCH_SCREENSHOT_DIR"):
        shutil.copy(png, Path(os.environ["DEBENCH_SCREENSHOT_DIR"]) / png.name)


@pytest.mark.real_data("the committed submissions validate only against the real data's content hashes")
def test_a_page_with_verified_self_reported_and_baseline_entries(
    driver: Any, mixed: tuple[Path, dict[str, Any]]
) -> None:
    page, board = mixed
    driver.get(page.as_uri())
    shown = driver.execute_script(EXTRACT)
    _check_page(shown, board)
    assert board["overall_waiting"] is None and board["overall_tasks"] == ["bp_top_team", "debateart_winner"]
    for t in ("bp_top_team", "debateart_winner"):
        assert [r["model"] for r in shown["tasks"][t]["selfReported"]] == ["baseline/longest"]
        assert "baseline/longest" not in {r["model"] for r in shown["tasks"][t]["ranked"]}
    assert {r["model"] for r in shown["selfOverview"]} == {"baseline/longest"}
    assert "baseline/longest" not in {r["model"] for r in shown["overview"]}


@pytest.mark.real_data("the committed submissions validate only against the real data's content hashes")
def test_page_shows_tiers_and_why_entries_are_unranked(driver: Any, mixed: tuple[Path, dict[str, Any]]) -> None:
    page, board = mixed
    driver.get(page.as_uri())
    shown = driver.execute_script(EXTRACT)
    n_tiers = 0
    for t in board["tasks"]:
        previous = "none"
        for r, e in zip(shown["tasks"][t["name"]]["ranked"], t["verified"], strict=True):
            assert r["tier"] == (f"T{e['tier']}" if e["tier"] is not None else "—"), (t["name"], e["id"])
            assert r["dataTier"] == ("" if e["tier"] is None else str(e["tier"]))
            assert r["tierStart"] == (e["tier"] != previous), (t["name"], e["id"])  # a rule above each new tier
            previous = e["tier"]
            if e["unranked_reason"]:
                assert r["why"] == f"not ranked: {e['unranked_reason']}"
            else:
                assert r["why"] is None
            assert r["provenance"] == "reproduced"
        n_tiers = max([n_tiers, *((e["tier"] or 0) for e in t["verified"])])
    assert n_tiers >= 2, "the page should show more than one tier somewhere"
    ranked_overall = [r for r in board["overview"] if r["overall_rank"] is not None]
    assert len(ranked_overall) >= 2
    for shown_row, row in zip(shown["overview"], board["overview"], strict=True):
        assert shown_row["position"] == (str(row["overall_rank"]) if row["overall_rank"] is not None else "—")
        assert (shown_row["miss"] is None) == (row["overall_rank"] is not None)
        if shown_row["miss"]:
            missing = row["missing_tasks"]
            assert shown_row["miss"].startswith("not ranked overall: no ranked entry on")
            assert (
                (", ".join(missing) in shown_row["miss"])
                if len(missing) <= 2
                else (f"{len(missing)} of {len(board['overall_tasks'])} tasks" in shown_row["miss"])
            )
        for task, cell in shown_row["cells"].items():
            ref = row["cells"].get(task)
            if ref is not None and ref["rank"] is not None:
                assert cell["rk"] == f"#{ref['rank']} of {ref['n_ranked']} · T{ref['tier']}"


def test_reported_rows_apart_and_marked(driver: Any, board: dict[str, Any]) -> None:
    driver.get(PAGE.as_uri())
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
            assert (got["paper"], got["source"], got["model"], got["method"]) == (
                want["paper"],
                want["table"],
                want["model"],
                want["method"],
            )
            assert want["table"] in got["text"]
            for name, v in want["metrics"].items():
                assert float(got["cells"][name]) == v["value"] and f"printed {v['printed']}" in got["text"]
        # the task's tables hold no reported row
        models = {r["model"] for r in page["ranked"] + page["references"] + page["selfReported"]}
        assert not models & {r["model_label"] for r in expected}


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
    col = driver.execute_script(
        "return Array.prototype.indexOf.call(arguments[0].parentNode.children, arguments[0])", th
    )
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


@pytest.mark.real_data("the committed submissions validate only against the real data's content hashes")
def test_clicking_a_header_sorts_the_rows(driver: Any, mixed: tuple[Path, dict[str, Any]]) -> None:
    from selenium.webdriver.common.by import By

    page, board = mixed
    driver.get(page.as_uri())  # fresh order
    for t in board["tasks"]:
        if len(t["verified"]) < 2:
            continue
        table = driver.find_element(By.CSS_SELECTOR, f'section[data-task="{t["name"]}"] table.lb.ranked')
        refs = driver.execute_script(
            "return Array.prototype.map.call(arguments[0].tBodies[1].rows, function(r){return "
            "r.getAttribute('data-entry')})",
            table,
        )
        for c in t["metrics"]:
            first, _ = _click_and_check(driver, table, c["name"])
            # the first click puts the best values first
            assert first == ("descending" if c["higher_is_better"] else "ascending")
        for key in ("n", "left_out", "tier", "rank"):
            _click_and_check(driver, table, key)
        # the reference lines stay below, in their order: sorting never mixes them with the ranked entries
        assert (
            driver.execute_script(
                "return Array.prototype.map.call(arguments[0].tBodies[1].rows, function(r){return "
                "r.getAttribute('data-entry')})",
                table,
            )
            == refs
        )
    overview = driver.find_element(By.CSS_SELECTOR, 'table.overview[data-table="overview"]')
    for key in [
        "position",
        "mean_rank",
        "n_tasks",
        *sorted({task for row in board["overview"] for task in row["cells"]}),
    ]:
        _click_and_check(driver, overview, key)


@pytest.mark.real_data("the committed submissions validate only against the real data's content hashes")
def test_model_column_sorts_by_name(driver: Any, mixed: tuple[Path, dict[str, Any]]) -> None:
    from selenium.webdriver.common.by import By

    page, board = mixed
    driver.get(page.as_uri())
    t = max(board["tasks"], key=lambda t: len(t["verified"]))
    table = driver.find_element(By.CSS_SELECTOR, f'section[data-task="{t["name"]}"] table.lb.ranked')
    th = table.find_element(By.CSS_SELECTOR, 'thead th[data-key="model"]')
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", th)
    th.find_element(By.TAG_NAME, "button").click()
    assert th.get_attribute("aria-sort") == "ascending"
    names = driver.execute_script(
        "return Array.prototype.map.call(arguments[0].tBodies[0].querySelectorAll('td.model .name'), "
        "function(e){return e.innerText})",
        table,
    )
    assert names == sorted(names, key=str.lower) and sorted(names) == sorted(e["model"] for e in t["verified"])


HOSTILE = '<script class="injected">document.title="pwned"</script><b class="injected">x</b>'


def test_everything_a_submission_or_paper_holds_is_escaped(
    driver: Any, mixed: tuple[Path, dict[str, Any]], board: dict[str, Any], tmp_path: Path
) -> None:
    """Model names, identities, submission folders, error reasons and reported rows rendered
    through the templates' autoescape: markup shows as text and never runs."""
    from debench.leaderboard.board import Leaderboard
    from debench.leaderboard.page import render_page

    lb = Leaderboard.model_validate(mixed[1])
    lb.reported = Leaderboard.model_validate(board).reported
    t = next(t for t in lb.tasks if t.self_reported)
    for entry in (t.verified[0], t.self_reported[0], t.baselines[0]):
        entry.model = "openai/" + HOSTILE
        entry.submission = HOSTILE
        entry.method = 'direct"><b class="injected">x'
        entry.unranked_reason = HOSTILE
        entry.standing_reason = HOSTILE
        entry.provenance.checks.append(HOSTILE)
    lb.overview[0].model = HOSTILE
    lb.overview_self_reported[0].model = HOSTILE
    lb.overall_waiting = HOSTILE
    lb.tasks[0].description = HOSTILE
    row = lb.reported.rows[0]
    row.model_label, row.setting, row.note = HOSTILE, HOSTILE, "</script>" + HOSTILE
    lb.title = HOSTILE
    page = tmp_path / "hostile.html"
    page.write_text(render_page(lb), encoding="utf-8")
    driver.get(page.as_uri())
    assert driver.execute_script("return document.documentElement.getAttribute('data-ready')") == "1", (
        "the page script did not run"
    )
    assert driver.execute_script("return document.querySelectorAll('.injected').length") == 0
    assert driver.title == HOSTILE  # shown as text
    text = driver.execute_script("return document.body.innerText")
    assert text.count('<b class="injected">x</b>') >= 6
    # the embedded JSON still parses and holds the strings unchanged
    data = json.loads(driver.execute_script("return document.getElementById('leaderboard-data').textContent"))
    got = next(x for x in data["tasks"] if x["name"] == t.name)
    assert (
        got["self_reported"][0]["submission"] == HOSTILE
        and data["reported"]["rows"][0]["note"] == "</script>" + HOSTILE
    )
