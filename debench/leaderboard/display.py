"""How the page writes numbers and metric names (plain text; the template escapes it)."""

from __future__ import annotations

from debench import numeric

METRIC_LABELS: dict[str, tuple[str, str]] = {
    "kendall_tau_c": ("Kendall τ", "c"),
    "kappa_loo": ("κ leave-one-out", ""),
    "kappa_human": ("κ human–human", ""),
    "krippendorff_alpha": ("Krippendorff α", ""),
    "krippendorff_alpha_human": ("α humans only", ""),
    "source_pearson": ("Source-mean r", ""),
    "parse_failure_rate": ("Parse failures", ""),
    "completion_rate": ("Completed", ""),
    "accuracy": ("Accuracy", ""),
    "rmse": ("RMSE", ""),
    "macro_f1": ("Macro F1", ""),
    "verdict_delta": ("Verdict Δ", ""),
    "rank_delta": ("Rank Δ", ""),
    "mae": ("MAE", ""),
}
"""Metric name -> (label, subscript)."""

PLAIN_LABELS = {
    "kendall_tau_c": "Kendall τc",
    "kappa_loo": "Leave-one-out κ",
}
"""Labels in plain text where a subscript cannot be drawn (SVG titles)."""


def fmt(x: float | None) -> str:
    """A metric value on the page: 3 decimals (fewer for large magnitudes), a real minus sign, —
    when undefined (``numeric.fmt``)."""
    return numeric.fmt(x, "auto", typographic=True)


def metric_label(name: str) -> tuple[str, str]:
    return METRIC_LABELS.get(name, (name.replace("_", " "), ""))


def plain_label(name: str) -> str:
    """A metric's name in plain text (plot titles)."""
    if name in PLAIN_LABELS:
        return PLAIN_LABELS[name]
    text, sub = metric_label(name)
    return text + sub if name in METRIC_LABELS else name.replace("_", " ").capitalize()


def num_attr(x: float | int | None) -> str:
    """The exact value for a ``data-value`` attribute (what the sorting script and tests read)."""
    return "" if x is None else repr(float(x)) if isinstance(x, float) else str(x)
