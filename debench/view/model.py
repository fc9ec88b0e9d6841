"""What the run report shows, gathered from a results file, its samples log and (when found
here, with the same content hash) the run's data set: plain values the template renders.

A sample is *wrong* when it was answered and parsed and its prediction does not match the gold:
labels differ (a list of gold winners: the prediction names none of them); a number is more than
0.5 from a numeric gold (a mean human rating of 3.4 and a score of 4). Predictions that are
mappings (speaker scores) are neither right nor wrong here.
"""

from __future__ import annotations

import json
import logging
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from debench.core.errors import UserError
from debench.core.numeric import fmt, fmt_ci
from debench.core.record_log import torn_tail
from debench.data.base import Doc
from debench.data.loading import load_task_data
from debench.data.samples import SampleRecord, read_records
from debench.metrics.base import METRICS, get_metric
from debench.metrics.names import STATUS_METRICS
from debench.run.task_lookup import load_task
from debench.scoring.results import Results, load_results, samples_log_path

NUMERIC_TOLERANCE = 0.5


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def verdict(prediction: Any, target: Any) -> bool | None:
    """True (right), False (wrong) or None (not decidable: no gold, or a mapping)."""
    if target is None or isinstance(prediction, dict) or isinstance(target, dict):
        return None
    if isinstance(target, list) and not isinstance(prediction, list):
        return prediction in target
    if _is_number(prediction) and _is_number(target):
        return abs(float(prediction) - float(target)) <= NUMERIC_TOLERANCE
    return bool(prediction == target)


def show(value: Any) -> str:
    """A prediction or gold value as text: strings as they are, anything else as compact JSON."""
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    if isinstance(value, float):
        return f"{value:.3g}"
    return json.dumps(value, ensure_ascii=False)


@dataclass
class DocsFound:
    docs: dict[str, Doc]
    note: str


def find_docs(results: Results, data_dir: str | None) -> DocsFound:
    """The run's documents, when its data set is here with the same content hash (never the Hub)."""
    try:
        task_file = Path(str(results.config.get("task_file", "")))
        task = (
            load_task(str(task_file))[0]
            if task_file.suffix in (".yaml", ".yml") and task_file.exists()
            else load_task(results.task.name)[0]
        )
        dataset = load_task_data(task, "sample" if results.dataset.is_sample else "local", data_dir)
    except UserError as exc:
        return DocsFound(
            {},
            f"debate texts not shown: the run's data set was not found here ({exc}); set "
            "DEBENCH_DATA_DIR or --data-dir",
        )
    if dataset.content_hash != results.dataset.content_hash:
        return DocsFound(
            {}, f"debate texts not shown: the data found at {dataset.location} differs from the run's (content hash)"
        )
    return DocsFound({d.doc_id: d for d in dataset.docs}, f"debate texts from {dataset.location}")


def _debate_text(doc: Doc | None) -> str | None:
    if doc is None:
        return None
    if "transcript" in doc.fields:
        return str(doc.fields["transcript"])
    return "\n\n".join(s.text for s in doc.speeches) or None


def _step_title(step: dict[str, Any]) -> str:
    parts = [str(step.get(k)) for k in ("column", "step", "member") if step.get(k) is not None]
    if step.get("speech") is not None:
        parts.append(f"speech {step['speech']}")
    if step.get("side") is not None:
        parts.append(f"side {step['side']}")
    return " · ".join(parts) or "step"


_STEP_TEXT = ("answer", "response")
_STEP_SKIP = {"column", "step", "member", "speech", "side", *_STEP_TEXT}


def _steps(steps: list[dict[str, Any]]) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """(Debatrix / method steps, ensemble members and the aggregate), each as title, text, facts."""
    chain: list[dict[str, str]] = []
    members: list[dict[str, str]] = []
    for step in steps:
        text = next((str(step[k]) for k in _STEP_TEXT if step.get(k) is not None), "")
        facts = "  ".join(f"{k}: {show(v)}" for k, v in step.items() if k not in _STEP_SKIP and v is not None)
        item = {"title": _step_title(step), "text": text, "facts": facts}
        (members if step.get("step") in ("member", "aggregate") else chain).append(item)
    return chain, members


