"""``debench card``: run (or find again) what a judge card needs, then build and write it.

Per task, through the pipeline every command uses (so every file is the one that command would
write, and a rerun finds its files, its samples log and the response cache again): ``eval`` of the
judge and of the task's baselines (``baselines:`` of its task file) on the same documents;
``eval --repeats K`` when repeating can measure something (``run.pipeline.repeats_refusal``); the
order and length probes (``probe --probe swap,length``) when the verdict names a side; and the
memorization probe on the public debate tasks. Then ``card.build.build_card`` reads those files and
``card.page`` writes ``card.json``, ``card.md`` and ``card.html`` into the card's folder.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from debench.card.build import build_card
from debench.card.evidence import TaskRuns
from debench.card.model import JudgeCard
from debench.card.page import write_card
from debench.core.errors import UserError
from debench.core.options import JudgeSpec, Method, NBootstrap, Repeats
from debench.data.loading import load_task_data
from debench.models.base import Model
from debench.models.factory import make_judge
from debench.models.managed_server import server_scope
from debench.probes.base import parse_probe_specs
from debench.probes.memorization import memorization_refusal, run_memorization
from debench.probes.run import ProbeOptions, run_probes, side_verdict_refusal, sides_refusal
from debench.run.pipeline import EvalOptions, EvalOutput, RunOptions, evaluate_task, repeats_refusal, select_docs
from debench.run.task_lookup import ResolvedTask, load_task
from debench.task.config import TaskConfig

DEFAULT_TASKS = ("ibm_speech_likert", "debateart_winner", "bp_top_team")
"""A card's tasks unless ``--tasks`` names others: one task of each kind the criteria need."""
BIAS_PROBES = "swap,length"


class CardOptions(RunOptions):
    """``debench card``: the run options, the judge method, the repeats for consistency."""

    FLAGS: ClassVar[dict[str, str]] = {"n_bootstrap": "--bootstrap"}

    method: Method | None = None
    n_bootstrap: NBootstrap | None = None
    repeats: Repeats = 2
    """Judge each document this many more times for consistency (1: not measured)."""
    force: bool = False
    """Repeat at temperature 0 too (the provider's own nondeterminism)."""
    card_dir: Path | None = None
    """Where the card is written (default: ``<output-dir>/<model>/card_<digest>``)."""

    def run_fields(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in RunOptions.model_fields}

    def folder(self, model: Model, tasks: list[str]) -> Path:
        if self.card_dir is not None:
            return Path(self.card_dir)
        key = [tasks, self.method, self.limit, self.repeats, self.force, self.seed, self.data_source, self.n_bootstrap]
        return self.model_dir(model) / f"card_{hashlib.sha256(json.dumps(key).encode()).hexdigest()[:8]}"


@dataclass
class CardOutput:
    card: JudgeCard
    folder: Path
    files: list[Path]
    n_samples: int = 0
    errors: list[tuple[str, int]] = field(default_factory=list)


def card_task_names(names: str | None, model: str) -> str:
    """``--tasks`` as given, else the default tasks (for a baseline, those whose task file lists it)."""
    if names:
        return names
    if not model.startswith("baseline/"):
        return ",".join(DEFAULT_TASKS)
    short = model.removeprefix("baseline/").split(":")[0]
    listed = [t for t in DEFAULT_TASKS if short in load_task(t)[0].baselines]
    if not listed:
        raise UserError(
            f"{model}: no default task ({', '.join(DEFAULT_TASKS)}) lists it among its baselines; name tasks",
            field="--tasks",
        )
    return ",".join(listed)


class _Runner:
    """The runs of one card, with the samples and errors of every run they made."""

    def __init__(self, model: Model, opts: CardOptions) -> None:
        self.model, self.opts = model, opts
        self.eval_opts = EvalOptions.of(**opts.run_fields(), method=opts.method, n_bootstrap=opts.n_bootstrap)
        self.baselines: dict[str, Model] = {}
        self.n_samples = 0
        self.errors: list[tuple[str, int]] = []

    def _count(self, n: int, errors: list[tuple[str, int]]) -> None:
        self.n_samples += n
        self.errors += errors

    async def _eval(self, task: TaskConfig, path: Path, model: Model, opts: EvalOptions) -> EvalOutput:
        out = await evaluate_task(task, path, model, opts)
        self._count(out.results.n_samples * opts.repeats, out.errors)
        return out

    async def task_runs(self, task: TaskConfig, path: Path) -> TaskRuns:
        judged = await self._eval(task, path, self.model, self.eval_opts)
        baselines = {}
        for name in (f"baseline/{b}" for b in task.baselines):
            if name == self.model.name:
                baselines[name] = judged.results_path
                continue
            if name not in self.baselines:
                self.baselines[name] = make_judge(JudgeSpec(model=name), seed=self.opts.seed)
            baselines[name] = (await self._eval(task, path, self.baselines[name], self.eval_opts)).results_path
        absent: dict[str, str] = {}
        return TaskRuns(
            task=task,
            results=judged.results_path,
            baselines=baselines,
            repeats=await self._repeats(task, path, absent),
            probes=await self._probes(task, path, absent),
            memorization=await self._memorization(task, path, absent),
            absent=absent,
        )

    async def _repeats(self, task: TaskConfig, path: Path, absent: dict[str, str]) -> Path | None:
        repeats = self.opts.repeats
        refusal = (
            "--repeats 1 asks each document once"
            if repeats < 2
            else repeats_refusal(task, self.model, repeats, force=self.opts.force)
        )
        if refusal is not None:
            absent["consistency"] = refusal
            return None
        out = await self._eval(task, path, self.model, self.eval_opts.updated(repeats=repeats, force=self.opts.force))
        return out.repeats_path

    async def _probes(self, task: TaskConfig, path: Path, absent: dict[str, str]) -> Path | None:
        opts = self.opts
        refusal = side_verdict_refusal(task) or sides_refusal(
            task, select_docs(load_task_data(task, opts.data_source, opts.data_dir), opts.limit)
        )
        if refusal is not None:
            absent["bias"] = refusal
            return None
        probe_opts = ProbeOptions.of(**opts.run_fields(), method=opts.method)
        out = await run_probes(task, path, self.model, parse_probe_specs(BIAS_PROBES), probe_opts)
        self._count(out.n_samples, out.errors)
        return out.report_path

    async def _memorization(self, task: TaskConfig, path: Path, absent: dict[str, str]) -> Path | None:
        refusal = memorization_refusal(task)
        if refusal is not None:
            absent["memorization"] = refusal
            return None
        out = await run_memorization(task, path, self.model, self.opts)
        self._count(out.n_samples, out.errors)
        return out.report_path

    async def aclose(self) -> None:
        for model in self.baselines.values():
            await model.aclose()


async def run_card(tasks: list[ResolvedTask], judge: JudgeSpec, opts: CardOptions) -> CardOutput:
    """The judge's card over ``tasks``: every run it needs, then ``card.json``, ``card.md`` and ``card.html``."""
    with server_scope():
        model = make_judge(judge, seed=opts.seed)
        runner = _Runner(model, opts)
        try:
            runs = [await runner.task_runs(task, path) for task, path in tasks]
        finally:
            await runner.aclose()
            await model.aclose()
    folder = opts.folder(model, [task.name for task, _ in tasks])
    card = build_card(runs, opts, where=folder, n_bootstrap=opts.n_bootstrap)
    files = write_card(card, folder)
    return CardOutput(card, folder, files, runner.n_samples, runner.errors)
