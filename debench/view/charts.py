"""The chart of a run report: a confusion matrix (label predictions) or a scatter of the judge's
number against the gold number (scores), as plain values the template draws (table / inline SVG)."""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

MAX_LABELS = 12
WIDTH, HEIGHT, PAD_L, PAD_R, PAD_T, PAD_B = 560, 360, 48, 16, 14, 42
JITTER = 0.18
"""Whole-number predictions are spread by up to this much (deterministically, per document) so
that equal points stay visible; the exact values are in each point's tooltip."""


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
    """``pairs``: (prediction, gold, doc_id) of the parsed samples."""
    if not pairs:
        return None
    if all(_number(p) and _number(g) for p, g, _ in pairs):
        labels = {g for _, g, _ in pairs} | {p for p, _, _ in pairs}
        if not all(isinstance(x, int) for x in labels) or len(labels) > MAX_LABELS:
            return scatter(pairs)
    preds = [_label(p) for p, _, _ in pairs]
    golds = [_label(g) for _, g, _ in pairs]
    if None in preds or None in golds:
        return None
    if len(set(preds)) > MAX_LABELS or len(set(golds)) > MAX_LABELS:
        return None
    return confusion(preds, golds)  # type: ignore[arg-type]


def confusion(preds: list[str], golds: list[str]) -> dict[str, Any]:
    counts = Counter(zip(golds, preds, strict=True))
    gold_labels = sorted(set(golds))
    pred_labels = sorted(set(preds))
    rows = [[counts.get((g, p), 0) for p in pred_labels] for g in gold_labels]
    return {"kind": "confusion", "gold": gold_labels, "pred": pred_labels, "rows": rows, "max": max(max(r) for r in rows), "n": len(preds)}


def _ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if hi <= lo:
        return [lo]
    step = 10 ** math.floor(math.log10((hi - lo) / n))
    for mult in (1, 2, 2.5, 5, 10):
        if (hi - lo) / (step * mult) <= n:
            step *= mult
            break
    first = math.ceil(lo / step) * step
    return [round(first + i * step, 10) for i in range(int((hi - first) / step + 1e-9) + 1)]


def _jitter(doc_id: str) -> float:
    return (int(hashlib.sha256(doc_id.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF - 0.5) * 2 * JITTER


def scatter(pairs: Sequence[tuple[Any, Any, str]]) -> dict[str, Any]:
    xs = np.array([float(g) for _, g, _ in pairs])
    ys = np.array([float(p) for p, _, _ in pairs])
    whole = all(float(p).is_integer() for p, _, _ in pairs)
    x_lo, x_hi = float(xs.min()), float(xs.max())
    y_lo, y_hi = float(ys.min()), float(ys.max())
    if whole:
        y_lo, y_hi = y_lo - 0.5, y_hi + 0.5
    if x_hi == x_lo:
        x_lo, x_hi = x_lo - 1, x_hi + 1
    if y_hi == y_lo:
        y_lo, y_hi = y_lo - 1, y_hi + 1
    plot_w, plot_h = WIDTH - PAD_L - PAD_R, HEIGHT - PAD_T - PAD_B

    def px(x: float) -> float:
        return round(PAD_L + (x - x_lo) / (x_hi - x_lo) * plot_w, 1)

    def py(y: float) -> float:
        return round(PAD_T + (y_hi - y) / (y_hi - y_lo) * plot_h, 1)

    points = [
        {"cx": px(float(g)), "cy": py(float(p) + (_jitter(d) if whole else 0.0)), "title": f"{d}: gold {float(g):.3g}, judge {p}"}
        for p, g, d in pairs
    ]
    r = None
    if len(pairs) > 2 and xs.std() > 0 and ys.std() > 0:
        r = float(np.corrcoef(xs, ys)[0, 1])
    return {
        "kind": "scatter",
        "width": WIDTH,
        "height": HEIGHT,
        "box": {"x0": PAD_L, "y0": PAD_T, "x1": WIDTH - PAD_R, "y1": HEIGHT - PAD_B},
        "x_ticks": [{"v": f"{t:g}", "x": px(t)} for t in _ticks(x_lo, x_hi)],
        "y_ticks": [{"v": f"{t:g}", "y": py(t)} for t in _ticks(y_lo, y_hi) if y_lo <= t <= y_hi],
        "points": points,
        "r": None if r is None else f"{r:.3f}",
        "n": len(points),
    }
