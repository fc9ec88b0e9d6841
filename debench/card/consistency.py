"""Consistency: test-retest agreement of the judge over the repeats of ``eval --repeats K``.

Per document answered (parsed) in at least two repeats, the share of pairs of repeats that gave the
same answer; the mean over documents, with a seeded bootstrap 95% CI over documents
(``metrics.bootstrap.mean_ci``). Repeat k of a run asks with the seed ``seed + k`` at the judge's
temperature (at temperature 0 only with ``--force``: the provider's own nondeterminism).
"""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np

from debench.card.evidence import Evidence
from debench.card.model import ConsistencyRow, Number, Status
from debench.card.thresholds import RETEST_FAIL, RETEST_PASS
from debench.core.numeric import fmt_estimate
from debench.data.samples import SampleRecord
from debench.metrics.bootstrap import mean_ci
from debench.scoring.results import load_results


def pair_agreement(runs: list[dict[str, SampleRecord]]) -> list[float]:
    """Per document parsed in two or more repeats: the share of pairs of them with the same answer."""
    shares = []
    for doc_id in dict.fromkeys(key for run in runs for key in run):
        answers = [r[doc_id].prediction for r in runs if doc_id in r and r[doc_id].status == "ok"]
        pairs = list(combinations(answers, 2))
        if pairs:
            shares.append(sum(a == b for a, b in pairs) / len(pairs))
    return shares


def _judged(agreement: Number) -> tuple[Status, str]:
    if agreement.value is None:
        return "not_measured", "no document was answered in two repeats"
    shown = f"test-retest agreement {fmt_estimate(agreement.value, agreement.ci95)} over {agreement.n} documents"
    if agreement.value >= RETEST_PASS:
        return "pass", shown
    if agreement.value >= RETEST_FAIL:
        return "warn", f"{shown}, below {RETEST_PASS}"
    return "fail", f"{shown}, below {RETEST_FAIL}"


def consistency_row(ev: Evidence) -> ConsistencyRow:
    report = ev.repeats
    if report is None or ev.runs.repeats is None:
        reason = ev.runs.absent.get("consistency", "no repeats report (eval --repeats)")
        return ConsistencyRow(
            task=ev.task.name, status="not_measured", reason=reason, repeats=None, temperature=None, agreement=None
        )
    where = Path(ev.runs.repeats).parent
    runs = []
    for name in report.results_files:
        results = load_results(where / name)
        runs.append(ev.records(results, where / name))
    shares = pair_agreement(runs)
    value, ci = mean_ci(np.array(shares, dtype=float), ev.n_bootstrap, ev.task.scoring.bootstrap_seed)
    agreement = Number(value=value, ci95=ci, n=len(shares))
    status, reason = _judged(agreement)
    return ConsistencyRow(
        task=ev.task.name,
        status=status,
        reason=reason,
        repeats=report.repeats,
        temperature=report.temperature,
        agreement=agreement,
    )
