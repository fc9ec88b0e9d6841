"""Which validated entries the leaderboard reproduced: **a rank is the leaderboard's own number**.

Every validated submission gets a standing:

* ``baseline``: a baseline, every prediction re-derived by running it. A reference line (chance or
  heuristic level), never ranked.
* ``verified``: a model entry the leaderboard's refresh job ran itself on every document through
  the trusted endpoint (``debench.leaderboard.reproduce``). Its row carries the job's numbers —
  the submitted ones are shown beside them, with the difference and whether it lies within the
  noise the job measured (``debench.leaderboard.compare``). Only these are ranked, and only with
  the job's numbers.
* ``self_reported``: everything else that validated, shown with the submitted numbers, never
  ranked; the reason says why (not on the maintainers' allowlist, its endpoint is the submitter's,
  it waits in the queue, its run could not be made, …).

Entries are taken in queue order (merge order, ``debench.leaderboard.queue``). With ``run`` (the
refresh job: ``--reproduce``) an entry without a finished reproduction is run when its estimate
fits the per-entry budget and what is left of the refresh's; the others wait. Anything that goes
wrong with one entry — a model that cannot be built, an exception of any kind — is that entry's
reason, never the end of the build.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from debench.core.errors import UserError
from debench.leaderboard.allowlist_checks import allowlisted, estimate, gate_problem
from debench.leaderboard.compare import Comparison, compare
from debench.leaderboard.maintainers import Maintainers
from debench.leaderboard.reproduce import ReproduceRun, reproduce
from debench.leaderboard.trusted import Trust, TrustedEndpoints, trust
from debench.leaderboard.validate import ValidatedSubmission, validate_submission
from debench.models.managed_server import server_scope

Standing = Literal["verified", "self_reported", "baseline"]


@dataclass(frozen=True)
class Reproduction:
    """The job's own run of an entry, validated, and how the submitted numbers compare with it."""

    run: ValidatedSubmission
    comparison: Comparison
    endpoints: list[str]


@dataclass
class Standings:
    kept: list[tuple[ValidatedSubmission, Standing, str]] = field(default_factory=list)
    reproductions: dict[str, Reproduction] = field(default_factory=dict)
    """Entry id (``<folder>/<results file>``) -> the job's run of it."""
    waiting: list[str] = field(default_factory=list)
    """Entry ids waiting for the job's run, in queue order."""


def entry_id(sub: ValidatedSubmission) -> str:
    return f"{sub.submission}/{sub.results_path.name}"


def _committed_reproduction(
    sub: ValidatedSubmission, run_results: Path, data_dir: str | Path | None
) -> Reproduction | str | None:
    """The committed reproduction of ``sub``, validated and compared; a reason when it does not
    check out; None when there is none (or it is unfinished)."""
    from debench.leaderboard.files import sha256_file

    if not run_results.exists():
        return None
    rep = validate_submission(run_results, data_dir=data_dir, job_run=True)
    meta = rep.results.config.get("reproduction") or {}
    if meta.get("of") != entry_id(sub):
        return f"the reproduction at {run_results.name} names {meta.get('of')!r}, not this entry"
    if meta.get("submitted_sha256") != sha256_file(sub.results_path):
        return (
            "the submitted results file changed after the leaderboard reproduced it: remove the "
            "reproduction so the job runs it again"
        )
    if rep.partial or rep.n_docs != rep.n_docs_total:
        return None
    primary = next(
        m.name for m in sub.task.metrics if m.name in sub.results.metrics and not m.name.endswith(("_rate", "_human"))
    )
    cmp = compare(sub.task, rep.docs, sub.records, rep.records, primary)
    return Reproduction(rep, cmp, list(meta.get("endpoints") or []))


@dataclass(frozen=True)
class _Verifying:
    """What every entry's standing is decided with, and where the outcomes gather."""

    trusted: TrustedEndpoints
    maint: Maintainers
    run: ReproduceRun | None
    out_dir: Path
    data_dir: str | Path | None
    acc: Standings


_BASELINE_REASON = "a baseline: every prediction re-derived by running it; a reference line, never ranked"


