"""``debench validate``: check a submission (a results file plus its per-sample log).

Every number in the results file is recomputed from the samples with the installed task and the
real data, and every prediction is traced to where it came from; a submission enters the
leaderboard only when everything holds. Each rejection is a ``UserError`` whose message names the
file and the field, so the CLI prints one line and exits 2.

Checks, in order, each in the module that makes it:

1. the results file on its own (``results_file``): a regular file within its size cap, readable
   JSON holding no key, following the results schema, naming no absolute path of the submitter's
   machine, not created after the build;
2. the task it is bound to (``task_binding``): one of debench's, with the same ``version`` and
   identity; the judge method a known one the task supports (``identity.check_method``). When only
   the task's scoring side changed since the run, the submission is *re-scored*: its metrics are
   those recomputed from its samples, and only the metrics scored as they are now are compared;
3. the real data (``real_data``): not the sample, the same ``content_hash`` as the local copy's;
4. the model identity agrees with the model's name and kind, and ``config.fingerprint`` is the
   one recomputed from task, identity, data hash and method (``identity.check_identity``);
5. the samples log (``samples_log``): beside the results file within its size cap, read line by
   line, each document of the task exactly once and nothing else;
6. each record's provenance (``provenance``): a baseline's predictions are re-derived by running
   it, a model's follow from its raw responses, an ensemble's from its members' answers, a model
   was asked exactly the messages the installed task renders for the document, failures carry
   their error text, and at most 5% of the documents ended in error or not completed;
7. every metric (value, 95% CI, n), the sample counts and the reports equal the recomputation
   (``recomputed_numbers``).

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

import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from debench.core.errors import UserError
from debench.data.base import Doc
from debench.data.samples import SampleRecord
from debench.leaderboard.files import folder_problems
from debench.leaderboard.identity import check_identity, check_method, judge_key
from debench.leaderboard.provenance import Provenance, RecordChecker, check_incomplete_share
from debench.leaderboard.real_data import checked_real_data
from debench.leaderboard.recomputed_numbers import check_numbers, differs
from debench.leaderboard.results_file import read_results
from debench.leaderboard.samples_log import read_samples, samples_path
from debench.leaderboard.task_binding import bound_task, limit_and_bootstrap, scored_as_now
from debench.scoring.results import Results
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
            n: claimed[n] if n in claimed and differs(claimed[n], m) is None else m
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


def validate_submission(
    path: str | Path,
    *,
    data_dir: str | Path | None = None,
    job_run: bool = False,
    include_paths: Sequence[str | Path] = (),
) -> ValidatedSubmission:
    """Validate one results file and its samples log; raises ``UserError`` with the reason.
    ``include_paths``: a user's task files (``validate --include-path``), never the leaderboard's."""
    from debench.run.pipeline import select_docs, task_sha
    from debench.scoring.scores import score

    path = Path(path)
    data_dir = data_dir or os.environ.get("DEBENCH_DATA_DIR") or None
    results = read_results(path)
    task = bound_task(results, path, include_paths)
    check_method(results, task, path)
    real = checked_real_data(task, results, path, data_dir)
    identity = check_identity(results, task, path)
    checked = scored_as_now(results, task)
    rescored = results.task.config_sha256 != task_sha(task)
    limit, n_boot = limit_and_bootstrap(task, results, path, rescored)
    docs = select_docs(real, limit)
    samples = samples_path(results, path)
    checker = RecordChecker(results, task, docs, samples)
    records = read_samples(samples, task, docs, real.docs, limit, checker)
    incomplete = (
        "the leaderboard's own run: every failure scored as the job got it"
        if job_run
        else check_incomplete_share(records, len(docs), path)
    )
    report = score(task, docs, {r.doc_id: r for r in records}, n_bootstrap=n_boot)
    check_numbers(results, report, path, checked, rescored)
    provenance = _established(checker, incomplete, sorted(set(report.metrics) - checked) if rescored else None, checked)
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


def _established(checker: RecordChecker, incomplete: str, rescored: list[str] | None, checked: set[str]) -> Provenance:
    """What validation established, in words. ``rescored``: the metrics recomputed rather than
    matched with the file (None: the task's scoring did not change since the run)."""
    provenance = checker.provenance()
    recomputed = "every metric, CI, count and report recomputed from the samples"
    if rescored is not None:
        recomputed = (
            "every count recomputed from the samples; the task's scoring changed since the run, so its metrics "
            "are re-scored from the samples"
            + (
                f" (recomputed: {', '.join(rescored)}; matched the file: {', '.join(sorted(checked)) or 'none'})"
                if rescored
                else ""
            )
        )
    provenance.checks = [
        "task definition, judge method and real data match the installed debench",
        "model identity agrees with its name and kind; run fingerprint recomputed",
        *provenance.checks,
        incomplete,
        recomputed,
    ]
    return provenance


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
        f"same model identity, method and task ({sub.results.model.name}, {sub.results.task.method}, {sub.task.name}: "
        f"identical requests for every document) as the submission in folder {first.submission}/ "
        f"({first.results_path.name}): one row per judge and task, so submit only one of them",
        path=str(sub.results_path),
        field="model.identity",
    )


