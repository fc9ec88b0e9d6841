"""What a card is built from: the files of one task's runs for one judge (``TaskRuns``), read and
checked (``Evidence``), and the few numbers the card computes again from their samples
(``rescored``: the same scoring as ``eval``, ``debench.scoring.scores.score``, with other metrics).

``TaskRuns`` is all the leaderboard's job (or any caller) needs to hand over: the judge's results
file of ``eval``, the baselines' results files on the same documents, and, where they were run, the
``eval --repeats`` report, the ``probe`` report and the memorization report; ``absent`` says why a
run is missing (it becomes the reason of a ``not_measured`` row).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from debench.core.errors import UserError
from debench.core.json_schema import read_json_model
from debench.core.options import DataOptions
from debench.data.base import Doc
from debench.data.loading import load_task_data
from debench.data.samples import SampleRecord, read_records
from debench.probes.memorization import MemorizationReport
from debench.probes.report import ProbeReport
from debench.run.pipeline import select_docs, task_identity
from debench.scoring.repeats import RepeatsReport
from debench.scoring.results import Results, load_results
from debench.scoring.scores import ScoreReport, score
from debench.task.config import MetricConfig, TaskConfig


@dataclass(frozen=True)
class TaskRuns:
    """The files of one task's runs for one judge."""

    task: TaskConfig
    results: Path
    """The judge's results file (``eval``)."""
    baselines: dict[str, Path] = field(default_factory=dict)
    """Baseline model name (``baseline/random``) -> its results file on the same documents."""
    repeats: Path | None = None
    """The ``repeats_*.json`` report of ``eval --repeats``."""
    probes: Path | None = None
    """The ``probes_*.json`` report of ``probe`` (swap and length probes)."""
    memorization: Path | None = None
    """The ``memorization_*.json`` report of the memorization probe."""
    absent: dict[str, str] = field(default_factory=dict)
    """Criterion -> why its run is not among these files."""


class Evidence:
    """One task's runs, read: results and reports now, the run's documents and samples when a
    number is computed again from them."""

    def __init__(self, runs: TaskRuns, data: DataOptions, n_bootstrap: int | None = None) -> None:
        self.runs = runs
        self.task = runs.task
        self.results = self._results(runs.results)
        self.baselines = {name: (self._results(path), path) for name, path in runs.baselines.items()}
        self.repeats = read_json_model(runs.repeats, RepeatsReport, "repeats report") if runs.repeats else None
        self.probes = read_json_model(runs.probes, ProbeReport, "probe report") if runs.probes else None
        self.memorization = (
            read_json_model(runs.memorization, MemorizationReport, "memorization report") if runs.memorization else None
        )
        self._data = data
        self.n_bootstrap = self.task.scoring.n_bootstrap if n_bootstrap is None else n_bootstrap

    def _results(self, path: Path) -> Results:
        results = load_results(path)
        identity = results.task.identity_sha256
        if results.task.name != self.task.name or (identity is not None and identity != task_identity(self.task)):
            raise UserError(f"the results are not of task '{self.task.name}' as installed", path=str(path))
        return results

    @property
    def model_name(self) -> str:
        return self.results.model.name

    def files(self) -> list[Path]:
        """Every file this task's numbers are read from."""
        r = self.runs
        return [r.results, *r.baselines.values(), *(p for p in (r.repeats, r.probes, r.memorization) if p)]

    @cached_property
    def docs(self) -> list[Doc]:
        """The run's documents: the first ``limit`` of the same data set."""
        dataset = load_task_data(self.task, self._data.data_source, self._data.data_dir)
        if dataset.content_hash != self.results.dataset.content_hash:
            raise UserError(
                f"task '{self.task.name}': the data set found ({dataset.location}) is not the one the run judged",
                path=str(self.runs.results),
            )
        return select_docs(dataset, self.results.config.get("limit"))

    def records(self, results: Results, path: Path) -> dict[str, SampleRecord]:
        """The samples of the run whose results file is ``path``."""
        if results.samples_file is None:
            raise UserError("the results file names no samples log", path=str(path))
        return {r.doc_id: r for r in read_records(Path(path).parent / results.samples_file)}

    def rescored(self, results: Results, path: Path, metrics: list[MetricConfig]) -> ScoreReport:
        """The run of ``path`` scored with ``metrics`` instead of the task's (``eval``'s scoring)."""
        variant = self.task.model_copy(update={"metrics": metrics, "reports": []})
        return score(variant, self.docs, self.records(results, path), n_bootstrap=self.n_bootstrap)
