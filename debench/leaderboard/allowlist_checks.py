"""An entry against the maintainers' allowlist: is its model on it, would the gate refuse its settings,
what would the leaderboard's own run of it cost.

* ``allowlisted``: the allowlist entry (``debench.leaderboard.maintainers``) of each model the
  identity names — exact model ids — or why it is not allowlisted (then the entry is
  self-reported, never refused for it).
* ``gate_problem``: the pull request's check of an allowlisted identity: a ``max_tokens`` above the
  allowlist's ceiling, more llama.cpp threads than the job has (``MAX_JOB_THREADS``), or settings
  that make prompts overflow the model's published window (a smaller ``n_ctx``; a submitted prompt
  that with ``max_tokens`` does not fit; a document the submission itself recorded as not
  fitting), are refused. Numbers are read as the job's rebuild reads them (``8.0`` is 8).
* ``estimate``: the requests and tokens the run is expected to take, held against the budgets.
"""

from __future__ import annotations

from typing import Any

from debench.leaderboard.maintainers import AllowedModel, Budget, Maintainers
from debench.leaderboard.validate import ValidatedSubmission


def _model_identities(identity: dict[str, Any]) -> list[dict[str, Any]]:
    """The identities of the models an identity names (an ensemble: its members), baselines left out."""
    members = identity.get("members")
    out = members if isinstance(members, list) else [identity]
    return [m for m in out if isinstance(m, dict) and not str(m.get("name", "")).startswith("baseline/")]


def allowlisted(sub: ValidatedSubmission, maint: Maintainers) -> list[AllowedModel] | str:
    """The allowlist entry of each model the identity names, or why it is not allowlisted."""
    found = []
    for m in _model_identities(sub.identity):
        got = maint.allowed(str(m.get("name", "")))
        if got is None:
            return f"{m.get('name')} is not a model id of the maintainers' allowlist (leaderboard/maintainers.yaml)"
        found.append(got)
    return found or "a baseline is re-run, not reproduced"


def _whole(value: Any) -> int | None:
    """A whole number as the job's rebuild of the identity reads it, else None. The rebuild's model
    arguments take ``8.0`` (and ``true``) as 8 (and 1), and an identity that records ``8.0`` equals
    the rebuilt one's 8: the gate must read them alike, or a float would pass it unchecked."""
    if isinstance(value, (int, float)) and float(value).is_integer():
        return int(value)
    return None


def _max_tokens(m: dict[str, Any], sub: ValidatedSubmission) -> int:
    gen = m.get("generation")
    given = _whole(gen.get("max_tokens")) if isinstance(gen, dict) else None
    return given if given is not None else int(sub.task.generation.max_tokens)


MAX_JOB_THREADS = 4
"""The most llama.cpp threads (``n_threads``) an identity the job reproduces may ask for: the cores of
GitHub's standard runner. The thread count changes answers, so the job runs what the identity
records; many more threads than cores would make its run crawl (they spin while they wait)."""


def gate_problem(sub: ValidatedSubmission, maint: Maintainers) -> str | None:
    """Why an allowlisted identity is refused at the gate (see the module docstring), or None."""
    allowed = allowlisted(sub, maint)
    if isinstance(allowed, str):
        return None  # not allowlisted: self-reported, not refused
    for m, a in zip(_model_identities(sub.identity), allowed, strict=True):
        problem = _settings_problem(m, a, _max_tokens(m, sub))
        if problem is not None:
            return problem
    if len(allowed) == 1:  # one model: the submitted prompts are the ones it was asked
        return _overflow(sub, allowed[0], _max_tokens(_model_identities(sub.identity)[0], sub))
    return None


def _settings_problem(m: dict[str, Any], a: AllowedModel, mt: int) -> str | None:
    """Why one allowlisted model's recorded settings are refused: ``max_tokens`` above the ceiling,
    more threads than the job has, a slot smaller than the published window, no room for a prompt."""
    if mt > a.max_tokens:
        return f"{a.model} asks for max_tokens {mt}, above the allowlist's ceiling of {a.max_tokens}"
    threads = _whole(m.get("n_threads"))
    if threads is not None and threads > MAX_JOB_THREADS:
        return (
            f"{a.model} asks for n_threads {threads}, more than the {MAX_JOB_THREADS} the job runs llama.cpp "
            "with (a thread per core at most)"
        )
    n_ctx, n_par = _whole(m.get("n_ctx")), _whole(m.get("n_parallel", 1))
    if n_ctx is not None and n_par is not None and n_ctx // max(1, n_par) < a.context_window:
        return (
            f"{a.model} with n_ctx {n_ctx} ({n_par} slot(s)) has a smaller window than its published "
            f"{a.context_window} tokens: prompts would overflow"
        )
    if mt >= a.context_window:
        return f"{a.model}: max_tokens {mt} leaves no room for a prompt in its {a.context_window}-token window"
    return None


def _overflow(sub: ValidatedSubmission, a: AllowedModel, mt: int) -> str | None:
    """A submitted document whose prompt and ``max_tokens`` do not fit the published window (or that
    the submission itself recorded as not fitting), as the reason to refuse the identity."""
    over = next(
        (r for r in sub.records if r.status == "not_completed" or r.prompt_tokens + mt > a.context_window), None
    )
    if over is None:
        return None
    return (
        f"{a.model} with max_tokens {mt}: the prompt of document '{over.doc_id}' does not fit its published "
        f"{a.context_window}-token window (identities whose settings make prompts overflow are refused)"
    )


def estimate(sub: ValidatedSubmission, maint: Maintainers) -> Budget:
    """What reproducing the entry is expected to cost: requests = documents × the requests a
    document took in the submitted run (at least 1); tokens = the larger of the submitted run's
    tokens scaled to every document and every request asking for its ``max_tokens``. The run
    itself is capped at the per-entry budget, so an understated submission cannot spend more."""
    n_all = sub.n_docs_total
    per_doc = max(1.0, sub.results.usage.n_requests / max(1, sub.n_docs))
    requests = round(n_all * per_doc)
    mt = max((_max_tokens(m, sub) for m in _model_identities(sub.identity)), default=0)
    tokens = max(int(sub.results.usage.total_tokens * n_all / max(1, sub.n_docs)), requests * mt)
    return Budget(requests=requests, tokens=tokens)
