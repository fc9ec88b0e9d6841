"""Downloading one file over HTTP(S) with a progress bar, its sha256 computed on the way.

A short body (fewer bytes than the server announced) is refused; nothing is retried or repaired.
Errors are one line (``UserError``) naming the URL; offline, the line says to copy the data by hand
and set ``DEBENCH_DATA_DIR``.
"""

from __future__ import annotations

import hashlib
import http.client
import urllib.error
import urllib.request
from pathlib import Path

from debench.core.errors import UserError

CHUNK = 1 << 16
TIMEOUT_S = 60.0
OFFLINE_HINT = "offline? copy the data sets by hand and set DEBENCH_DATA_DIR to the folder holding them"


def download(url: str, dest: Path, *, progress: bool = True, label: str | None = None) -> str:
    """Stream ``url`` to ``dest``; returns the sha256 (hex) of the bytes received."""
    from tqdm import tqdm

    request = urllib.request.Request(url, headers={"User-Agent": "debench-data-fetch"})
    h = hashlib.sha256()
    received = 0
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as resp, open(dest, "wb") as out:
            length = resp.headers.get("Content-Length")
            total = int(length) if length and length.isdigit() else None
            with tqdm(
                total=total,
                unit="B",
                unit_scale=True,
                unit_divisor=1024,
                desc=label or dest.name,
                disable=not progress,
                leave=False,
            ) as bar:
                while chunk := resp.read(CHUNK):
                    out.write(chunk)
                    h.update(chunk)
                    received += len(chunk)
                    bar.update(len(chunk))
    except urllib.error.HTTPError as exc:
        raise UserError(f"cannot download {url}: HTTP {exc.code} {exc.reason}") from None
    except urllib.error.URLError as exc:
        raise UserError(f"cannot download {url} ({exc.reason}); {OFFLINE_HINT}") from None
    except (http.client.IncompleteRead, ConnectionError, TimeoutError) as exc:
        raise UserError(
            f"download of {url} broke off after {received} bytes ({type(exc).__name__}); nothing was kept"
        ) from None
    if total is not None and received != total:
        raise UserError(f"download of {url} is truncated: {received} of {total} bytes; nothing was kept")
    return h.hexdigest()
