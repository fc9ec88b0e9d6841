"""Headless Chromium (Debian's ``chromium`` and ``chromedriver``, driven by selenium) with the
network off: how tests and benchmarks open debench's static pages as a user's browser would."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

FLAGS = (
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
)


def chromium_paths() -> tuple[str | None, str | None]:
    """(chromium, chromedriver), either None when not installed."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    return browser, shutil.which("chromedriver")


@contextmanager
def headless_chromium() -> Iterator[Any]:
    """A selenium driver of headless Chromium with the network emulated offline."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    browser, driver_path = chromium_paths()
    if not (browser and driver_path):
        raise RuntimeError("chromium and chromedriver are not installed (apt-get install chromium chromium-driver)")
    with tempfile.TemporaryDirectory(prefix="debench-chromium-") as profile:
        opts = webdriver.ChromeOptions()
        opts.binary_location = browser
        for flag in FLAGS:
            opts.add_argument(flag)
        opts.add_argument(f"--user-data-dir={profile}")
        opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        drv = webdriver.Chrome(service=Service(executable_path=driver_path), options=opts)
        try:
            drv.execute_cdp_cmd("Network.enable", {})
            drv.execute_cdp_cmd(
                "Network.emulateNetworkConditions",
                {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
            )
            yield drv
        finally:
            drv.quit()
