"""Fair ranking: the numbers a leaderboard ranks entries and judges by.

Point-estimate ranks (``competition_ranks``), tiers of statistically indistinguishable entries
(``tiers``), and an overall rank on one task set shared by every judge ranked overall
(``overall_ranks``).

* **Rank** (within a task): competition ranking by the primary metric's point estimate
  (1, 2, 2, 4), over the ranked entries only.
* **Tier** (within a task): the best entry leads tier 1, and every entry whose 95% CI overlaps the
  leader's joins it; the best entry left leads tier 2, and so on. Entries of one tier cannot be
  told apart at 95% from their tier's leader. An entry without a CI counts as its point estimate.
* **Overall**: computed over one task set (the maintainers' ``overall_tasks``; without a
  maintainers' file, every task with a ranked entry). Only judges ranked on every task of the set
  get an overall rank: the mean of their ranks among those judges, on each task of the set, ranked
  again (lower is better). A judge missing a task is shown, not ranked overall — ranking on the
  tasks a judge happened to run would let a single good task beat a judge that is good on all of
  them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


def competition_ranks(values: Sequence[float], higher_is_better: bool) -> list[int]:
    """1 + the number of values strictly better than each."""
    return [1 + sum(1 for w in values if (w > v if higher_is_better else w < v)) for v in values]


def _interval(value: float, ci95: Sequence[float] | None) -> tuple[float, float]:
    return (ci95[0], ci95[1]) if ci95 else (value, value)


def tiers(values: Sequence[float], cis: Sequence[Sequence[float] | None], higher_is_better: bool) -> list[int]:
    """Tier of each entry (1 = the leader's): see the module docstring."""
    order = sorted(range(len(values)), key=lambda i: (-values[i] if higher_is_better else values[i], i))
    tier = [0] * len(values)
    current = 0
    for lead in order:
        if tier[lead]:
            continue
        current += 1
        lo, hi = _interval(values[lead], cis[lead])
        for j in order:
            if not tier[j]:
                a, b = _interval(values[j], cis[j])
                if a <= hi and lo <= b:
                    tier[j] = current
    return tier


def overall_ranks(
    cells: Mapping[str, Mapping[str, float]], tasks: Sequence[str], higher_is_better: Mapping[str, bool]
) -> dict[str, tuple[float, int]]:
    """judge -> (mean rank over ``tasks``, overall rank) for the judges with a value on every task.

    ``cells``: judge -> task -> the judge's primary-metric value on that task (ranked entries only).
    """
    eligible = sorted(j for j, row in cells.items() if tasks and all(t in row for t in tasks))
    if not eligible:
        return {}
    sums = dict.fromkeys(eligible, 0)
    for t in tasks:
        for j, r in zip(eligible, competition_ranks([cells[j][t] for j in eligible], higher_is_better[t]), strict=True):
            sums[j] += r
    means = [sums[j] / len(tasks) for j in eligible]
    return {
        j: (m, r) for j, m, r in zip(eligible, means, competition_ranks(means, higher_is_better=False), strict=True)
    }
