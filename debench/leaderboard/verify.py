"""Which validated entries the leaderboard reproduced: **a rank means the leaderboard reproduced it**.

Every validated submission gets a standing:

* ``baseline``: a baseline, every prediction re-derived by running it. A reference line (chance or
  heuristic level), never ranked.
* ``verified``: a model entry whose committed spot-check record (``spot_record``) checks out
  against its files and passed, re-judged through an endpoint of
  ``leaderboard/trusted_endpoints.yaml`` that still trusts its identity. Only these are ranked.
* ``self_reported``: everything else that validated — its numbers are consistent with its own
  answers, but nothing the leaderboard ran says the answers came from the named model. Shown in a
  separate table with its numbers and CIs, never ranked. The reason says why: its endpoint is the
  submitter's (loopback, private, link-local or not listed), or it awaits the job's spot check.

With ``run`` (the refresh job after a merge: ``--spot-check-commit SHA``), a trusted entry without a
record is spot-checked now: ``SPOT_CHECK_DOCS`` documents drawn with the seed of that commit,
re-judged through the trusted endpoint with the maintainers' key, and the record written beside
the results file (the job commits it). Below the threshold the entry is **removed** with the
reason (the record stays, so the same entry is not re-drawn until it passes by luck); a check
that cannot run (the model cannot be built or reached, a key is missing) removes it too, with the
reason, and writes no record: the next refresh tries again. A record that does not check out
against the files refuses the submission (``UserError``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from debench.errors import UserError
from debench.leaderboard.spot_check import SPOT_CHECK_DOCS, rejudge, seed_from_commit
from debench.leaderboard.spot_record import (
    check_record,
    make_record,
    record_path,
    summary,
    write_record,
)
from debench.leaderboard.trusted import Endpoint, TrustedEndpoints, trust
from debench.leaderboard.validate import ValidatedSubmission
from debench.models.args import ModelArgs
from debench.models.managed_server import server_scope

Standing = Literal["verified", "self_reported", "baseline"]


@dataclass(frozen=True)
class SpotCheckRun:
    """The refresh job's spot checks of entries without a record."""

    commit: str
    """A commit made after the submissions were merged (the refresh job's ``GITHUB_SHA``)."""
    n: int = SPOT_CHECK_DOCS
    concurrency: int | None = None
    model_args: ModelArgs | None = None
    """This machine's settings for the re-judging models (``--spot-check-model-args``: e.g. a
    ``vllm/`` entry's ``tensor_parallel_size``); a setting that changes an identity is refused."""


@dataclass
class Removed:
    """A validated entry the leaderboard's spot check took off the page, and why."""

    sub: ValidatedSubmission
    reason: str


def _check_now(sub: ValidatedSubmission, trusted_endpoints: tuple[Endpoint, ...], run: SpotCheckRun) -> str | None:
    """Spot-check ``sub`` now and write its record; returns why it is removed, or None if it passed."""
    keys = {e.model: e.api_key() for e in trusted_endpoints}
    missing = [e.key_env for e in trusted_endpoints if e.kind == "provider" and not keys[e.model]]
    if missing:
        return f"the leaderboard's spot check needs the maintainers' key {missing[0]} (a CI secret), which is not set"
    try:
        with server_scope():  # a server started for this entry (vllm/) stops before the next entry's starts
            got = rejudge(sub, run.n, seed_from_commit(run.commit), lambda ident: keys.get(str(ident.get("name"))), run.concurrency, run.model_args)
    except UserError as exc:
        return str(exc)
    rec = make_record(sub, got, trusted_endpoints, run.commit, run.n)
    write_record(sub, rec)
    if not rec.passed:
        return _failed(rec.agreement, len(rec.documents), rec.threshold, record_path(sub).name)
    sub.provenance.spot_check = summary(rec, record_path(sub).name)
    return None


def _failed(agreement: float, n: int, threshold: float, name: str) -> str:
    return (
        f"failed the leaderboard's spot check: re-judged through a trusted endpoint, {agreement:.0%} of {n} documents agreed with the "
        f"submitted answers (an entry needs {threshold:.0%}; {name})"
    )


def standing(sub: ValidatedSubmission, trusted: TrustedEndpoints, run: SpotCheckRun | None) -> tuple[Standing, str] | Removed:
    """The standing of one validated submission and why (see the module docstring); ``UserError`` for a
    record that does not check out."""
    if sub.results.model.kind == "baseline":
        return "baseline", "a baseline: every prediction re-derived by running it; a reference line, never ranked"
    t = trust(sub.identity, trusted)
    path = record_path(sub)
    if path.exists() or path.is_symlink():
        rec = check_record(sub, path)
        if not rec.passed:
            return Removed(sub, _failed(rec.agreement, len(rec.documents), rec.threshold, path.name))
        now = [e.id for e in t.endpoints] if t.ok else []
        if [e.id for e in rec.endpoints] != now:
            return "self_reported", f"spot-checked through {', '.join(e.id for e in rec.endpoints)}, which no longer verifies it" + (f" ({t.reason})" if t.reason else "")
        sub.provenance.spot_check = summary(rec, path.name)
        return "verified", f"re-judged by the leaderboard through {', '.join(e.id for e in rec.endpoints)}: {rec.agreement:.0%} of {len(rec.documents)} documents agreed"
    if not t.ok:
        return "self_reported", f"cannot be verified: {t.reason}"
    if run is None:
        return "self_reported", f"awaits the leaderboard's spot check through {', '.join(e.id for e in t.endpoints)} (run by the refresh job after merge)"
    why = _check_now(sub, t.endpoints, run)
    if why is not None:
        return Removed(sub, why)
    assert sub.provenance.spot_check is not None
    s = sub.provenance.spot_check
    return "verified", f"re-judged by the leaderboard through {s.endpoint}: {s.agreement:.0%} of {s.n_docs} documents agreed"


def verify_all(
    subs: list[ValidatedSubmission], trusted: TrustedEndpoints, run: SpotCheckRun | None = None
) -> tuple[list[tuple[ValidatedSubmission, Standing, str]], list[Removed], list[UserError]]:
    """(kept entries with their standing and reason, removed entries, refused submissions)."""
    kept: list[tuple[ValidatedSubmission, Standing, str]] = []
    removed: list[Removed] = []
    errors: list[UserError] = []
    for sub in subs:
        try:
            got = standing(sub, trusted, run)
        except UserError as exc:
            errors.append(exc)
            continue
        if isinstance(got, Removed):
            removed.append(got)
        else:
            kept.append((sub, *got))
    return kept, removed, errors
