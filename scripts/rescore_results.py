"""Re-score stored results files from their own samples logs with this checkout's debench.

    DEBENCH_DATA_DIR=../shared/datasets python scripts/rescore_results.py leaderboard/submissions leaderboard/reproduced
    debench leaderboard build     # then rebuild the page and leaderboard.json from the re-scored files

For a change in how debench computes numbers from the same answers (not in a task: a task's
change is handled by validation's re-scoring, ``debench.leaderboard.task_binding``), such as CIs
seeded by the metric's name instead of its place in the task's list (issue 42). Every results file
under the folders given is scored again from the samples log beside it, exactly as ``debench score``
scores a samples log (the real data read locally, the run's own ``limit`` and bootstrap
resamples): its ``metrics`` and ``reports`` are replaced by the new ones and every other byte of
the file (identity, config, usage, ``created_at``) is kept. No model is called and no number is
taken from anywhere but the samples. A file whose task's scoring side changed since its run is
left alone and listed (validation re-scores it by itself). A reproduction by the leaderboard's job
(``config.reproduction``) names the sha256 of the submitted results file it reproduced: when that
file is re-scored here, the reproduction is made to name its new sha256 (the samples it reproduced
are the same; without this the build would say the submission changed after its reproduction).
Prints each file and what was done.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))  # this checkout's debench


def rescored(path: Path, data_dir: str) -> dict[str, Any] | None:
    """The file's JSON with its metrics and reports recomputed from its samples log (None when the
    task's scoring side changed since the run)."""
    from debench.api import score
    from debench.run.pipeline import ScoreOptions, task_sha
    from debench.run.task_lookup import installed_task
    from debench.scoring.results import load_results

    results = load_results(path)
    task = installed_task(results.task.name)
    if task is None or results.task.config_sha256 != task_sha(task) or not results.samples_file:
        return None
    options = ScoreOptions(
        data_source="local",
        data_dir=data_dir,
        limit=results.config.get("limit"),
        n_bootstrap=results.config.get("n_bootstrap"),
        plots=False,
    )
    fresh = score(results.task.name, path.parent / results.samples_file, options)
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    document["metrics"] = {name: m.model_dump(mode="json") for name, m in fresh.metrics.items()}
    document["reports"] = json.loads(json.dumps(fresh.reports))
    return document


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python scripts/rescore_results.py", description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path, help="folders searched for results_*.json")
    parser.add_argument("--data-dir", default=os.environ.get("DEBENCH_DATA_DIR"), help="local copies of the real data")
    args = parser.parse_args(argv)
    if not args.data_dir:
        parser.error("give --data-dir or set DEBENCH_DATA_DIR")
    from debench.core.atomic import write_json_record
    from debench.leaderboard.files import sha256_file

    paths = sorted(p for folder in args.folders for p in folder.rglob("results_*.json"))
    new_sha: dict[str, str] = {}
    for path in paths:
        document = rescored(path, args.data_dir)
        if document is None:
            print(f"left alone (its task's scoring changed since the run; validation re-scores it): {path}")
            continue
        before, old_sha = json.loads(path.read_text(encoding="utf-8")), sha256_file(path)
        write_json_record(path, document)
        new_sha[old_sha] = sha256_file(path)
        print(f"{'re-scored' if document != before else 'unchanged'}: {path}")
    for path in paths:
        document = json.loads(path.read_text(encoding="utf-8"))
        meta = document.get("config", {}).get("reproduction") or {}
        if meta.get("submitted_sha256") in new_sha and new_sha[meta["submitted_sha256"]] != meta["submitted_sha256"]:
            meta["submitted_sha256"] = new_sha[meta["submitted_sha256"]]
            write_json_record(path, document)
            print(f"names the re-scored submission's sha256: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
