"""Canonical judges: what the leaderboard ranks is an allowlisted model × a judge method, run with the
maintainers' settings — a submission only nominates one.

* ``CanonicalJudge``: one allowlist entry of ``leaderboard/maintainers.yaml`` with one of its
  methods. Its ``identity`` is the model identity the maintainers' settings make (without an
  ``api_base``: the job reaches the trusted endpoint of its own environment); its ``folder`` holds
  the job's runs of it under ``leaderboard/reproduced/`` — one run per judge and task, whoever
  nominated it, so a judge is paid for and ranked once.
* ``nominated``: the canonical judge a submission nominates, or why it nominates none (then it is
  self-reported, never run). A submission nominates a judge when its endpoint is trusted, its
  model is that entry's exact id, its method one of the entry's, and the requests its settings make are
  the canonical ones (``request_settings``: the task's generation settings with the identity's on
  top, so an explicit ``max_tokens`` equal to the task's or ``temperature=0`` on a task at 0 is the
  same judge; a seed at temperature 0 changes nothing; the endpoint is the job's). Any setting that
  differs — a ``stop``, a temperature, a seed at a temperature above 0, another ``n_ctx`` — makes
  the entry self-reported with the difference as its reason: it never reaches the job's run. An
  ensemble is never a canonical judge (the allowlist names single models); its reason also names a
  member whose endpoint is the submitter's own (a member's ``api_base`` is checked as a single model's).
* ``gate_problem``: the ceiling a nomination's identity may not pass, refused at the pull request
  (one line naming the file and field): a llama.cpp ``n_ctx`` above the one the job serves the
  model with (the maintainers' value).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from debench.core.errors import UserError
from debench.leaderboard.maintainers import AllowedModel, Maintainers
from debench.leaderboard.trusted import TrustedEndpoints, trust
from debench.leaderboard.validate import ValidatedSubmission
from debench.task.config import TaskConfig

_NOT_COMPARED = ("name", "api_base", "generation")


@dataclass(frozen=True)
class CanonicalJudge:
    allowed: AllowedModel
    method: str
    identity: dict[str, Any] = field(compare=False)
    """The identity the maintainers' settings make, without ``api_base``."""

    @property
    def id(self) -> str:
        """``<model>[+<variant>]/<method>``: the judge's id on the page and in the ledger."""
        return f"{self.allowed.label}/{self.method}"

    @property
    def folder(self) -> str:
        """The folder of the job's runs of this judge under ``leaderboard/reproduced/``."""
        return self.allowed.label.replace("/", "__").replace(":", "_")

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.allowed.settings)


def _identity_of(a: AllowedModel) -> dict[str, Any]:
    from debench.models.factory import make_model

    ident = make_model(a.model, model_args=dict(a.settings)).identity()
    return {k: v for k, v in ident.items() if k != "api_base"}


def canonical_judges(maint: Maintainers) -> list[CanonicalJudge]:
    """Every canonical judge of the maintainers' file, in its order (an entry's methods in theirs)."""
    return [CanonicalJudge(a, m, _identity_of(a)) for a in maint.allowlist for m in a.methods]


def request_settings(identity: dict[str, Any], task: TaskConfig) -> dict[str, Any]:
    """What decides a request of ``identity`` on ``task`` besides the prompt: the task's generation
    settings with the identity's on top (a seed dropped at temperature 0: it changes nothing) and
    every other setting the identity records (llama.cpp's, the weights, the grammar); the name and
    the endpoint are compared apart."""
    recorded = identity.get("generation")
    gen = {**task.generation.model_dump(), **(recorded if isinstance(recorded, dict) else {})}
    if not gen.get("temperature"):
        gen.pop("seed", None)
    return {
        **{k: v for k, v in identity.items() if k not in _NOT_COMPARED},
        **{f"generation.{k}": v for k, v in gen.items()},
    }


