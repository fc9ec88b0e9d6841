"""Helpers of the leaderboard tests: real runs on the real data, copies to tamper with, and the
one-line refusal a submitter sees."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir


def data_env() -> dict[str, str]:
    return {"DEBENCH_DATA_DIR": str(DATA_DIR)}


def eval_run(out: Path, task: str, model: str, *extra: str) -> Path:
    """``debench eval`` on the real data; returns the results file it wrote."""
    real_data_dir("")
    proc = run_cli(
        "eval",
        "--task",
        task,
        "--model",
        model,
        "--output-dir",
        str(out),
        "--data-source",
        "local",
        "--data-dir",
        str(DATA_DIR),
        "--no-progress",
        "--no-cache",
        *extra,
    )
    assert proc.returncode == 0, proc.stderr
    (results,) = sorted(out.rglob(f"results_{task}_*.json"))
    return results


def samples_of(results: Path) -> Path:
    return results.parent / json.loads(results.read_text())["samples_file"]


def copy_submission(results: Path, dest: Path) -> tuple[Path, Path]:
    """A copy of a results file and its samples log in ``dest``."""
    dest.mkdir(parents=True, exist_ok=True)
    samples = samples_of(results)
    shutil.copy(results, dest / results.name)
    shutil.copy(samples, dest / samples.name)
    return dest / results.name, dest / samples.name


def edit_json(path: Path, change: Callable[[dict[str, Any]], Any]) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


def edit_records(path: Path, change: Callable[[int, dict[str, Any]], Any]) -> None:
    """Apply ``change(index, record)`` to every line of a samples log."""
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for i, rec in enumerate(records):
        change(i, rec)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def edit_lines(path: Path, change: Callable[[list[str]], list[str]]) -> None:
    lines = path.read_text().splitlines()
    path.write_text("\n".join(change(lines)) + "\n")


def rescore(results: Path) -> None:
    """Recompute the results file's metrics, counts and reports from its (edited) samples log with
    debench's own scorer — what a forger would do so the numbers match."""
    from debench.data.loading import load_task_data
    from debench.run.pipeline import select_docs
    from debench.run.task_lookup import load_task
    from debench.scoring.predictions import load_predictions
    from debench.scoring.scores import score

    data = json.loads(results.read_text())
    task, _ = load_task(data["task"]["name"])
    docs = select_docs(load_task_data(task, "local", str(DATA_DIR)), data["config"].get("limit"))
    records = load_predictions(samples_of(results), task, docs)
    report = score(task, docs, {r.doc_id: r for r in records}).model_dump(mode="json")
    data.update(
        {k: report[k] for k in ("metrics", "n_samples", "n_parse_failures", "n_errors", "n_not_completed", "reports")}
    )
    results.write_text(json.dumps(data, indent=2))


def set_gold(i: int, rec: dict[str, Any]) -> None:
    """A Likert record's prediction set to the (rounded) mean human rating, its response dropped."""
    rec["prediction"] = min(5, max(1, round(rec["target"])))
    rec["response"] = None


def forge_gpt_perfect(genuine: Path, dest: Path) -> tuple[Path, Path]:
    """The issue's forgery, done as well as a submitter can: a baseline run of ibm_speech_likert
    with gold predictions and no responses, renamed openai/gpt-perfect, its identity and
    fingerprint rewritten with debench's own function and its metrics recomputed."""
    from debench.run.runner import run_fingerprint
    from debench.run.task_lookup import load_task

    res, samples = copy_submission(genuine, dest)
    edit_records(samples, set_gold)
    task, _ = load_task("ibm_speech_likert")
    identity = {"name": "openai/gpt-perfect", "send_grammar": False}

    def rename(d: dict[str, Any]) -> None:
        d["model"] = {"name": "openai/gpt-perfect", "kind": "litellm", "send_grammar": False, "identity": identity}
        d["config"]["fingerprint"] = run_fingerprint(task, identity, d["dataset"]["content_hash"], d["task"]["method"])

    edit_json(res, rename)
    rescore(res)
    return res, samples


def refused(path: Path, *expected: str, cli: tuple[str, ...] = ("validate",)) -> str:
    """Run the CLI on ``path``: exit code 2 and one stderr line holding every ``expected`` text."""
    proc = run_cli(*cli, str(path), env=data_env())
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr  # one line, no traceback
    line = lines[0]
    assert line.startswith("debench: error: "), line
    for text in expected:
        assert text in line, line
    return line


def accepted(*paths: Path) -> str:
    proc = run_cli("validate", *map(str, paths), env=data_env())
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# ------------------------------------------------------------------ the leaderboard's own job, in-process

REPO = Path(__file__).resolve().parent.parent
SEEDS = REPO / "leaderboard" / "submissions"
TRUSTED = REPO / "leaderboard" / "trusted_endpoints.yaml"
MAINTAINERS = REPO / "leaderboard" / "maintainers.yaml"


def cli(*args: str, env: dict[str, str] | None = None) -> Any:
    """``debench`` in this process (``click.testing.CliRunner``): exit code, stdout, stderr."""
    from click.testing import CliRunner

    from debench.cli import main

    return CliRunner().invoke(
        main, list(args), env={"DEBENCH_DATA_DIR": str(DATA_DIR), **(env or {})}, catch_exceptions=False
    )


