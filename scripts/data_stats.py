"""Statistics of the real data sets, computed through debench's adapters and checked against the
numbers the papers print. Exits 1 on any mismatch.

    python scripts/data_stats.py [--data-dir ../shared/datasets]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path

from debench.data.bp_competition import load_bp
from debench.data.debateart import load_debateart
from debench.data.debatebench import load_debatebench
from debench.data.ibm_speeches import load_ibm_speeches

PAPER = {
    "ibm": {"speeches": 631, "topics": 76, "ratings_per_speech": 15, "sources": 8},
    # Debatrix Table 2 (pro / tie / con). The general winner is printed as 37/7/56; the data has 38/6/56.
    "debateart": {"argument": (33, 11, 56), "source": (14, 67, 19), "language": (9, 66, 25), "general": (38, 6, 56)},
    # Debatrix Table 4: teams among the gold winners.
    "bp": {"debates": 22, "winners": {"OG": 8, "OO": 16, "CG": 8, "CO": 6}},
    "debatebench": {"debates": 32},
}


def check(name: str, got: object, want: object, failures: list[str]) -> None:
    ok = got == want
    print(f"  {'ok ' if ok else 'BAD'} {name}: {got}" + ("" if ok else f" (paper: {want})"))
    if not ok:
        failures.append(name)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data-dir", default=os.environ.get("DEBENCH_DATA_DIR", "../shared/datasets"))
    root = Path(ap.parse_args().data_dir)
    failures: list[str] = []

    print("IBM debate speeches (Debatable Intelligence)")
    ibm = load_ibm_speeches(root / "ibm_debate_speeches")
    check("speeches", len(ibm), PAPER["ibm"]["speeches"], failures)
    check("topics", len({d.fields["topic"] for d in ibm}), PAPER["ibm"]["topics"], failures)
    check("ratings per speech", {len(d.meta["ratings"]) for d in ibm}, {PAPER["ibm"]["ratings_per_speech"]}, failures)
    check("sources", len({d.meta["source"] for d in ibm}), PAPER["ibm"]["sources"], failures)
    print(
        f"  annotators: {len({a for d in ibm for a in d.meta['annotators']})}; ratings: "
        f"{sum(len(d.meta['ratings']) for d in ibm)}"
    )
    print(f"  per source: {dict(sorted(Counter(d.meta['source'] for d in ibm).items()))}")
    print(f"  rating distribution: {dict(sorted(Counter(r for d in ibm for r in d.meta['ratings']).items()))}")

    print("DebateArt (Debatrix)")
    da = root / "debatrix_panelbench" / "DebateArt"
    for dim, want in PAPER["debateart"].items():
        c = Counter(d.target for d in load_debateart(da, dim))
        check(f"{dim} pro/tie/con", (c["pro"], c["tie"], c["con"]), want, failures)
    docs = load_debateart(da)
    print(
        f"  debates: {len(docs)}; speeches: {sum(len(d.speeches) for d in docs)}; per debate: "
        f"{dict(sorted(Counter(len(d.speeches) for d in docs).items()))}"
    )
    print(f"  mean words per debate: {sum(len(s.text.split()) for d in docs for s in d.speeches) / len(docs):.0f}")

    print("BP competition (Debatrix)")
    bp = load_bp(root / "debatrix_panelbench" / "BP-Competition")
    check("debates", len(bp), PAPER["bp"]["debates"], failures)
    check(
        "winning teams",
        dict(sorted(Counter(t for d in bp for t in d.target).items())),
        dict(sorted(PAPER["bp"]["winners"].items())),
        failures,
    )
    print(f"  mean words per debate: {sum(len(s.text.split()) for d in bp for s in d.speeches) / len(bp):.0f}")

    print("DebateBench (transcripts only: no labels here)")
    db = load_debatebench(root / "debatebench", require_labels=False)
    check("debates", len(db), PAPER["debatebench"]["debates"], failures)
    print(
        f"  transcripts needing a guess: {sum(1 for d in db if d.meta['parse_warnings'])}; points of information: "
        f"{sum(d.meta['n_pois'] for d in db)}"
    )
    print(f"  mean words per debate: {sum(len(s.text.split()) for d in db for s in d.speeches) / len(db):.0f}")

    print("all checks hold" if not failures else f"MISMATCH: {', '.join(failures)}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