class EntryValidator(Protocol):
    """How ``validate_all`` validates an entry and scans a file for keys
    (``debench.leaderboard.validation_record.Validations``: each content once)."""

    def validate(self, path: Path, *, data_dir: str | Path | None, job_run: bool = False) -> ValidatedSubmission: ...

    def scan(self, path: Path, cap: int) -> None: ...


def one_row_per_judge(
    subs: Iterable[ValidatedSubmission], exempt: Callable[[ValidatedSubmission], bool] = lambda s: False
) -> tuple[list[ValidatedSubmission], list[UserError]]:
    """The entries with one per judge and task (the first, in the order given), and the refusals of
    the others as duplicates; an ``exempt`` entry is kept whatever it duplicates (a nomination of a
    canonical judge: a comparison, never a row of its own)."""
    kept: list[ValidatedSubmission] = []
    errors: list[UserError] = []
    seen: dict[tuple[str, str], ValidatedSubmission] = {}
    for sub in subs:
        key = (sub.task.name, sub.judge_key)
        if key in seen and not exempt(sub):
            errors.append(duplicate_error(sub, seen[key]))
            continue
        seen.setdefault(key, sub)
        kept.append(sub)
    return kept, errors


def validate_all(
    paths: Iterable[str | Path],
    *,
    data_dir: str | Path | None = None,
    folders: bool = False,
    merged_first: Sequence[str] = (),
    include_paths: Sequence[str | Path] = (),
    one_per_judge: bool = True,
    validator: EntryValidator | None = None,
) -> tuple[list[ValidatedSubmission], list[UserError]]:
    """Validate every results file given; returns the accepted ones and the refusals.

    ``merged_first``: submission folder names in merge order; their files are validated first, so
    of two entries of one judge the one merged first is kept and the other refused as its
    duplicate (then path order) — unless ``one_per_judge`` is off (the leaderboard's build, which
    keeps every nomination of a canonical judge). ``validator``: validates each entry and scans
    each file (default: in full, ``validate_submission``). A file that cannot be read at all (any
    exception) is a refusal naming it, never a crash of the whole build."""
    ok: list[ValidatedSubmission] = []
    errors: list[UserError] = []
    rank: dict[str, int] = {}
    for name in merged_first:  # a folder's first place counts (the queue names a folder once per results file)
        rank.setdefault(name, len(rank))
    files = sorted((Path(p) for p in paths), key=lambda p: (rank.get(p.parent.name, len(rank)), p))
    if folders:
        for folder in sorted({p.parent for p in files}):
            errors += folder_problems(folder, validator.scan if validator is not None else None)
    for path in files:
        try:
            sub = (
                validator.validate(path, data_dir=data_dir)
                if validator is not None
                else validate_submission(path, data_dir=data_dir, include_paths=include_paths)
            )
        except UserError as exc:
            errors.append(exc)
            continue
        except Exception as exc:  # noqa: BLE001 - one unreadable entry never stops the others
            errors.append(UserError(f"cannot be read ({type(exc).__name__})", path=str(path)))
            continue
        ok.append(sub)
    if not one_per_judge:
        return ok, errors
    ok, duplicates = one_row_per_judge(ok)
    return ok, errors + duplicates
