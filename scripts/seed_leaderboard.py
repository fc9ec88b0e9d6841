"""Run every task's baselines on the real data into ``leaderboard/submissions/`` and rebuild.

    DEBENCH_DATA_DIR=../shared/datasets python scripts/seed_leaderboard.py
    python scripts/seed_leaderboard.py --data-dir ../shared/datasets --tasks ibm_speech_likert

This is the one way to regenerate the seed submissions: one command, about two minutes on two
cores (baselines call no model; the rebuild validates every submission). Rerun it whenever a task
definition or what a model identity contains changes (the ``config_sha256`` or the run
fingerprints change, and the old results no longer validate); each baseline's previous files for
the task are removed first. Samples logs are written without
the prompts (``messages``) to keep the committed files small. Tasks that cannot be loaded or
whose real data is absent are skipped with a note. Then the leaderboard (with the papers'
reported numbers, ``leaderboard/reported.json``) is rebuilt.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def _clear_old(folder: Path, task: str) -> None:
    """Remove this task's previous results, samples and plots (other fingerprints) from the folder."""
    pattern = re.compile(
        rf"^(results|samples)_{re.escape(task)}_[0-9a-f]{{12}}(\.jsonl?|_(scores|sources)\.(png|svg))$"
    )
    if folder.is_dir():
        for p in folder.iterdir():
            if pattern.match(p.name):
                p.unlink()


async def _run(task_names: list[str], out: Path, data_dir: str, seed: int) -> int:
    from debench.core.errors import UserError
    from debench.data.loading import load_task_data
    from debench.models.factory import make_model
    from debench.run.pipeline import EvalOptions, evaluate_task, slug
    from debench.run.task_lookup import load_task

    n = 0
    for name in task_names:
        try:
            task, path = load_task(name)
            load_task_data(task, "local", data_dir)
        except (UserError, OSError, ValueError) as exc:
            print(f"skip {name}: {exc}", file=sys.stderr)
            continue
        for b in task.baselines:
            spec = f"baseline/{b}"
            try:
                model = make_model(spec, seed=seed)
            except UserError as exc:
                print(f"skip {name} {spec}: {exc}", file=sys.stderr)
                continue
            _clear_old(out / slug(model.name), task.name)
            opts = EvalOptions(
                output_dir=out,
                seed=seed,
                data_source="local",
                data_dir=data_dir,
                use_cache=False,
                progress=False,
                store_messages=False,
                command=["eval", "--task", task.name, "--model", spec, "--seed", str(seed), "--data-source", "local"],
            )
            try:
                # the task file as the repository names it, not this machine's absolute path
                result = await evaluate_task(
                    task, path.resolve().relative_to(REPO) if path.resolve().is_relative_to(REPO) else path, model, opts
                )
            except UserError as exc:
                print(f"skip {name} {spec}: {exc}", file=sys.stderr)
                continue
            finally:
                await model.aclose()
            n += 1
            print(f"{task.name:<28} {spec:<22} -> {result.results_path.relative_to(out)}")
    return n


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--data-dir", default=os.environ.get("DEBENCH_DATA_DIR"), help="real data (default: $DEBENCH_DATA_DIR)"
    )
    ap.add_argument("--submissions", type=Path, default=REPO / "leaderboard" / "submissions")
    ap.add_argument("--out", type=Path, default=REPO / "leaderboard")
    ap.add_argument("--tasks", default=None, help="comma-separated task names (default: every task)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-build", action="store_true", help="only run the baselines")
    args = ap.parse_args(argv)
    if not args.data_dir:
        ap.error("the real data is needed: set DEBENCH_DATA_DIR or pass --data-dir")

    from debench.run.task_lookup import task_names

    names = [t.strip() for t in args.tasks.split(",")] if args.tasks else task_names()
    n = asyncio.run(_run(names, args.submissions, args.data_dir, args.seed))
    print(f"{n} baseline run(s) written under {args.submissions}")
    if args.no_build:
        return 0
    from debench.leaderboard.publish import build

    built = build(
        args.submissions,
        args.out,
        data_dir=args.data_dir,
        reported_path=REPO / "leaderboard" / "reported.json",
        trusted_path=REPO / "leaderboard" / "trusted_endpoints.yaml",
    )
    print(
        f"leaderboard: {sum(len(t.entries) for t in built.board.tasks)} entries on "
        f"{len(built.board.tasks)} task(s) -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
