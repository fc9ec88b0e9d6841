"""``debench validate``: check a submission (a results file plus its per-sample log).

Every number in the results file is recomputed from the samples with the installed task and the
real data, and every prediction is traced to where it came from; a submission enters the
leaderboard only when everything holds. Each rejection is a ``UserError`` whose message names the
file and the field, so the CLI prints one line and exits 2.

Checks, in order:

1. the results file is a regular file within its size cap (``debench.leaderboard.files``), readable
   JSON, holds no key-shaped string nor a secret-looking value under a key / token / secret /
   password name (``files.refuse_planted_keys``), follows ``debench/schema/results.schema.json``, names no
   absolute path of the submitter's machine (command line, task file, data location), and was not
   created after the build;
2. the task is one of debench's tasks, with the same ``version`` and identity (``identity_sha256``:
   what changes the answers; a 1.0 file without it is bound by its run fingerprint, step 4), and the
   judge method is a known one the task supports (``identity.check_method``). When only the task's
   scoring side changed since the run (``config_sha256`` differs: a metric added or changed, see
   ``debench.task.config.SCORING_SIDE``), the submission is *re-scored*: its metrics are those recomputed
   from its samples, and only the metrics scored as they are now are compared with the file;
3. the data set is the real one (not the sample) and its ``content_hash`` equals the local copy's;
4. the model identity agrees with the model's name and kind, and ``config.fingerprint`` is the
   one recomputed from task, identity, data hash and method (``identity.check_identity``);
5. the samples log named by ``samples_file`` is a regular file beside it within its size cap, read
   line by line (bounded memory): every line is a samples-log record without a key-shaped string,
   and it holds each document of the task exactly once (the first ``config.limit`` documents when
   a limit was used), nothing else — a duplicate is refused at its line;
6. each record's provenance (``provenance``): a baseline's predictions are re-derived by running
   it, a model's follow from its raw responses, an ensemble's from its members' answers, a model
   was asked exactly the messages the installed task renders for the document, failures carry
   their error text, and at most 5% of the documents ended in error or not completed;
7. every metric (value, 95% CI, n), the sample counts and the reports equal the recomputation.

``validate_submission`` returns a ``ValidatedSubmission`` whose ``provenance`` says what was
established. Whether it is *ranked* is decided later (``debench.leaderboard.verify``): only what the
leaderboard's own job reproduced is.

``validate_all`` validates many submissions at once, one row per judge (model identity + method)
and task: the same run placed in two folders, or two runs of the same model identity, method and
task, would give a judge two rows; the first (in path order) is kept, the other refused with both
paths named. With ``folders``, every folder holding a results file is checked too
(``debench.leaderboard.files.folder_problems``: regular files only, each accounted for, none
holding a key).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from debench.core.errors import UserError, first_problem
from debench.core.jsonl import iter_jsonl_objects
from debench.core.numeric import close, same, shown
from debench.core.paths import machine_path
from debench.data.base import Doc, LoadedDataset
from debench.data.samples import SampleRecord, slim
from debench.leaderboard.files import (
    MAX_RESULTS_BYTES,
    MAX_SAMPLES_BYTES,
    folder_problems,
    iter_lines,
    read_json_object,
    refuse_planted_keys,
    regular_file,
)
from debench.leaderboard.identity import check_identity, check_method, judge_key
from debench.leaderboard.provenance import (
    Provenance,
    RecordChecker,
    check_incomplete_share,
)
from debench.run.task_lookup import installed_task
from debench.scoring.results import READABLE_VERSIONS, Results, validate_results_dict
from debench.scoring.scores import MetricValue, ScoreReport
from debench.task.config import TaskConfig


@dataclass
class ValidatedSubmission:
    """A results file whose every number was recomputed from its samples and matched."""

    results_path: Path
    samples_path: Path
    results: Results
    task: TaskConfig
    recomputed: ScoreReport
    n_docs: int
    """Documents covered (the first ``config.limit`` of the task's, or all of them)."""
    n_docs_total: int
    identity: dict[str, Any]
    provenance: Provenance
    """What validation established."""
    docs: list[Doc] = field(default_factory=list, repr=False)
    """The documents the run covered (from the real data)."""
    records: list[SampleRecord] = field(default_factory=list, repr=False)
    """The submitted records in document order, without their prompts and steps (``samples.slim``)."""
    rescored: bool = False
    """The task's scoring side changed since the run: ``metrics`` are the recomputed ones."""

    @property
    def metrics(self) -> dict[str, MetricValue]:
        """The metrics the leaderboard shows: the file's; when re-scored, the task's metrics as
        recomputed, except that a figure the file states and the recomputation matches is shown as
        the file states it (the same digits as before the task changed)."""
        if not self.rescored:
            return self.results.metrics
        claimed = self.results.metrics
        return {
            n: claimed[n] if n in claimed and _differs(claimed[n], m) is None else m
            for n, m in self.recomputed.metrics.items()
        }

    @property
    def reports(self) -> dict[str, Any]:
        return self.recomputed.reports if self.rescored else self.results.reports

    @property
    def submission(self) -> str:
        """The submission's name: the folder holding the results file."""
        return self.results_path.parent.name

    @property
    def partial(self) -> bool:
        return self.n_docs < self.n_docs_total

    @property
    def left_out(self) -> int:
        """Documents the metrics leave out: errors, not completed, and parse failures when the task
        excludes them from its metrics (``scoring.parse_failure: exclude``)."""
        r = self.recomputed
        excluded = r.n_parse_failures if self.task.scoring.parse_failure == "exclude" else 0
        return r.n_errors + r.n_not_completed + excluded

    @property
    def judge_key(self) -> str:
        """The key of the judge: ``identity.judge_key`` of the identity of its requests
        (``same_judge``) and its method. One leaderboard row per judge and task, so a seed at
        temperature 0 is not a new judge."""
        from debench.leaderboard.same_judge import request_identity

        return judge_key(request_identity(self.identity, self.task), self.results.task.method)


class RealDataCache:
    """Real data sets loaded once per (data dir, adapter, location, options) across many validations."""

    def __init__(self) -> None:
        self._cache: dict[tuple[str, str, str | None, str], LoadedDataset] = {}

    def get(self, task: TaskConfig, data_dir: str | Path | None) -> LoadedDataset:
        from debench.data.loading import load_task_data

        key = (
            str(data_dir),
            task.dataset.adapter,
            task.dataset.local_dir,
            json.dumps(task.dataset.options, sort_keys=True),
        )
        if key not in self._cache:
            self._cache[key] = load_task_data(task, "local" if data_dir else "hub", data_dir)
        return self._cache[key]


REAL_DATA = RealDataCache()
"""The real data sets, shared by every validation and by the leaderboard's own runs."""


def _err(path: Path, field: str | None, message: str) -> UserError:
    return UserError(message, path=str(path), field=field)


def _read_results(path: Path) -> Results:
    data = read_json_object(path, MAX_RESULTS_BYTES, "results file")
    version = data.get("schema_version")
    if version not in READABLE_VERSIONS:
        raise _err(
            path,
            "schema_version",
            f"unsupported results schema version {json.dumps(version)} (this debench reads {', '.join(READABLE_VERSIONS)})",
        )
    import jsonschema

    try:
        validate_results_dict(data)
    except jsonschema.ValidationError as exc:
        where = ".".join(str(p) for p in exc.absolute_path) or None
        raise _err(path, where, f"does not follow the results schema: {_short(exc.message)}") from None
    try:
        results = Results.model_validate(data)
    except ValidationError as exc:
        where, msg = first_problem(exc)
        raise _err(path, where, f"does not follow the results schema: {_short(msg)}") from None
    _refuse_machine_paths(results, path)
    _refuse_future(results, path)
    return results


def _path_fields(results: Results) -> Iterable[tuple[str, Any]]:
    """(field, value) of everything in a results file that names a path: the command line, the task
    file, the data location, and any configuration entry named like a file, folder or path."""
    command = results.config.get("command")
    if isinstance(command, str):  # a command line written as one string: each of its words
        command = command.split()
    if isinstance(command, list):
        for i, arg in enumerate(command):
            yield (
                f"config.command.{i}",
                str(arg).partition("=")[2] if str(arg).startswith("--") and "=" in str(arg) else arg,
            )
    yield "dataset.location", results.dataset.location
    for key, value in results.config.items():
        if (
            key == "task_file"
            or key.endswith(("_file", "_dir", "_path", "_location"))
            or key in ("predictions", "judging_manual")
        ):
            yield f"config.{key}", value
    yield from _strings(results.model_dump(mode="json"), "")


def _strings(value: Any, where: str) -> Iterable[tuple[str, Any]]:
    """(field, text) of every string anywhere in a results file (a model name, a note, a report):
    none may be an absolute path either."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield from _strings(v, f"{where}.{k}" if where else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _strings(v, f"{where}.{i}")


def _refuse_machine_paths(results: Results, path: Path) -> None:
    for where, value in _path_fields(results):
        if isinstance(value, str) and machine_path(value):
            raise _err(
                path,
                where,
                f"{json.dumps(value)} is an absolute path of the machine the run was made on; a submission names paths relative to the "
                "working directory or with ~ for the home folder (debench writes them so; rerun, or edit the file)",
            )


def _refuse_future(results: Results, path: Path) -> None:
    try:
        created = datetime.fromisoformat(results.created_at)
    except ValueError:
        raise _err(path, "created_at", f"{json.dumps(results.created_at)} is not an ISO 8601 time") from None
    if created.tzinfo is None:
        created = created.replace(tzinfo=UTC)
    now = datetime.now(UTC)
    if created > now:
        raise _err(
            path,
            "created_at",
            f"{results.created_at} is after this build ({now.strftime('%Y-%m-%dT%H:%M:%SZ')}): a run cannot come from the future",
        )


def _short(text: str, limit: int = 160) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _installed_task(results: Results, path: Path) -> TaskConfig:
    """The task of debench's own task directory (never a file named by the submission)."""
    from debench.run.pipeline import task_identity, task_sha

    name = results.task.name
    task = installed_task(name)
    if task is None:
        raise _err(path, "task.name", f"unknown task '{name}' (`debench tasks` lists the tasks)")
    if results.task.version != task.version:
        raise _err(
            path,
            "task.version",
            f"task version {results.task.version} differs from the installed {name} version {task.version}",
        )
    recorded = results.task.identity_sha256
    if recorded is not None and recorded != task_identity(task):
        raise _err(
            path,
            "task.identity_sha256",
            f"the task's prompt, data, parser or generation settings differ from the installed {name} (identity {recorded[:12]}… vs "
            f"{task_identity(task)[:12]}…); rerun with this debench version",
        )
    if (
        recorded is None
        and results.task.config_sha256 != task_sha(task)
        and results.config.get("fingerprint") != _fingerprint(results, task)
    ):
        raise _err(
            path,
            "task.config_sha256",
            f"the task definition differs from the installed {name} (sha256 {results.task.config_sha256[:12]}… vs "
            f"{task_sha(task)[:12]}…); rerun with this debench version",
        )
    return task


def _fingerprint(results: Results, task: TaskConfig) -> str | None:
    from debench.run.runner import run_fingerprint

    identity = results.model.identity
    return (
        run_fingerprint(task, identity, results.dataset.content_hash, results.task.method)
        if identity is not None
        else None
    )


def _checked_as_now(results: Results, task: TaskConfig) -> set[str]:
    """The task's metrics that the results file computed as the installed task does (all of them
    unless the scoring side changed since the run): those are compared with the file; the others are
    re-scored from the samples."""
    from debench.run.pipeline import scored_with, task_sha

    names = {m.name for m in task.metrics}
    if results.task.config_sha256 == task_sha(task):
        return names
    then, now = results.task.scored_with, scored_with(task)
    if then is None or then.get("scoring") != now["scoring"]:
        return set()
    earlier = {json.dumps(m, sort_keys=True) for m in then.get("metrics", [])}
    return {m["name"] for m in now["metrics"] if json.dumps(m, sort_keys=True) in earlier}


def _real_data(task: TaskConfig, results: Results, path: Path, data_dir: str | Path | None) -> LoadedDataset:
    ds = results.dataset
    if ds.is_sample or ds.source == "sample":
        raise _err(
            path,
            "dataset.is_sample",
            "results on debench's small sample data cannot enter the leaderboard; run on the real data (set DEBENCH_DATA_DIR)",
        )
    try:
        real = REAL_DATA.get(task, data_dir)
    except Exception as exc:  # noqa: BLE001 - a user error, or the Hub unreachable / offline
        reason = str(exc) if isinstance(exc, UserError) else f"{type(exc).__name__} from the Hub"
        raise _err(
            path,
            "dataset",
            f"cannot load the real data of task {task.name} to check against ({_short(reason, 120)}); set DEBENCH_DATA_DIR or --data-dir",
        ) from None
    if ds.content_hash != real.content_hash:
        raise _err(
            path,
            "dataset.content_hash",
            f"data set hash {ds.content_hash} differs from the real data's {real.content_hash}",
        )
    if ds.n_docs_total != len(real.docs):
        raise _err(
            path, "dataset.n_docs_total", f"{ds.n_docs_total} documents differs from the real data's {len(real.docs)}"
        )
    return real


def _limit_and_bootstrap(
    task: TaskConfig, results: Results, path: Path, rescored: bool = False
) -> tuple[int | None, int]:
    """The run's document limit and bootstrap resamples; a re-scored run (``rescored``) is re-scored
    with at least the task's resamples."""
    limit = results.config.get("limit")
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int) or limit < 1):
        raise _err(path, "config.limit", f"must be null or a positive integer, got {json.dumps(limit)}")
    n_boot = results.config.get("n_bootstrap", task.scoring.n_bootstrap)
    if isinstance(n_boot, bool) or not isinstance(n_boot, int) or n_boot < 0:
        raise _err(path, "config.n_bootstrap", f"must be a non-negative integer, got {json.dumps(n_boot)}")
    if rescored:
        return limit, max(n_boot, task.scoring.n_bootstrap)
    if n_boot < task.scoring.n_bootstrap:
        raise _err(
            path,
            "config.n_bootstrap",
            f"{n_boot} bootstrap resamples is below the task's {task.scoring.n_bootstrap}: leaderboard metrics need their CIs",
        )
    return limit, n_boot