def _shown(value: Any) -> str:
    return "not set" if value is None else json.dumps(value)


def settings_difference(identity: dict[str, Any], judge: CanonicalJudge, task: TaskConfig) -> str:
    """The settings in which ``identity``'s requests differ from the canonical judge's, in words."""
    mine, theirs = request_settings(identity, task), request_settings(judge.identity, task)
    keys = sorted(k for k in {*mine, *theirs} if mine.get(k) != theirs.get(k))
    return ", ".join(
        f"{k.removeprefix('generation.')} {_shown(mine.get(k))} (canonical: {_shown(theirs.get(k))})" for k in keys
    )


def nominated(
    sub: ValidatedSubmission, judges: list[CanonicalJudge], trusted: TrustedEndpoints
) -> CanonicalJudge | str:
    """The canonical judge ``sub`` nominates, or why it nominates none (see the module docstring)."""
    ident = sub.identity
    name = str(ident.get("name", ""))
    t = trust(ident, trusted)
    if "members" in ident:  # a member's own endpoint is said too: it is the submitter's, whatever the allowlist
        member = f"; {t.reason}" if t.reason and t.reason.startswith("member ") else ""
        return f"an ensemble is never a canonical judge (the maintainers' allowlist names single models){member}"
    if not t.ok:
        return str(t.reason)
    of_model = [j for j in judges if j.allowed.model == name]
    if not of_model:
        return f"{name} is not a model of the maintainers' allowlist (leaderboard/maintainers.yaml)"
    method = sub.results.task.method
    candidates = [j for j in of_model if j.method == method]
    if not candidates:
        methods = sorted({j.method for j in of_model})
        return f"{name} is ranked with the method(s) {', '.join(methods)} (the maintainers' allowlist), not {method}"
    mine = request_settings(ident, sub.task)
    same = next((j for j in candidates if request_settings(j.identity, sub.task) == mine), None)
    if same is not None:
        return same
    first = candidates[0]
    return (
        f"its settings differ from the canonical judge {first.id}'s ({settings_difference(ident, first, sub.task)}): "
        "the leaderboard runs only the maintainers' settings, so this entry is the submitter's own claim"
    )


def _served_n_ctx(identity: dict[str, Any]) -> int:
    """The context tokens llama.cpp is started with for ``identity`` (its ``n_ctx``, else a slot of
    ``SLOT_CONTEXT`` per parallel slot)."""
    from debench.models.local_server import SLOT_CONTEXT

    n_ctx, slots = identity.get("n_ctx"), identity.get("n_parallel", 1)
    if isinstance(n_ctx, int | float) and not isinstance(n_ctx, bool):
        return int(n_ctx)
    return SLOT_CONTEXT * (int(slots) if isinstance(slots, int | float) and not isinstance(slots, bool) else 1)


def gate_problem(sub: ValidatedSubmission, judges: list[CanonicalJudge]) -> UserError | None:
    """The ceiling an allowlisted model's identity passes, refused at the gate; None when it passes none.
    A llama.cpp identity may not record an ``n_ctx`` above the one the job serves the model with:
    what a submission writes there is never started, and a refusal says so before a merge."""
    from debench.models.factory import model_kind

    name = str(sub.identity.get("name", ""))
    served = [j for j in judges if j.allowed.model == name and model_kind(name) in ("local", "gguf")]
    n_ctx = sub.identity.get("n_ctx")
    if not served or not isinstance(n_ctx, int | float) or isinstance(n_ctx, bool):
        return None
    ceiling = max(_served_n_ctx(j.identity) for j in served)
    if n_ctx <= ceiling:
        return None
    return UserError(
        f"n_ctx {n_ctx:g} is above the {ceiling} the leaderboard serves {name} with (the maintainers' value): "
        "llama.cpp's memory grows with it, and the job runs only the maintainers' settings",
        path=str(sub.results_path),
        field="model.identity.n_ctx",
    )
