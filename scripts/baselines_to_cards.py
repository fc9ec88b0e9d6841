"""Run every task's baselines on the real data and write their numbers into the data cards.

    DEBENCH_DATA_DIR=../shared/datasets python scripts/baselines_to_cards.py [--out results/baselines]

Each card in data_cards/ gets, between ``<!-- baselines:start -->`` and ``<!-- baselines:end -->``
(or in place of the ``<!-- baselines: ... -->`` placeholder line), a table of each task's
baselines with every metric's value and 95% CI. The results files are kept under --out, so the
leaderboard can be seeded from them.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
from pathlib import Path

from debench.models.factory import make_model
from debench.run.pipeline import EvalOptions, evaluate_task
from debench.run.task_lookup import load_task, task_names

CARDS = {
    "ibm_speeches": "ibm_debate_speeches.md",
    "debateart": "debateart.md",
    "bp_competition": "bp_competition.md",
    "debatebench": "debatebench.md",
}
START, END = "<!-- baselines:start -->", "<!-- baselines:end -->"


def fmt(m) -> str:
    if m.value is None:
        return "—"
    ci = "" if m.ci95 is None else f" [{m.ci95[0]:.3f}, {m.ci95[1]:.3f}]"
    return f"{m.value:.3f}{ci}"


async def run(out: Path, data_dir: str) -> dict[str, list[str]]:
    sections: dict[str, list[str]] = {}
    seen: dict[str, str] = {}
    for task in (load_task(name)[0] for name in task_names()):
        if not task.baselines or task.dataset.adapter not in CARDS:
            continue
        # Baselines never read the prompt: variants of one data set and metric list score alike.
        key = repr((task.dataset.model_dump(), [m.model_dump() for m in task.metrics], task.baselines))
        if key in seen:
            sections.setdefault(task.dataset.adapter, []).extend(
                [f"**{task.name}**: baselines do not read the prompt, so the numbers are those of **{seen[key]}**.", ""]
            )
            continue
        seen[key] = task.name
        _, path = load_task(task.name)
        rows = []
        for b in task.baselines:
            model = make_model(f"baseline/{b}", seed=0)
            opts = EvalOptions(output_dir=out, data_source="local", data_dir=data_dir, progress=False, use_cache=False)
            try:
                res = (await evaluate_task(task, path, model, opts)).results
            except Exception as exc:  # noqa: BLE001 - a baseline that does not apply is reported as such
                print(f"{task.name} baseline/{b}: skipped ({exc})", file=sys.stderr)
                continue
            names = [k for k in res.metrics if k not in ("parse_failure_rate", "completion_rate")]
            rows.append((f"baseline/{b}", names, res))
        if not rows:
            continue
        names = rows[0][1]
        lines = [
            f"**{task.name}** (n = {rows[0][2].n_samples})",
            "",
            "| baseline | " + " | ".join(names) + " |",
            "| --- |" + " --- |" * len(names),
        ]
        for label, _, res in rows:
            lines.append(f"| {label} | " + " | ".join(fmt(res.metrics[n]) for n in names) + " |")
        sections.setdefault(task.dataset.adapter, []).extend([*lines, ""])
    return sections


def write_card(card: Path, lines: list[str]) -> None:
    text = card.read_text(encoding="utf-8")
    block = "\n".join([START, "", *lines, END])
    if START in text and END in text:
        text = re.sub(re.escape(START) + r".*?" + re.escape(END), lambda _: block, text, flags=re.DOTALL)
    elif re.search(r"<!-- baselines:.*?-->", text):
        text = re.sub(r"<!-- baselines:.*?-->", lambda _: block, text, count=1)
    else:
        text = text.rstrip() + "\n\n## Baselines\n\n" + block + "\n"
    card.write_text(text, encoding="utf-8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", type=Path, default=Path("results/baselines"))
    ap.add_argument("--cards", type=Path, default=Path(__file__).resolve().parent.parent / "data_cards")
    args = ap.parse_args()
    data_dir = os.environ.get("DEBENCH_DATA_DIR")
    if not data_dir:
        print("set DEBENCH_DATA_DIR to the real data (e.g. ../shared/datasets)", file=sys.stderr)
        return 2
    sections = asyncio.run(run(args.out, data_dir))
    for adapter, lines in sections.items():
        card = args.cards / CARDS[adapter]
        if card.exists():
            write_card(card, lines)
            print(f"updated {card}")
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
