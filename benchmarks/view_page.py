"""How long ``debench view``'s report of a 631-sample run takes to open in Chromium.

``python -m benchmarks.view_page [--data-dir DIR] [--work DIR]``. The run is a real
``ibm_speech_likert`` evaluation (631 speeches) against the stub server with a realistic mix of
answers, parse failures and errors (synthetic speeches of the same length when the real data is
not found). The page is rendered, then opened from disk in headless Chromium (network off) three
times; "open" is the navigation's ``loadEventEnd`` (HTML parsed, laid out, scripts run), the
median is compared with the target. ``measure_view_page`` is what another benchmark module calls.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

TARGET_OPEN_S = 2.0
N_SAMPLES = 631
HERE = Path(__file__).resolve().parent


class ViewPageFigures(BaseModel):
    n_samples: int
    page_mb: float
    render_s: float
    open_s: float
    """Median of the runs: navigation start -> loadEventEnd."""
    open_runs_s: list[float]
    filter_s: float
    """Clicking the 'wrong' filter until the counter shows the result."""
    search_s: float
    """Typing a document id until the counter shows the result (the 120 ms debounce included)."""
    data: str

    @property
    def held(self) -> bool:
        return self.open_s < TARGET_OPEN_S

    def check_line(self) -> str:
        state = "held    " if self.held else "NOT HELD"
        return (
            f"[{state}] view page of {self.n_samples} samples opens in Chromium < {TARGET_OPEN_S:.0f} s: "
            f"{self.open_s:.2f} s (median of {len(self.open_runs_s)}; {self.page_mb:.1f} MB)"
        )


def make_run(work: Path, data_dir: Path | None) -> tuple[Path, str]:
    """A finished run of 631 documents against the stub (answers, parse failures, errors)."""
    from debench.api import evaluate
    from debench.testing.stub_server import FaultPlan, StubServer, likert_responder

    if data_dir is not None and (data_dir / "ibm_debate_speeches" / "data.csv").exists():
        task = "ibm_speech_likert"
        what = f"ibm_speech_likert on the real data ({data_dir})"
    else:
        from benchmarks.workload import BENCH_TASK, make_data

        data_dir = make_data(work, N_SAMPLES)
        task = str(BENCH_TASK)
        what = "synthetic speeches (real data not found)"
    os.environ["DEBENCH_CACHE_DIR"] = str(work / "cache")
    with StubServer(
        responder=likert_responder(seed=7, unparseable_rate=0.1), faults=FaultPlan(server_error=0.05, seed=7)
    ) as srv:
        (out,) = evaluate(
            task,
            "openai/stub",
            api_base=srv.base_url,
            model_args="max_retries=0",
            output_dir=work / "out",
            data_source="local",
            data_dir=data_dir,
            n_bootstrap=100,
        )
    return out.results_path, what


def open_page(page: Path, repeats: int = 3) -> tuple[list[float], float, float]:
    """(open times, filter time, search time) in seconds."""
    from selenium.webdriver.common.by import By

    from debench.testing.browser import headless_chromium

    times = []
    with headless_chromium() as drv:
        for _ in range(repeats):
            drv.get("about:blank")
            drv.get(page.as_uri())
            ms = drv.execute_script("return performance.getEntriesByType('navigation')[0].loadEventEnd")
            times.append(float(ms) / 1000)
        total = drv.find_element(By.ID, "shown").text
        t0 = time.perf_counter()
        drv.find_element(By.ID, "filter-wrong").click()
        drv.execute_script("return document.getElementById('shown').textContent")
        filter_s = time.perf_counter() - t0
        drv.find_element(By.ID, "filter-all").click()
        query = drv.find_element(By.CSS_SELECTOR, "article.sample").get_attribute("data-doc")
        t0 = time.perf_counter()
        drv.find_element(By.ID, "search").send_keys(query)
        deadline = time.time() + 10
        while drv.find_element(By.ID, "shown").text == total and time.time() < deadline:
            time.sleep(0.01)
        search_s = time.perf_counter() - t0
    return times, filter_s, search_s


def measure_view_page(work: Path, data_dir: Path | None = None) -> ViewPageFigures:
    from debench.view.render import write_view

    results, what = make_run(work, data_dir)
    t0 = time.perf_counter()
    page = write_view(results, data_dir=str(data_dir) if data_dir else None)
    render_s = time.perf_counter() - t0
    runs, filter_s, search_s = open_page(page)
    return ViewPageFigures(
        n_samples=N_SAMPLES, page_mb=page.stat().st_size / 1e6, render_s=render_s, open_s=statistics.median(runs),
        open_runs_s=runs, filter_s=filter_s, search_s=search_s, data=what,
    )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks.view_page", description=__doc__.splitlines()[0])
    p.add_argument(
        "--data-dir",
        type=Path,
        default=Path(os.environ.get("DEBENCH_DATA_DIR") or HERE.parent.parent / "shared" / "datasets"),
    )
    p.add_argument("--work", type=Path, default=None, help="keep the run and the page here (default: a temp dir)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="debench-view-bench-") as tmp:
        work = args.work or Path(tmp)
        f = measure_view_page(work, args.data_dir if args.data_dir.exists() else None)
        print(f"data: {f.data}")
        print(f"page: {f.page_mb:.2f} MB, rendered in {f.render_s:.2f} s")
        print(
            f"open in Chromium: {', '.join(f'{t:.2f}' for t in f.open_runs_s)} s; 'wrong' filter "
            f"{f.filter_s * 1000:.0f} ms; search {f.search_s * 1000:.0f} ms"
        )
        print(f.check_line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
