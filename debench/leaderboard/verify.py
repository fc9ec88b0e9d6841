"""Each validated entry's standing: **a rank is the leaderboard's own number**, one row per canonical judge.

* ``baseline``: a baseline, every prediction re-derived by running it. A reference line (chance or
  heuristic level), never ranked.
* ``verified``: the row of a canonical judge on a task (``debench.leaderboard.canonical``): the
  refresh job's own run of it (``debench.leaderboard.reproduce``), validated. Only these are
  ranked, with the job's numbers. The row belongs to the model and method, not to a folder: one
  run, one row, whoever nominated it.
* ``self_reported``: every submission that validated. One that nominates a canonical judge is
  compared with the judge's run — the difference on the primary metric and whether it lies
  within the run-to-run noise (``debench.leaderboard.compare``): its numbers are its claim, shown,
  never ranked. Every later nomination of the same judge (its vendor's own included) is accepted
  the same way, never refused as a copy and never run again. Any other entry says why it is not a
  nomination (not on the allowlist, settings that differ from the canonical ones, the submitter's
  own endpoint, …).

Canonical judges are taken in the order of their first nomination (the queue: merge order). With
``run`` (the refresh job: ``--reproduce``), a judge's run that is not finished is started or
resumed when its estimate (``debench.leaderboard.estimate``, counted by the job) fits what is left
of its entry's budget, the refresh's and the month's; else it waits, and the judges behind it go
on. Anything that goes wrong with one judge — a model that cannot be made, an exception of any kind
— is the reason its nominations give, never the end of the build. Once every judge's run is
decided, each row's judge gets its memorization probe on the task (``job_probe``: run by the job
within the same budgets, after the reproductions, or why not), which its card reads.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from debench.core.errors import UserError
from debench.leaderboard.canonical import CanonicalJudge, canonical_judges, nominated
from debench.leaderboard.compare import Comparison, compare
from debench.leaderboard.job_probe import Probed, probe_memorization
from debench.leaderboard.maintainers import Maintainers
from debench.leaderboard.reproduce import ReproduceRun, records_by_doc, reproduce, run_paths
from debench.leaderboard.trusted import Endpoint, TrustedEndpoints, trust
from debench.leaderboard.validate import EntryValidator, ValidatedSubmission, one_row_per_judge, validate_submission
from debench.metrics.names import primary_metric
from debench.task.config import TaskConfig

Standing = Literal["verified", "self_reported", "baseline"]
Kept = tuple[ValidatedSubmission, Standing, str]


@dataclass(frozen=True)
class Reproduction:
    """The job's run of a canonical judge on a task, validated: a ranked row."""

    judge: CanonicalJudge
    run: ValidatedSubmission
    endpoints: list[str]


@dataclass(frozen=True)
class Nomination:
    """A submission nominating a canonical judge, compared with the judge's run (None while it waits)."""

    judge: CanonicalJudge
    task: str
    comparison: Comparison | None


@dataclass(frozen=True)
class Waiting:
    """A canonical judge's run of a task that has not finished, and why."""

    judge: str
    task: str
    nominated_by: str
    reason: str


@dataclass
class Standings:
    kept: list[Kept] = field(default_factory=list)
    rows: dict[str, Reproduction] = field(default_factory=dict)
    """Row id (``row_id``) -> the job's run it shows."""
    nominations: dict[str, Nomination] = field(default_factory=dict)
    """Entry id of a nominating submission -> the judge it nominates and the comparison."""
    waiting: list[Waiting] = field(default_factory=list)
    """Canonical judges' runs waiting, in queue order."""
    refused: list[UserError] = field(default_factory=list)
    """Entries refused as a second row of a judge that is not canonical (``validate.one_row_per_judge``)."""
    memorization: dict[tuple[str, str], Probed] = field(default_factory=dict)
    """(judge id, task) of each row -> the job's memorization probe of it (``job_probe``)."""


def entry_id(sub: ValidatedSubmission) -> str:
    """A submission's id: ``<folder>/<results file>``."""
    return f"{sub.submission}/{sub.results_path.name}"


def row_id(run: ValidatedSubmission) -> str:
    """A canonical judge's row id: ``reproduced/<judge folder>/<results file>``."""
    return f"reproduced/{run.submission}/{run.results_path.name}"


@dataclass(frozen=True)
class _Verifying:
    """What every standing is decided with, and where the outcomes gather."""

    trusted: TrustedEndpoints
    maint: Maintainers
    run: ReproduceRun | None
    out_dir: Path
    data_dir: str | Path | None
    acc: Standings
    validator: EntryValidator | None


_BASELINE_REASON = "a baseline: every prediction re-derived by running it; a reference line, never ranked"