def _reproducible(sub: ValidatedSubmission, trusted: TrustedEndpoints, maint: Maintainers) -> Trust | str:
    """The trusted endpoints the job would run the entry through, or why it is never reproduced
    (not trusted, not allowlisted, settings the gate refuses)."""
    t = trust(sub.identity, trusted)
    if not t.ok:
        return str(t.reason)
    allowed = allowlisted(sub, maint)
    if isinstance(allowed, str):
        return allowed
    return gate_problem(sub, maint) or t


def _held_back(sub: ValidatedSubmission, t: Trust, maint: Maintainers, run: ReproduceRun) -> tuple[str, bool] | None:
    """Why the job does not run the entry now, and whether it waits for a later refresh; None: run it."""
    cost = estimate(sub, maint)
    entry, refresh = maint.budgets.per_entry, maint.budgets.per_refresh
    if cost.requests > entry.requests or cost.tokens > entry.tokens:
        return (
            f"not reproduced: reproducing it is estimated at {cost.requests} requests and {cost.tokens} tokens, above "
            f"one entry's budget ({entry.requests} requests, {entry.tokens} tokens)"
        ), False
    if run.spent.requests + cost.requests > refresh.requests or run.spent.tokens + cost.tokens > refresh.tokens:
        return "waits in the queue for the leaderboard's own run (this refresh's budget is spent)", True
    missing = [e.key_env for e in t.endpoints if e.kind == "provider" and not e.api_key()]
    if missing:
        return f"waits for the leaderboard's own run, which needs the maintainers' key {missing[0]} (a CI secret)", True
    return None


def _run_now(sub: ValidatedSubmission, t: Trust, run: ReproduceRun) -> None:
    keys = {e.model: e.api_key() for e in t.endpoints}
    with server_scope():
        reproduce(sub, t.endpoints, run, lambda ident: keys.get(str(ident.get("name"))))


def _verified_reason(got: Reproduction) -> str:
    c = got.comparison
    noise = "within" if c.within_noise else "outside" if c.within_noise is not None else "cannot say (undefined)"
    return (
        f"reproduced by the leaderboard on all {c.n_docs} documents through {', '.join(got.endpoints)}: ranked with "
        f"its own numbers; the submitted {c.metric} differs by {_fmt(c.difference)} ({noise} the run-to-run noise), "
        f"{c.agreement:.0%} of the answers agree"
    )


def _standing(sub: ValidatedSubmission, ctx: _Verifying) -> tuple[Standing, str]:
    if sub.results.model.kind == "baseline":
        return "baseline", _BASELINE_REASON
    t = _reproducible(sub, ctx.trusted, ctx.maint)
    if isinstance(t, str):
        return "self_reported", f"not reproduced: {t}"
    results_path = ctx.out_dir / sub.submission / sub.results_path.name
    got = _committed_reproduction(sub, results_path, ctx.data_dir)
    if got is None and ctx.run is not None:
        held = _held_back(sub, t, ctx.maint, ctx.run)
        if held is not None:
            reason, waits = held
            if waits:
                ctx.acc.waiting.append(entry_id(sub))
            return "self_reported", reason
        _run_now(sub, t, ctx.run)
        got = _committed_reproduction(sub, results_path, ctx.data_dir)
    if isinstance(got, str):
        return "self_reported", f"not reproduced: {got}"
    if got is None:
        ctx.acc.waiting.append(entry_id(sub))
        return (
            "self_reported",
            f"waits in the queue for the leaderboard's own run through {', '.join(e.id for e in t.endpoints)}",
        )
    ctx.acc.reproductions[entry_id(sub)] = got
    return "verified", _verified_reason(got)


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
) -> Standings:
    """Every entry's standing, in the order given (queue order); one entry's failure is its reason."""
    acc = Standings()
    ctx = _Verifying(trusted, maint, run, out_dir, data_dir or os.environ.get("DEBENCH_DATA_DIR") or None, acc)
    for sub in subs:
        try:
            standing, reason = _standing(sub, ctx)
        except UserError as exc:
            standing, reason = "self_reported", f"not reproduced: {exc}"
        except Exception as exc:  # noqa: BLE001 - one entry that cannot be run never stops the others
            standing, reason = "self_reported", f"not reproduced: the leaderboard's run failed ({type(exc).__name__})"
        acc.kept.append((sub, standing, reason))
    return acc