def _sample(record: SampleRecord, doc: Doc | None) -> dict[str, Any]:
    ok = record.status == "ok"
    right = verdict(record.prediction, record.target) if ok else None
    chain, members = _steps(record.steps)
    return {
        "doc_id": record.doc_id,
        "status": record.status,
        "verdict": "" if right is None else "correct" if right else "wrong",
        "gold": show(record.target),
        "prediction": show(record.prediction) if ok else "—",
        "response": record.response,
        "parse_error": record.parse_error,
        "error": record.error,
        "debate": _debate_text(doc),
        "prompt": [{"role": m.get("role", ""), "content": m.get("content", "")} for m in record.messages or []]
        if doc is None
        else [],
        "steps": chain,
        "members": members,
        "n_tokens": record.prompt_tokens + record.completion_tokens,
        "cached": record.cached,
    }


def _better(name: str) -> str:
    """Which way a metric is better ("—" for the status metrics and a metric not installed here)."""
    if name in STATUS_METRICS or name not in METRICS:
        return "—"
    return "higher" if get_metric(name).higher_is_better else "lower"


def _facts(results: Results) -> list[tuple[str, str]]:
    """The run at a glance: method, counts, tokens, cost, data, creation time."""
    usage, dataset = results.usage, results.dataset
    sample = " (SAMPLE DATA)" if dataset.is_sample else ""
    return [
        ("method", results.task.method),
        ("samples", str(results.n_samples)),
        ("parse failures", str(results.n_parse_failures)),
        ("errors", str(results.n_errors)),
        ("not completed", str(results.n_not_completed)),
        ("tokens", str(usage.total_tokens)),
        ("cost", "—" if usage.cost_usd is None else f"${usage.cost_usd:.4f}"),
        ("data", f"{dataset.source}: {dataset.location}" + sample),
        ("content hash", dataset.content_hash[:19] + "…"),
        ("created", results.created_at),
    ]


def _counts(samples: list[dict[str, Any]]) -> dict[str, int]:
    """Samples of each status, and the wrong and correct ones."""
    counts = {k: sum(1 for s in samples if s["status"] == k) for k in ("ok", "parse_failure", "error", "not_completed")}
    counts["wrong"] = sum(1 for s in samples if s["verdict"] == "wrong")
    counts["correct"] = sum(1 for s in samples if s["verdict"] == "correct")
    return counts


def log_note(samples_path: Path, n_records: int, results: Results) -> str:
    """What the page says (and the command warns) when the samples log is incomplete: its last line
    cut short, or fewer records than the results count; "" when it is whole."""
    torn = torn_tail(samples_path)
    if not torn and n_records >= results.n_samples:
        return ""
    why = "its last line is cut short (not shown)" if torn else "it holds fewer records than the results count"
    note = f"the samples log is incomplete: {why}; {n_records} of the {results.n_samples} samples are shown"
    logging.getLogger(__name__).warning("%s: %s", samples_path, note)
    return note


def build_view(results_path: Path, *, data_dir: str | None = None) -> dict[str, Any]:
    """Everything the report shows (before redaction)."""
    results = load_results(results_path)
    samples_path = samples_log_path(results, results_path)
    records = read_records(samples_path)
    found = find_docs(results, data_dir)
    samples = [_sample(r, found.docs.get(r.doc_id)) for r in records]
    metrics = [
        {"name": name, "value": fmt(m.value), "ci": fmt_ci(m.ci95), "n": m.n, "better": _better(name)}
        for name, m in results.metrics.items()
    ]
    return {
        "title": f"{results.task.name} · {results.model.name}",
        "task": results.task.model_dump(),
        "model": results.model.name,
        "dataset": results.dataset.model_dump(),
        "created_at": results.created_at,
        "facts": _facts(results),
        "metrics": metrics,
        "reports": json.dumps(results.reports, indent=2, ensure_ascii=False) if results.reports else "",
        "alt_test": _alt_test(results.reports.get("alt_test")),
        "chart": chart([(r.prediction, r.target, r.doc_id) for r in records if r.status == "ok"]),
        "docs_note": found.note,
        "log_note": log_note(samples_path, len(records), results),
        "counts": _counts(samples),
        "samples": samples,
        "results_file": Path(results_path).name,
        "samples_file": results.samples_file,
    }