def _endpoint(judge: CanonicalJudge, trusted: TrustedEndpoints) -> Endpoint:
    t = trust(judge.identity, trusted)
    if not t.ok:
        raise UserError(f"no trusted endpoint reaches the canonical judge {judge.id}: {t.reason}")
    return t.endpoints[0]


def _paths(judge: CanonicalJudge, task: TaskConfig, ctx: _Verifying) -> tuple[Path, Path]:
    from debench.leaderboard.real_data import REAL_DATA

    return run_paths(ctx.out_dir, judge, task, REAL_DATA.get(task, ctx.data_dir))


def _committed_run(judge: CanonicalJudge, task: TaskConfig, ctx: _Verifying) -> Reproduction | None:
    """The judge's finished run of ``task``, validated; None when there is none yet. ``UserError``
    when a committed run is not the judge's."""
    results, _ = _paths(judge, task, ctx)
    if not results.exists():
        return None
    if ctx.validator is not None:
        rep = ctx.validator.validate(results, data_dir=ctx.data_dir, job_run=True)
    else:
        rep = validate_submission(results, data_dir=ctx.data_dir, job_run=True)
    meta = rep.results.config.get("reproduction") or {}
    made = {k: v for k, v in rep.identity.items() if k != "api_base"}
    if meta.get("judge") != judge.id or made != judge.identity or rep.results.task.method != judge.method:
        raise UserError(
            f"the run at {results.name} is not the canonical judge {judge.id}'s "
            "(its identity, method or record differ)",
            path=str(results),
            field="config.reproduction",
        )
    if rep.partial:
        return None
    return Reproduction(judge, rep, [str(e) for e in meta.get("endpoints") or []])


def _held_back(judge: CanonicalJudge, task: TaskConfig, endpoint: Endpoint, run: ReproduceRun) -> str | None:
    """Why the job does not run the judge on ``task`` now (it waits), or None: run it. Raises
    ``UserError`` when the run would never fit one entry's budget."""
    from debench.leaderboard.estimate import estimate_run, prompt_counter
    from debench.leaderboard.real_data import REAL_DATA
    from debench.leaderboard.reproduce import canonical_model

    if endpoint.kind == "provider" and not endpoint.api_key():
        return f"waits for the leaderboard's own run, which needs the maintainers' key {endpoint.key_env} (a CI secret)"
    docs = REAL_DATA.get(task, run.data_dir).docs
    done = records_by_doc(run.paths(judge, task, REAL_DATA.get(task, run.data_dir))[1])
    model = canonical_model(judge, endpoint, run.model_args)
    cost = estimate_run(
        task, [d for d in docs if d.doc_id not in done], judge.method, model, prompt_counter(judge.allowed.model)
    )
    entry = run.maintainers.budgets.per_entry
    if not done and not cost.fits_in(entry):
        raise UserError(
            f"never run: the leaderboard's estimate of {judge.id} on {task.name} is {cost.requests:,} requests and "
            f"{cost.tokens:,} tokens, above one entry's budget ({entry.requests:,} requests, {entry.tokens:,} tokens)"
        )
    for scope, left in run.left().items():
        if not cost.fits_in(left):
            return (
                f"waits for the leaderboard's own run: its estimate ({cost.requests:,} requests, {cost.tokens:,} "
                f"tokens) "
                f"does not fit what is left of {scope}'s budget ({left.requests:,} requests, {left.tokens:,} tokens)"
            )
    return None


def _run_of(judge: CanonicalJudge, task: TaskConfig, ctx: _Verifying) -> Reproduction | str:
    """The judge's finished run of ``task`` (made now by the refresh job when it fits), or why it
    waits; ``UserError`` when it is never made."""
    endpoint = _endpoint(judge, ctx.trusted)
    got = _committed_run(judge, task, ctx)
    if got is None and ctx.run is not None:
        held = _held_back(judge, task, endpoint, ctx.run)
        if held is not None:
            return held
        from debench.leaderboard.estimate import prompt_counter
        from debench.models.managed_server import server_scope

        with server_scope():
            reproduce(judge, task, endpoint, ctx.run, prompt_counter(judge.allowed.model))
        got = _committed_run(judge, task, ctx)
    if got is None:
        return f"waits in the queue for the leaderboard's own run through {endpoint.id}"
    return got


def _probed(judge: CanonicalJudge, task: TaskConfig, ctx: _Verifying) -> Probed:
    """The job's memorization probe of the judge's row; what goes wrong is its reason, never the end of the build."""
    try:
        return probe_memorization(judge, task, _endpoint(judge, ctx.trusted), ctx.run, ctx.out_dir, ctx.data_dir)
    except UserError as exc:
        return Probed(None, f"memorization not measured: {exc}")
    except Exception as exc:  # noqa: BLE001 - a probe that fails never stops the build
        return Probed(None, f"memorization not measured: the leaderboard's probe failed ({type(exc).__name__})")