def stub_eval(
    out: Path, base_url: str, task: str = "ibm_speech_likert", model: str = "openai/judge", *extra: str
) -> Path:
    """``debench eval`` of a model served by a stub server on 127.0.0.1 (in this process); returns the results file."""
    real_data_dir("")
    got = cli(
        "eval",
        "--task",
        task,
        "--model",
        model,
        "--api-base",
        base_url,
        "--output-dir",
        str(out),
        "--data-source",
        "local",
        "--data-dir",
        str(DATA_DIR),
        "--no-progress",
        "--no-cache",
        *extra,
    )
    assert got.exit_code == 0, got.stderr
    (results,) = sorted(out.rglob(f"results_{Path(task).stem}_*.json"))
    return results


def seeded(task: str, *models: str) -> list[Path]:
    """The committed seed folders of these baselines (their results file on ``task``)."""
    out = []
    for m in models:
        folder = SEEDS / m.replace("/", "__")
        out += [p for p in folder.glob(f"results_{task}_*.json") if p.name.count("_") == task.count("_") + 2]
    return out


def submissions_tree(
    root: Path, task: str, baselines: tuple[str, ...] = ("baseline/random", "baseline/length", "baseline/majority")
) -> Path:
    """``root/leaderboard/submissions`` holding copies of the committed seed runs of ``baselines`` on ``task``."""
    subs = root / "leaderboard" / "submissions"
    for results in seeded(task, *baselines):
        copy_submission(results, subs / results.parent.name)
    return subs


def add_submission(subs: Path, results: Path, folder: str) -> tuple[Path, Path]:
    return copy_submission(results, subs / folder)


def board_build(subs: Path, out: Path, *extra: str, env: dict[str, str] | None = None) -> Any:
    """``debench leaderboard build`` of a submissions tree with the committed allowlist and maintainers' file."""
    return cli(
        "leaderboard",
        "build",
        "--results",
        str(subs),
        "--out",
        str(out),
        "--trusted",
        str(TRUSTED),
        "--maintainers",
        str(MAINTAINERS),
        *extra,
        env=env,
    )


def board_json(out: Path) -> dict[str, Any]:
    return json.loads((out / "leaderboard.json").read_text())


def entries_of(board: dict[str, Any], task: str) -> dict[str, list[dict[str, Any]]]:
    t = next(t for t in board["tasks"] if t["name"] == task)
    return {k: t[k] for k in ("verified", "self_reported", "baselines")}


def refresh_main(*argv: str) -> tuple[int, str, str]:
    """``scripts/refresh_leaderboard.py`` run in this process: (exit code, stdout, stderr)."""
    import contextlib
    import importlib.util
    import io

    spec = importlib.util.spec_from_file_location(
        "refresh_leaderboard_under_test", REPO / "scripts" / "refresh_leaderboard.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = module.main(list(argv))
        except SystemExit as exc:  # argparse's usage errors
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


# -- the committed, verified embedded-model submission


def smollm2_results(subs: Path) -> Path:
    (res,) = (subs / "local__smollm2").glob("results_*.json")
    return res


def without_endpoint(results: Path) -> None:
    """The results file as a run of the provider's public API records it: no ``api_base`` (a run
    through the stub records the stub's), its fingerprint recomputed with debench's own function."""
    from debench.run.runner import run_fingerprint
    from debench.run.task_lookup import installed_task

    def edit(d: dict[str, Any]) -> None:
        for block in (d["model"], d["model"]["identity"]):
            block.pop("api_base", None)
        task = installed_task(d["task"]["name"])
        assert task is not None
        d["config"]["fingerprint"] = run_fingerprint(
            task, d["model"]["identity"], d["dataset"]["content_hash"], d["task"]["method"]
        )

    edit_json(results, edit)


def variant(results: Path, dest: Path, change: Callable[[dict[str, Any]], Any]) -> Path:
    """A copy of a run (results file and samples log) in folder ``dest`` with its identity changed by
    ``change`` and its fingerprint recomputed (the file names kept: the gate reads names from the file)."""
    from debench.run.runner import run_fingerprint
    from debench.run.task_lookup import installed_task

    res, _ = copy_submission(results, dest)

    def edit(d: dict[str, Any]) -> None:
        change(d["model"]["identity"])
        task = installed_task(d["task"]["name"])
        assert task is not None
        d["config"]["fingerprint"] = run_fingerprint(
            task, d["model"]["identity"], d["dataset"]["content_hash"], d["task"]["method"]
        )

    edit_json(res, edit)
    return res


def gate(pr: Path, base: Path, out: Path) -> tuple[int, str, str]:
    """The pull-request gate of checkout ``pr`` against checkout ``base`` (the refresh script with
    ``--pr-base``, in this process): (exit code, stdout, stderr)."""
    return refresh_main(
        "--submissions",
        str(pr / "leaderboard" / "submissions"),
        "--pr-base",
        str(base / "leaderboard" / "submissions"),
        "--out",
        str(out),
        "--data-dir",
        str(DATA_DIR),
    )


def board_args(lb: Path, *extra: str) -> list[str]:
    """The refresh script's arguments for the leaderboard folder ``lb``: its submissions, runs, queue,
    ledger and page all inside it, on the real data."""
    return [
        "--submissions",
        str(lb / "submissions"),
        "--out",
        str(lb),
        "--reproduced",
        str(lb / "reproduced"),
        "--queue",
        str(lb / "queue.json"),
        "--data-dir",
        str(DATA_DIR),
        *extra,
    ]


def refresh_board(lb: Path, *extra: str) -> tuple[int, str, str, dict[str, Any]]:
    """The refresh script on the leaderboard folder ``lb`` (``board_args``), in this process:
    (exit code, stdout, stderr, the board built, or {})."""
    code, out, err = refresh_main(*board_args(lb, *extra))
    return code, out, err, board_json(lb) if (lb / "leaderboard.json").exists() else {}