def _samples_path(results: Results, path: Path) -> Path:
    name = results.samples_file
    if not name:
        raise _err(
            path,
            "samples_file",
            "no samples file named: a submission needs its per-sample log (write it with `debench eval`)",
        )
    if Path(name).name != name or name in (".", ".."):
        raise _err(path, "samples_file", f"'{name}' must be a file name in the results file's folder")
    samples = path.parent / name
    if not os.path.lexists(samples):
        raise _err(path, "samples_file", f"samples file '{name}' not found beside the results file")
    regular_file(samples, MAX_SAMPLES_BYTES, "samples file")
    return samples


def _read_samples(
    samples: Path, task: TaskConfig, docs: list[Doc], all_docs: list[Doc], limit: int | None, checker: RecordChecker
) -> list[SampleRecord]:
    """The records in document order, read line by line and checked as they come (each line a
    samples-log record without a key-shaped string, traced by ``checker``); every document exactly
    once. Only slim records are kept (``samples.slim``): memory does not grow with prompt sizes."""
    from debench.scoring.predictions import check_prediction

    wanted = {d.doc_id for d in docs}
    known = {d.doc_id for d in all_docs}
    first_line: dict[str, int] = {}
    kept: dict[str, SampleRecord] = {}
    for n, obj in iter_jsonl_objects(samples, "samples file", lines=iter_lines(samples, "samples file")):
        refuse_planted_keys(obj, samples, line=n)
        try:
            rec = SampleRecord.model_validate(obj)
        except ValidationError as exc:
            where, msg = first_problem(exc)
            raise _err(samples, where, f"line {n}: not a samples-log record ({_short(msg, 80)})") from None
        doc_id = rec.doc_id
        if doc_id not in known:
            raise _err(samples, "doc_id", f"line {n}: unknown document '{doc_id}' for task {task.name}")
        if doc_id not in wanted:
            raise _err(
                samples,
                "doc_id",
                f"line {n}: document '{doc_id}' is outside the first {limit} documents (config.limit)",
            )
        if doc_id in first_line:
            raise _err(
                samples, "doc_id", f"line {n}: duplicated document '{doc_id}' (first on line {first_line[doc_id]})"
            )
        first_line[doc_id] = n
        checker.check(rec, n)
        if rec.status == "ok":
            try:
                rec.prediction = check_prediction(rec.prediction, task)
            except ValueError as exc:
                raise _err(samples, "prediction", f"line {n}: invalid prediction for '{doc_id}': {exc}") from None
        kept[doc_id] = slim(rec)
    missing = [d.doc_id for d in docs if d.doc_id not in first_line]
    if missing:
        scope = f"the first {limit}" if limit is not None else f"all {len(docs)}"
        raise _err(samples, "doc_id", f"{len(missing)} of {scope} documents are missing (first: '{missing[0]}')")
    return [kept[d.doc_id] for d in docs]


