"""A user's task around a shipped one (issue 44): ``include:`` names a shipped task by its name, and
the run of a user task (a shipped task plus a plug-in metric) validates with ``debench validate``
and compares with ``debench compare`` given ``--include-path`` (a folder or the task file), as
``eval`` takes it.

The plug-in metric is the tests' own (``tests/plugin_site.py``), installed beside debench."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clihelp import run_cli
from conftest import DATA_DIR
from plugin_site import env, install, user_task

from debench.core.errors import UserError
from debench.run.task_files import load_task_file, tasks_dir


def test_include_names_a_shipped_task(tmp_path: Path) -> None:
    (tmp_path / "dw_plus.yaml").write_text(
        "include: debateart_winner\nname: dw_plus\nmetrics:\n  - name: accuracy\n  - name: parse_failure_rate\n"
    )
    mine = load_task_file(tmp_path / "dw_plus.yaml")
    shipped = load_task_file(tasks_dir() / "debateart_winner.yaml")
    assert mine.name == "dw_plus" and [m.name for m in mine.metrics] == ["accuracy", "parse_failure_rate"]
    assert mine.model_dump(exclude={"name", "metrics"}) == shipped.model_dump(exclude={"name", "metrics"})
    # a file beside the task file still comes first; a name that is neither is one line
    (tmp_path / "other.yaml").write_text("include: debateart_winer\nname: other\n")
    with pytest.raises(
        UserError, match="include 'debateart_winer' is neither a file beside the task file nor one of debench's tasks"
    ):
        load_task_file(tmp_path / "other.yaml")


BACC = '''
    """``bacc``: balanced accuracy, the mean over the gold classes of the share of that class answered right."""

    import numpy as np

    from debench.plugin_types import Draws, register_sum_metric

    CLASSES = ("pro", "tie", "con")


    def _terms(preds, targets):
        """Balanced accuracy over pro / tie / con."""
        hit = np.array([[p == t == c for c in CLASSES] for p, t in zip(preds, targets)], dtype=float)
        seen = np.array([[t == c for c in CLASSES] for t in targets], dtype=float)
        return np.hstack([hit, seen])


    def _finish(sums):
        hits, seen = sums[:, :3], sums[:, 3:]
        with np.errstate(all="ignore"):
            recall = np.where(seen > 0, hits / seen, np.nan)
            value = np.nanmean(np.where((seen > 0).any(axis=1, keepdims=True), recall, 0.0), axis=1)
        return Draws.of(value).undefined((seen == 0).all(axis=1), "no documents")


    BACC = register_sum_metric("bacc", _terms, _finish)
'''


@pytest.mark.slow  # two runs, two validations and a comparison, each in a process of its own
@pytest.mark.real_data("validate refuses the packaged samples")
def test_a_user_task_with_a_plugin_metric_validates_and_compares(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "acme-bacc", "0.1.0", {"acme_bacc.py": BACC}, {"debench.metrics": {"bacc": "acme_bacc:BACC"}})
    folder = tmp_path / "mytasks"
    user_task(folder, "dw_bacc", ["accuracy", "bacc", "parse_failure_rate"])
    environ = {**env(site, tmp_path / "cache"), "DEBENCH_DATA_DIR": str(DATA_DIR)}
    results = []
    for model in ("baseline/first", "baseline/last"):
        proc = run_cli(
            "eval", "--task", "dw_bacc", "--include-path", str(folder), "--model", model, "--limit", "60",
            "--output-dir", str(tmp_path / "out"), "--no-progress", env=environ,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        results.append(Path(proc.stdout.split("results: ")[1].split()[0]))
    first = json.loads(results[0].read_text())
    assert first["versions"]["acme-bacc"] == "0.1.0"
    samples = [json.loads(line) for line in (results[0].parent / first["samples_file"]).read_text().splitlines()]
    recalls = [
        sum(r["prediction"] == c for r in samples if r["target"] == c) / n
        for c in ("pro", "tie", "con")
        if (n := sum(r["target"] == c for r in samples))
    ]
    assert first["metrics"]["bacc"]["value"] == pytest.approx(sum(recalls) / len(recalls))

    refused = run_cli("validate", str(results[0]), env=environ)
    assert refused.returncode == 2 and "unknown task 'dw_bacc'" in refused.stderr
    for include in (folder, folder / "dw_bacc.yaml"):  # a folder of task files, or the task file
        ok = run_cli("validate", str(results[0]), "--include-path", str(include), env=environ)
        assert ok.returncode == 0, ok.stderr
        assert (
            "dw_bacc v2 | baseline/first | first 60 of" in ok.stdout and "3 metrics recomputed and matched" in ok.stdout
        )

    compared = run_cli(
        "compare", str(results[0]), str(results[1]), "--include-path", str(folder), "--n", "200", env=environ
    )
    assert compared.returncode == 0, compared.stderr
    assert "dw_bacc:" in compared.stdout and {"accuracy", "bacc"} <= {
        line.split()[0] for line in compared.stdout.splitlines()[2:]
    }
