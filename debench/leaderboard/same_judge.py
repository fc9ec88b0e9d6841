"""One judge, one row: the part of a model identity that changes the requests.

Two entries whose requests are identical for every document (the same model, prompts and
generation settings that change a request) are one judge, whatever else their identities record.
At temperature 0 a greedy model answers the same whatever the seed, so a seed there is not a new
judge: five seed variants of one run at temperature 0 are one row (the first merged; the others
are refused at the gate as duplicates of it). The task's prompts are fixed by the installed task
(validation checks them), so what is left to compare is the model identity with the effective
temperature.
"""

from __future__ import annotations

import copy
from typing import Any

from debench.task.config import TaskConfig


def _effective_temperature(identity: dict[str, Any], task: TaskConfig) -> float:
    gen = identity.get("generation")
    if isinstance(gen, dict) and isinstance(gen.get("temperature"), int | float):
        return float(gen["temperature"])
    return float(task.generation.temperature)


def request_identity(identity: dict[str, Any], task: TaskConfig) -> dict[str, Any]:
    """``identity`` without what does not change a request's answer: a seed at temperature 0
    (also of an ensemble's members). Baselines keep theirs (their seed is their answers)."""
    out = copy.deepcopy(identity)
    members = out.get("members")
    if isinstance(members, list):
        out["members"] = [request_identity(m, task) if isinstance(m, dict) else m for m in members]
        return out
    if str(out.get("name", "")).startswith("baseline/"):
        return out
    gen = out.get("generation")
    if isinstance(gen, dict) and _effective_temperature(out, task) == 0:
        gen.pop("seed", None)
        if not gen:
            out.pop("generation")
    return out