def _differs(theirs: MetricValue, mine: MetricValue) -> str | None:
    """The first field (value, ci95, n) in which a claimed metric differs from its recomputation."""
    if not close(theirs.value, mine.value):
        return "value"
    if (theirs.ci95 is None) != (mine.ci95 is None) or (
        theirs.ci95 is not None
        and mine.ci95 is not None
        and not all(close(a, b) for a, b in zip(theirs.ci95, mine.ci95, strict=True))
    ):
        return "ci95"
    return "n" if theirs.n != mine.n else None


def _compare(results: Results, report: ScoreReport, path: Path, checked: set[str], rescored: bool) -> None:
    """The file's numbers against the recomputation: every metric and report, or (``rescored``)
    only the ``checked`` metrics and the counts."""
    claimed, recomputed = set(results.metrics), set(report.metrics)
    for name in sorted(recomputed - claimed):
        if not rescored:
            raise _err(path, f"metrics.{name}", "missing: the task reports this metric")
    for name in sorted(claimed - recomputed):
        if not rescored:
            raise _err(path, f"metrics.{name}", "not a metric of this task")
    for name, mine in report.metrics.items():
        if name not in checked or name not in claimed:
            continue
        theirs = results.metrics[name]
        differs = _differs(theirs, mine)
        if differs is not None:
            raise _err(
                path,
                f"metrics.{name}.{differs}",
                f"{shown(getattr(theirs, differs))} does not match {shown(getattr(mine, differs))} recomputed from the samples",
            )
    for name in ("n_samples", "n_parse_failures", "n_errors", "n_not_completed"):
        a, b = getattr(results, name), getattr(report, name)
        if a != b:
            raise _err(path, name, f"{a} does not match {b} counted in the samples")
    if rescored:
        return
    for name, mine in report.reports.items():
        if not same(results.reports.get(name), json.loads(json.dumps(mine))):
            raise _err(path, f"reports.{name}", "does not match the report recomputed from the samples")
    for name in sorted(set(results.reports) - set(report.reports)):
        raise _err(path, f"reports.{name}", "not a report of this task")