def _alt_test(report: Any) -> dict[str, Any] | None:
    """The alternative annotator test's verdict and per-annotator rows, formatted (None without it)."""
    if not isinstance(report, dict):
        return None
    verdict = "undefined" if report.get("passed") is None else "passed" if report["passed"] else "failed"
    rows = [
        {
            "id": r["id"],
            "n": r["n"],
            "rho_f": fmt(r["rho_f"]),
            "rho_h": fmt(r["rho_h"]),
            "p": f"{r['p']:.3g}",
            "p_adjusted": f"{r['p_adjusted']:.3g}",
            "won": r["won"],
        }
        for r in report.get("annotators", [])
    ]
    return {
        **report,
        "verdict": verdict,
        "omega": fmt(report.get("winning_rate")),
        "rho": fmt(report.get("advantage_probability")),
        "rows": rows,
    }


# ------------------------------------------------------------------------------------- the chart

MAX_LABELS = 12


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(float(x))


def _label(x: Any) -> str | None:
    if isinstance(x, str):
        return x
    if isinstance(x, list) and x and all(isinstance(v, str) for v in x):
        return ",".join(x)
    if isinstance(x, int) and not isinstance(x, bool):
        return str(x)
    return None


def chart(pairs: Sequence[tuple[Any, Any, str]]) -> dict[str, Any] | None:
    """The report's chart of the parsed samples (``pairs``: prediction, gold, doc_id): a confusion
    matrix of label predictions, or the judge's number against the gold number (a scatter, drawn
    by ``debench.core.charts.scatter``); None when the predictions are neither."""
    if not pairs:
        return None
    if all(_number(p) and _number(g) for p, g, _ in pairs):
        labels = {g for _, g, _ in pairs} | {p for p, _, _ in pairs}
        if not all(isinstance(x, int) for x in labels) or len(labels) > MAX_LABELS:
            return scatter_data(pairs)
    preds = [_label(p) for p, _, _ in pairs]
    golds = [_label(g) for _, g, _ in pairs]
    if None in preds or None in golds:
        return None
    if len(set(preds)) > MAX_LABELS or len(set(golds)) > MAX_LABELS:
        return None
    return confusion([p for p in preds if p is not None], [g for g in golds if g is not None])


def confusion(preds: list[str], golds: list[str]) -> dict[str, Any]:
    counts = Counter(zip(golds, preds, strict=True))
    gold_labels = sorted(set(golds))
    pred_labels = sorted(set(preds))
    rows = [[counts.get((g, p), 0) for p in pred_labels] for g in gold_labels]
    return {
        "kind": "confusion",
        "gold": gold_labels,
        "pred": pred_labels,
        "rows": rows,
        "max": max(max(r) for r in rows),
        "n": len(preds),
    }


def scatter_data(pairs: Sequence[tuple[Any, Any, str]]) -> dict[str, Any]:
    """The points (gold, judge, doc_id) and Pearson's r (when both vary); drawn at render time."""
    xs = np.array([float(g) for _, g, _ in pairs])
    ys = np.array([float(p) for p, _, _ in pairs])
    r = float(np.corrcoef(xs, ys)[0, 1]) if len(pairs) > 2 and xs.std() > 0 and ys.std() > 0 else None
    return {
        "kind": "scatter",
        "points": [[float(g), p, d] for p, g, d in pairs],
        "r": None if r is None else f"{r:.3f}",
        "n": len(pairs),
    }
