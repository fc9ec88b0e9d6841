"""Refresh debench/models/openai_prices.json, the price table of the direct HTTP client, from the
installed litellm's public model table (``litellm.model_cost``).

    python scripts/refresh_prices.py          # write
    python scripts/refresh_prices.py --check  # exit 1 if the file differs from the installed litellm's table

With ``LITELLM_LOCAL_MODEL_COST_MAP=True`` litellm's table is the copy in its wheel; without it,
litellm fetches its newest table at import (and falls back to that copy offline).
"""

from __future__ import annotations

import os
import sys
from importlib import metadata

from debench.models.price_table import SNAPSHOT, snapshot_from, snapshot_json


def current() -> str:
    import litellm

    where = (
        "bundled table"
        if os.environ.get("LITELLM_LOCAL_MODEL_COST_MAP", "").lower() == "true"
        else "table as loaded at import"
    )
    return snapshot_json(
        snapshot_from(
            litellm.model_cost,
            f"litellm {metadata.version('litellm')} litellm.model_cost ({where}): OpenAI chat models",
        )
    )


def main(argv: list[str]) -> int:
    text = current()
    if "--check" in argv:
        if SNAPSHOT.read_text(encoding="utf-8") != text:
            print(
                f"{SNAPSHOT} differs from the installed litellm's table: run python scripts/refresh_prices.py",
                file=sys.stderr,
            )
            return 1
        print(f"{SNAPSHOT}: up to date")
        return 0
    SNAPSHOT.write_text(text, encoding="utf-8")
    print(f"wrote {SNAPSHOT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