def validate_submission(
    path: str | Path, *, data_dir: str | Path | None = None, job_run: bool = False
) -> ValidatedSubmission:
    """Validate one results file and its samples log; raises ``UserError`` with the reason."""
    from debench.run.pipeline import select_docs, task_sha
    from debench.scoring.scores import score

    path = Path(path)
    data_dir = data_dir or os.environ.get("DEBENCH_DATA_DIR") or None
    results = _read_results(path)
    task = _installed_task(results, path)
    check_method(results, task, path)
    real = _real_data(task, results, path, data_dir)
    identity = check_identity(results, task, path)
    checked = _checked_as_now(results, task)
    rescored = results.task.config_sha256 != task_sha(task)
    limit, n_boot = _limit_and_bootstrap(task, results, path, rescored)
    docs = select_docs(real, limit)
    samples = _samples_path(results, path)
    checker = RecordChecker(results, task, docs, samples)
    records = _read_samples(samples, task, docs, real.docs, limit, checker)
    incomplete = (
        "the leaderboard's own run: every failure scored as the job got it"
        if job_run
        else check_incomplete_share(records, len(docs), path)
    )
    report = score(task, docs, {r.doc_id: r for r in records}, n_bootstrap=n_boot)
    _compare(results, report, path, checked, rescored)
    provenance = checker.provenance()
    provenance.checks = [
        "task definition, judge method and real data match the installed debench",
        "model identity agrees with its name and kind; run fingerprint recomputed",
        *provenance.checks,
        incomplete,
        "every metric, CI, count and report recomputed from the samples",
    ]
    if rescored:
        fresh = sorted(set(report.metrics) - checked)
        provenance.checks[-1] = (
            "every count recomputed from the samples; the task's scoring changed since the run, so its metrics are re-scored from the samples"
            + (
                f" (recomputed: {', '.join(fresh)}; matched the file: {', '.join(sorted(checked)) or 'none'})"
                if fresh
                else ""
            )
        )
    return ValidatedSubmission(
        results_path=path,
        samples_path=samples,
        results=results,
        task=task,
        recomputed=report,
        n_docs=len(docs),
        n_docs_total=len(real.docs),
        identity=identity,
        provenance=provenance,
        docs=docs,
        records=records,
        rescored=rescored,
    )