def _comparison_reason(judge: CanonicalJudge, c: Comparison) -> str:
    noise = "within" if c.within_noise else "outside" if c.within_noise is not None else "cannot say (undefined)"
    return (
        f"nominates the canonical judge {judge.id}, ranked with the leaderboard's own run; these numbers are the "
        f"submitter's claim: {c.metric} differs by {_fmt(c.difference)} ({noise} the run-to-run noise), "
        f"{c.agreement:.0%} of the answers agree"
    )


def _verified_reason(rep: Reproduction) -> str:
    n = rep.run.n_docs
    return (
        f"the canonical judge {rep.judge.id}: the leaderboard's own run on all {n} documents with the maintainers' "
        f"settings, through {', '.join(rep.endpoints)}; ranked with its own numbers"
    )


def _judge_outcome(judge: CanonicalJudge, noms: list[ValidatedSubmission], ctx: _Verifying) -> None:
    """The judge's row (when its run is finished) and its nominations' standings."""
    task = noms[0].task
    acc = ctx.acc
    try:
        got = _run_of(judge, task, ctx)
    except UserError as exc:
        got = f"is not reproduced: {exc}"
    except Exception as exc:  # noqa: BLE001 - one judge that cannot be run never stops the others
        got = f"is not reproduced: the leaderboard's run failed ({type(exc).__name__})"
    else:
        if isinstance(got, str):
            acc.waiting.append(Waiting(judge.id, task.name, entry_id(noms[0]), got))
    if isinstance(got, str):
        for sub in noms:
            acc.kept.append((sub, "self_reported", f"nominates the canonical judge {judge.id}, which {got}"))
            acc.nominations[entry_id(sub)] = Nomination(judge, task.name, None)
        return
    acc.kept.append((got.run, "verified", _verified_reason(got)))
    acc.rows[row_id(got.run)] = got
    primary = primary_metric([m.name for m in task.metrics])
    assert primary is not None  # validation refuses a task without one (task_binding)
    for sub in noms:
        c = compare(task, sub.docs, sub.records, got.run.records, primary)
        acc.kept.append((sub, "self_reported", _comparison_reason(judge, c)))
        acc.nominations[entry_id(sub)] = Nomination(judge, task.name, c)


def _nominee(sub: ValidatedSubmission, judges: list[CanonicalJudge], trusted: TrustedEndpoints) -> CanonicalJudge | str:
    try:
        return nominated(sub, judges, trusted)
    except Exception as exc:  # noqa: BLE001 - one entry that cannot be read never stops the others
        return f"its identity cannot be compared with the canonical judges' ({type(exc).__name__})"


def _fmt(v: float | None) -> str:
    return "n/a" if v is None else f"{v:+.3f}"


def verify_all(
    subs: list[ValidatedSubmission],
    trusted: TrustedEndpoints,
    maint: Maintainers,
    *,
    run: ReproduceRun | None = None,
    out_dir: Path,
    data_dir: str | Path | None = None,
    validator: EntryValidator | None = None,
) -> Standings:
    """Every entry's standing, in the order given (queue order) — see the module docstring.
    ``validator``: validates the job's runs (default: in full)."""
    acc = Standings()
    data_dir = data_dir or os.environ.get("DEBENCH_DATA_DIR") or None
    ctx = _Verifying(trusted, maint, run, out_dir, data_dir, acc, validator)
    judges = canonical_judges(maint)
    nominee = {entry_id(s): _nominee(s, judges, trusted) for s in subs if s.results.model.kind != "baseline"}
    subs, acc.refused = one_row_per_judge(subs, lambda s: isinstance(nominee.get(entry_id(s)), CanonicalJudge))
    groups: dict[tuple[str, str], tuple[CanonicalJudge, list[ValidatedSubmission]]] = {}
    for sub in subs:
        got = nominee.get(entry_id(sub))
        if got is None:
            acc.kept.append((sub, "baseline", _BASELINE_REASON))
        elif isinstance(got, str):
            acc.kept.append((sub, "self_reported", f"not reproduced: {got}"))
        else:
            groups.setdefault((got.id, sub.task.name), (got, []))[1].append(sub)
    for judge, noms in groups.values():
        _judge_outcome(judge, noms, ctx)
    for rep in acc.rows.values():  # after every reproduction: a probe never holds a ranked row up
        acc.memorization[(rep.judge.id, rep.run.task.name)] = _probed(rep.judge, rep.run.task, ctx)
    return acc