def find_results_files(paths: Iterable[str | Path]) -> list[Path]:
    """Results files named directly, or found (``results_*.json``) under the directories given."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(p.rglob("results_*.json"))
            if not found:
                raise UserError("no results_*.json file found", path=str(p))
            out.extend(found)
        else:
            out.append(p)
    return out


def duplicate_error(sub: ValidatedSubmission, first: ValidatedSubmission) -> UserError:
    return UserError(
        f"same model identity, method and task ({sub.results.model.name}, {sub.results.task.method}, {sub.task.name}: identical requests for every "
        f"document) as the submission in folder {first.submission}/ ({first.results_path.name}): one row per judge and task, so submit only one of them",
        path=str(sub.results_path),
        field="model.identity",
    )


def validate_all(
    paths: Iterable[str | Path],
    *,
    data_dir: str | Path | None = None,
    folders: bool = False,
    merged_first: Sequence[str] = (),
) -> tuple[list[ValidatedSubmission], list[UserError]]:
    """Validate every results file given; returns the accepted ones and the refusals.

    ``merged_first``: submission folder names in merge order; their files are validated first, so
    of two entries of one judge the one merged first is kept and the other refused as its
    duplicate (then path order). A file that cannot be read at all (any exception) is a refusal
    naming it, never a crash of the whole build."""
    ok: list[ValidatedSubmission] = []
    errors: list[UserError] = []
    seen: dict[tuple[str, str], ValidatedSubmission] = {}
    rank: dict[str, int] = {}
    for name in merged_first:  # a folder's first place counts (the queue names a folder once per results file)
        rank.setdefault(name, len(rank))
    files = sorted((Path(p) for p in paths), key=lambda p: (rank.get(p.parent.name, len(rank)), p))
    if folders:
        for folder in sorted({p.parent for p in files}):
            errors += folder_problems(folder)
    for path in files:
        try:
            sub = validate_submission(path, data_dir=data_dir)
        except UserError as exc:
            errors.append(exc)
            continue
        except Exception as exc:  # noqa: BLE001 - one unreadable entry never stops the others
            errors.append(UserError(f"cannot be read ({type(exc).__name__})", path=str(path)))
            continue
        key = (sub.task.name, sub.judge_key)
        if key in seen:
            errors.append(duplicate_error(sub, seen[key]))
            continue
        seen[key] = sub
        ok.append(sub)
    return ok, errors
