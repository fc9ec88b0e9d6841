"""The static leaderboard page: one self-contained HTML file.

Inline CSS and JS, plots as inline SVG drawn here in Python, no external asset and no network
access (a Content-Security-Policy forbids any load). The leaderboard JSON is embedded in the page
(``<script type="application/json" id="leaderboard-data">``). Every number cell carries its exact
value in ``data-value`` (and ``data-ci-lo``, ``data-ci-hi``, ``data-n``) so that the sorting script
and the tests read the same numbers the JSON holds.
"""

from __future__ import annotations

import json
import math
from html import escape
from typing import Any

from debench.leaderboard.build import Entry, HumanReference, Leaderboard, MetricColumn, TaskBoard

METRIC_LABELS = {
    "kendall_tau_c": "Kendall τ<sub>c</sub>",
    "kappa_loo": "κ leave-one-out",
    "kappa_human": "κ human–human",
    "krippendorff_alpha": "Krippendorff α",
    "krippendorff_alpha_human": "α humans only",
    "source_pearson": "Source-mean r",
    "parse_failure_rate": "Parse failures",
    "completion_rate": "Completed",
    "accuracy": "Accuracy",
    "rmse": "RMSE",
    "macro_f1": "Macro F1",
    "verdict_delta": "Verdict Δ",
    "rank_delta": "Rank Δ",
    "mae": "MAE",
}

PLAIN_LABELS = {
    "kendall_tau_c": "Kendall τc",
    "kappa_loo": "Leave-one-out κ",
    "krippendorff_alpha": "Krippendorff α",
    "source_pearson": "Source-mean r",
    "rmse": "RMSE",
    "macro_f1": "Macro F1",
    "verdict_delta": "Verdict Δ",
    "rank_delta": "Rank Δ",
    "mae": "MAE",
}

REFERENCE_LABELS = {
    "human_rating_distribution": "Human ratings",
    "gold_distribution": "Gold",
}

NOMINAL = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"]
ORDINAL5 = ["#c8553d", "#f0a35e", "#e8d98b", "#8cc0d6", "#3b76af"]


def fmt(x: float | None) -> str:
    """How a metric value is shown: 3 decimals (fewer for large magnitudes), a real minus sign."""
    if x is None:
        return "—"
    ax = abs(x)
    text = f"{x:.1f}" if ax >= 100 else f"{x:.2f}" if ax >= 10 else f"{x:.3f}"
    return text.replace("-", "−")


def metric_label(name: str) -> str:
    return METRIC_LABELS.get(name, escape(name.replace("_", " ")))


def _num_attr(x: float | int | None) -> str:
    return "" if x is None else repr(float(x)) if isinstance(x, float) else str(x)


# ------------------------------------------------------------------------------------------ tables


def _th(label: str, *, sort: str, first: str, title: str = "", cls: str = "", key: str = "", aria: str = "") -> str:
    attrs = f' data-sort="{sort}" data-first="{first}"'
    if key:
        attrs += f' data-key="{escape(key)}"'
    if cls:
        attrs += f' class="{cls}"'
    if title:
        attrs += f' title="{escape(title)}"'
    if aria:
        attrs += f' aria-sort="{aria}"'
    return f'<th scope="col"{attrs}><button type="button">{label}<span class="arrow" aria-hidden="true"></span></button></th>'


def _direction(c: MetricColumn) -> str:
    return "descending" if c.higher_is_better else "ascending"


def _value_cell(metric: str, value: float | None, ci: list[float] | None, n: int | None, *, primary: bool = False, extra: str = "") -> str:
    attrs = f' data-metric="{escape(metric)}" data-value="{_num_attr(value)}"'
    if ci is not None:
        attrs += f' data-ci-lo="{_num_attr(ci[0])}" data-ci-hi="{_num_attr(ci[1])}"'
    if n is not None:
        attrs += f' data-n="{n}"'
    cls = "num primary" if primary else "num"
    ci_html = f'<span class="ci">[{fmt(ci[0])}, {fmt(ci[1])}]</span>' if ci is not None else '<span class="ci">no CI</span>' if value is not None else ""
    title = f' title="n = {n}"' if n is not None else ""
    return f'<td class="{cls}"{attrs}{title}><span class="v">{fmt(value)}</span>{ci_html}{extra}</td>'


def _model_cell(e: Entry, task_method: str | None = None) -> str:
    badges = ""
    if e.is_baseline:
        badges += '<span class="badge base">baseline</span>'
    if e.partial:
        badges += f'<span class="badge part" title="covers the first {e.n_docs} documents only">subset</span>'
    method = f'<span class="method">{escape(e.method)}</span>' if task_method and e.method != task_method else ""
    return (
        f'<td class="model" data-value="{escape(e.model.lower())}"><span class="name">{escape(e.model)}</span>{method}{badges}'
        f'<span class="sub" title="submission folder">{escape(e.submission)}</span></td>'
    )


def task_table(t: TaskBoard) -> str:
    head = [_th("#", sort="num", first="ascending", title="rank by the primary metric", cls="rank", key="rank", aria="ascending")]
    head.append(_th("Model", sort="text", first="ascending", key="model"))
    for c in t.metrics:
        better = "higher" if c.higher_is_better else "lower"
        star = " ★" if c.primary else ""
        head.append(
            _th(
                f'{metric_label(c.name)}{star}<span class="dir">{"↑" if c.higher_is_better else "↓"}</span>',
                sort="num",
                first=_direction(c),
                title=f"{c.name}: {c.description}. {better.capitalize()} is better." + (" Entries are ranked by this metric." if c.primary else ""),
                cls="metric primary" if c.primary else "metric",
                key=c.name,
            )
        )
    head.append(_th("n", sort="num", first="descending", title="documents scored by the primary metric", cls="n", key="n"))
    rows = []
    for e in t.entries:
        cells = [f'<td class="num rank" data-value="{_num_attr(e.rank)}">{e.rank if e.rank is not None else "—"}</td>', _model_cell(e)]
        for c in t.metrics:
            m = e.metrics[c.name]
            cells.append(_value_cell(c.name, m.value, m.ci95, m.n, primary=c.primary))
        n = e.metrics[t.primary_metric].n
        cells.append(f'<td class="num n" data-value="{n}">{n}</td>')
        cls = "baseline" if e.is_baseline else "model-row"
        rows.append(f'<tr class="{cls}" data-entry="{escape(e.id)}">{"".join(cells)}</tr>')
    for ref in _reference_rows(t):
        rows.append(ref)
    return (
        f'<div class="table-wrap"><table class="lb sortable" data-table="{escape(t.name)}">'
        f"<thead><tr>{''.join(head)}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _reference_rows(t: TaskBoard) -> list[str]:
    if not t.human_reference:
        return []
    by_metric: dict[str, HumanReference] = {r.metric: r for r in t.human_reference}
    cells = ['<td class="num rank" data-value=""></td>']
    cells.append(
        '<td class="model" data-value="~human"><span class="name">Human–human agreement</span>'
        '<span class="badge ref">reference</span><span class="sub">the annotators among themselves</span></td>'
    )
    for c in t.metrics:
        r = by_metric.get(c.name)
        if r is None:
            cells.append(f'<td class="num empty" data-metric="{escape(c.name)}" data-value=""></td>')
        else:
            v = r.value
            extra = f'<span class="src">{escape(r.source_metric)}</span>'
            cells.append(_value_cell(c.name, v.value, v.ci95, v.n, extra=extra).replace("<td ", f'<td data-source="{escape(r.source_metric)}" ', 1))
    cells.append('<td class="num n" data-value=""></td>')
    return [f'<tr class="reference" data-entry="human-reference">{"".join(cells)}</tr>']


def overview_table(board: Leaderboard) -> str:
    tasks = board.tasks
    head = [
        _th("#", sort="num", first="ascending", title="position by mean rank", cls="rank", key="position", aria="ascending"),
        _th("Model", sort="text", first="ascending", key="model"),
        _th("Mean rank", sort="num", first="ascending", title="mean of the model's ranks over the tasks it was run on (lower is better)", cls="num", key="mean_rank"),
        _th("Tasks", sort="num", first="descending", title="tasks the model was run on", cls="num", key="n_tasks"),
    ]
    primaries = {t.name: next(c for c in t.metrics if c.name == t.primary_metric) for t in tasks}
    for t in tasks:
        c = primaries[t.name]
        head.append(
            _th(
                f'<span class="tname">{escape(t.name)}</span><span class="tmetric">{metric_label(c.name)}<span class="dir">{"↑" if c.higher_is_better else "↓"}</span></span>',
                sort="num",
                first=_direction(c),
                title=f"{t.name}: {c.name} ({'higher' if c.higher_is_better else 'lower'} is better)",
                cls="metric",
                key=t.name,
            )
        )
    rows = []
    for i, row in enumerate(board.overview, start=1):
        badge = '<span class="badge base">baseline</span>' if row.is_baseline else ""
        method = f'<span class="method">{escape(row.method)}</span>' if row.method != "direct" else ""
        cells = [
            f'<td class="num rank" data-value="{i}">{i}</td>',
            f'<td class="model" data-value="{escape(row.model.lower())}"><span class="name">{escape(row.model)}</span>{method}{badge}</td>',
            f'<td class="num" data-value="{_num_attr(row.mean_rank)}">{"—" if row.mean_rank is None else f"{row.mean_rank:.2f}"}</td>',
            f'<td class="num" data-value="{row.n_tasks}">{row.n_tasks}</td>',
        ]
        for t in tasks:
            cell = row.cells.get(t.name)
            if cell is None:
                cells.append(f'<td class="num empty" data-task="{escape(t.name)}" data-value="">·</td>')
                continue
            rank = f'<span class="rk">#{cell.rank} of {cell.n_ranked}</span>' if cell.rank is not None else ""
            cells.append(_value_cell(cell.metric, cell.value, cell.ci95, None, extra=rank).replace("<td ", f'<td data-task="{escape(t.name)}" data-entry="{escape(cell.entry)}" ', 1))
        cls = "baseline" if row.is_baseline else "model-row"
        rows.append(f'<tr class="{cls}" data-model="{escape(row.model)}" data-method="{escape(row.method)}">{"".join(cells)}</tr>')
    return (
        '<div class="table-wrap"><table class="lb sortable overview" data-table="overview">'
        f"<thead><tr>{''.join(head)}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


# ------------------------------------------------------------------------------------------- plots


def _nice_ticks(lo: float, hi: float, n: int = 5) -> list[float]:
    if hi <= lo:
        hi = lo + 1.0
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(s * mag for s in (1, 2, 2.5, 5, 10) if s * mag >= raw)
    first, last = math.floor(lo / step + 1e-9), math.ceil(hi / step - 1e-9)
    return [round(k * step, 10) for k in range(first, last + 1)]


def _tick_label(x: float) -> str:
    text = f"{x:.3f}".rstrip("0").rstrip(".")
    return ("0" if text in ("-0", "") else text).replace("-", "−")


def forest_plot(t: TaskBoard, metric: MetricColumn, title: str) -> str:
    """Value and 95% CI of one metric for every entry, with the human reference when there is one."""
    rows = [(e, e.metrics[metric.name]) for e in t.entries]
    ref = next((r for r in t.human_reference if r.metric == metric.name), None)
    xs: list[float] = [0.0]
    for _, m in rows:
        if m.value is not None:
            xs.append(m.value)
        if m.ci95:
            xs.extend(m.ci95)
    if ref is not None and ref.value.value is not None:
        xs.append(ref.value.value)
        if ref.value.ci95:
            xs.extend(ref.value.ci95)
    ticks = _nice_ticks(min(xs), max(xs))
    lo, hi = ticks[0], ticks[-1]
    label_w, plot_w, right = 150, 290, 52
    row_h, top = 24, 44
    height = top + row_h * max(1, len(rows)) + 34
    width = label_w + plot_w + right

    def sx(v: float) -> float:
        return label_w + (v - lo) / (hi - lo) * plot_w

    parts = [
        f'<svg class="plot forest" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
        f'<text class="ptitle" x="0" y="16">{escape(title)}</text>',
    ]
    axis_y = top + row_h * max(1, len(rows)) + 4
    for tk in ticks:
        x = sx(tk)
        parts.append(f'<line class="grid{" zero" if tk == 0 else ""}" x1="{x:.1f}" x2="{x:.1f}" y1="{top - 6}" y2="{axis_y}"/>')
        parts.append(f'<text class="tick" x="{x:.1f}" y="{axis_y + 14}" text-anchor="middle">{_tick_label(tk)}</text>')
    if ref is not None and ref.value.value is not None:
        if ref.value.ci95:
            a, b = sx(ref.value.ci95[0]), sx(ref.value.ci95[1])
            parts.append(f'<rect class="refband" x="{a:.1f}" y="{top - 6}" width="{max(b - a, 1):.1f}" height="{axis_y - top + 6}"/>')
        x = sx(ref.value.value)
        parts.append(f'<line class="refline" x1="{x:.1f}" x2="{x:.1f}" y1="{top - 10}" y2="{axis_y}"/>')
        parts.append(f'<text class="reflabel" x="{x:.1f}" y="{top - 13}" text-anchor="middle">humans {fmt(ref.value.value)}</text>')
    for i, (e, m) in enumerate(rows):
        y = top + row_h * i + row_h / 2
        cls = "pt base" if e.is_baseline else "pt"
        name = e.model if len(e.model) <= 22 else e.model[:21] + "…"
        parts.append(f'<text class="rlabel" x="{label_w - 10}" y="{y + 4:.1f}" text-anchor="end">{escape(name)}</text>')
        if m.value is None:
            parts.append(f'<text class="na" x="{label_w + 4}" y="{y + 4:.1f}">undefined</text>')
            continue
        if m.ci95:
            parts.append(f'<line class="ci" x1="{sx(m.ci95[0]):.1f}" x2="{sx(m.ci95[1]):.1f}" y1="{y:.1f}" y2="{y:.1f}"/>')
        parts.append(f'<circle class="{cls}" cx="{sx(m.value):.1f}" cy="{y:.1f}" r="5"><title>{escape(e.model)}: {fmt(m.value)}</title></circle>')
        parts.append(f'<text class="val" x="{width - 4}" y="{y + 4:.1f}" text-anchor="end">{fmt(m.value)}</text>')
    parts.append("</svg>")
    return "".join(parts)


def _categories(t: TaskBoard, dists: list[dict[str, Any]]) -> list[str]:
    keys: list[str] = [str(c) for c in t.choices] if t.choices else []
    extra = sorted({k for d in dists for k in d} - set(keys), key=lambda k: (not _is_number(k), float(k) if _is_number(k) else 0.0, k))
    return keys + extra


def _is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def distribution_plot(t: TaskBoard) -> str | None:
    """Share of each predicted value per entry (100% stacked bars), the human or gold reference on top."""
    entries = [e for e in t.entries if isinstance(e.reports.get("prediction_distribution"), dict)]
    if not entries:
        return None
    ref_name = next((n for n in REFERENCE_LABELS if any(isinstance(e.reports.get(n), dict) and e.reports[n] for e in entries)), None)
    bars: list[tuple[str, dict[str, Any], str]] = []
    if ref_name is not None:
        ref_entry = max(entries, key=lambda e: sum(e.reports[ref_name].values()) if isinstance(e.reports.get(ref_name), dict) else -1)
        bars.append((REFERENCE_LABELS[ref_name], ref_entry.reports[ref_name], "ref"))
    bars += [(e.model, e.reports["prediction_distribution"], "base" if e.is_baseline else "") for e in entries]
    cats = _categories(t, [b[1] for b in bars])
    ordinal = bool(cats) and all(_is_number(c) for c in cats) and len(cats) <= len(ORDINAL5)
    palette = ORDINAL5[: len(cats)] if ordinal and len(cats) == 5 else NOMINAL
    colors = {c: palette[i % len(palette)] for i, c in enumerate(cats)}
    if ref_name == "human_rating_distribution":
        title = "Score distribution: judges vs the human ratings"
    elif ref_name == "gold_distribution":
        title = "Predicted distribution vs the gold labels"
    else:
        title = "Distribution of predictions"
    label_w, plot_w, right = 150, 290, 52
    row_h, top = 24, 52
    height = top + row_h * len(bars) + 10
    width = label_w + plot_w + right
    parts = [
        f'<svg class="plot dist" viewBox="0 0 {width} {height}" width="{width}" height="{height}" role="img" aria-label="{escape(title)}">',
        f'<text class="ptitle" x="0" y="16">{escape(title)}</text>',
    ]
    lx = label_w
    for c in cats:
        parts.append(f'<rect x="{lx}" y="27" width="11" height="11" rx="2" fill="{colors[c]}"/>')
        parts.append(f'<text class="legend" x="{lx + 15}" y="36">{escape(c)}</text>')
        lx += 22 + 7 * len(c)
    for i, (label, dist, kind) in enumerate(bars):
        y = top + row_h * i
        total = sum(float(v) for v in dist.values() if isinstance(v, (int, float))) or 1.0
        name = label if len(label) <= 22 else label[:21] + "…"
        parts.append(f'<text class="rlabel{" reflabel2" if kind == "ref" else ""}" x="{label_w - 10}" y="{y + 15}" text-anchor="end">{escape(name)}</text>')
        x = float(label_w)
        for c in cats:
            v = dist.get(c, 0)
            share = float(v) / total if isinstance(v, (int, float)) else 0.0
            w = share * plot_w
            if w <= 0:
                continue
            parts.append(
                f'<rect class="seg{" refseg" if kind == "ref" else ""}" x="{x:.1f}" y="{y + 3}" width="{w:.1f}" height="{row_h - 6}" fill="{colors[c]}">'
                f"<title>{escape(label)} — {escape(c)}: {share:.1%} ({v})</title></rect>"
            )
            if share >= 0.08:
                parts.append(f'<text class="pct" x="{x + w / 2:.1f}" y="{y + 16}" text-anchor="middle">{share * 100:.0f}%</text>')
            x += w
        n = int(total) if total == int(total) else total
        parts.append(f'<text class="val" x="{width - 4}" y="{y + 16}" text-anchor="end">n={n}</text>')
        if kind == "ref":
            parts.append(f'<line class="sep" x1="{label_w}" x2="{label_w + plot_w}" y1="{y + row_h + 0.5}" y2="{y + row_h + 0.5}"/>')
    parts.append("</svg>")
    return "".join(parts)


def task_plots(t: TaskBoard) -> list[str]:
    plots = []
    primary = next(c for c in t.metrics if c.primary)
    plots.append(forest_plot(t, primary, f"{_plain(primary.name)} with 95% CI"))
    for ref in t.human_reference:
        col = next((c for c in t.metrics if c.name == ref.metric), None)
        if col is not None and col.name != primary.name:
            plots.append(forest_plot(t, col, f"{_plain(col.name)} vs the human–human level"))
    dist = distribution_plot(t)
    if dist:
        plots.append(dist)
    return plots


def _plain(name: str) -> str:
    """A metric's name in plain text (SVG titles)."""
    return PLAIN_LABELS.get(name) or name.replace("_", " ").capitalize()


# -------------------------------------------------------------------------------------------- page

CSS = """
:root{--fg:#1d2330;--muted:#5f6b7a;--line:#e3e7ee;--bg:#f6f7fb;--card:#fff;--accent:#3056d3;--accent-soft:#eef2ff;--ref:#fff6e0;--ref-line:#d99a1e}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
header.top{background:linear-gradient(120deg,#1f2a44,#3056d3);color:#fff;padding:28px 0 22px}
.wrap{max-width:1180px;margin:0 auto;padding:0 24px}
h1{margin:0 0 6px;font-size:28px;letter-spacing:-.01em}
.lede{margin:0;max-width:760px;color:#dfe6ff}
.meta{margin-top:10px;font-size:13px;color:#c5d0f5}
nav.toc{position:sticky;top:0;z-index:5;background:rgba(255,255,255,.95);border-bottom:1px solid var(--line);backdrop-filter:blur(4px)}
nav.toc .wrap{display:flex;gap:6px;flex-wrap:wrap;padding-top:8px;padding-bottom:8px}
nav.toc a{font-size:13px;text-decoration:none;color:var(--accent);padding:3px 10px;border-radius:999px;background:var(--accent-soft)}
nav.toc a:hover{background:#dfe6ff}
section.card{background:var(--card);border:1px solid var(--line);border-radius:12px;margin:22px 0;padding:18px 22px 20px;box-shadow:0 1px 2px rgba(20,30,60,.04)}
h2{margin:0 0 4px;font-size:20px}
h2 .ver{font-size:12px;font-weight:600;color:var(--muted);background:#eef0f4;border-radius:6px;padding:2px 6px;margin-left:8px;vertical-align:middle}
p.desc{margin:2px 0 10px;color:var(--muted);max-width:900px}
dl.facts{display:flex;flex-wrap:wrap;gap:4px 22px;margin:0 0 12px;font-size:13px;color:var(--muted)}
dl.facts div{display:flex;gap:6px}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
code{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f0f2f6;border-radius:4px;padding:1px 4px}
.table-wrap{overflow-x:auto}
table.lb{border-collapse:separate;border-spacing:0;width:100%;font-size:14px}
table.lb th{position:sticky;top:0;background:#f9fafc;border-bottom:2px solid var(--line);text-align:right;padding:0;white-space:nowrap;vertical-align:bottom}
table.lb th button{all:unset;cursor:pointer;display:block;padding:8px 10px;width:100%;box-sizing:border-box;font-weight:600;font-size:13px;color:#2d3748}
table.lb th button:hover{background:var(--accent-soft)}
table.lb th button:focus-visible{outline:2px solid var(--accent)}
table.lb th[data-key=model]{text-align:left}
table.lb th.primary{background:#f1f4ff}
.dir{color:var(--muted);font-weight:400;margin-left:3px;font-size:11px}
.arrow::after{content:"";margin-left:4px;font-size:10px;color:var(--accent)}
th[aria-sort=ascending] .arrow::after{content:"▲"}
th[aria-sort=descending] .arrow::after{content:"▼"}
.tname{display:block;font-size:11px;color:var(--muted);font-weight:500}
.tmetric{display:block}
table.lb td{padding:7px 10px;border-bottom:1px solid var(--line);vertical-align:top}
table.lb tbody tr:hover td{background:#fafbff}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td.primary{background:#f7f9ff}
td .v{display:block;font-weight:600}
td .ci{display:block;font-size:11.5px;color:var(--muted)}
td .rk,td .src{display:block;font-size:11px;color:var(--accent)}
td .src{color:#a26b00}
td.rank{color:var(--muted);width:2.5em}
td.model .name{font-weight:600}
td.model .sub{display:block;font-size:11.5px;color:var(--muted)}
td.empty{color:#c0c6d0}
table.overview th[data-key=model],table.overview td.model{position:sticky;left:0;z-index:1;background:#fff;box-shadow:1px 0 0 var(--line)}
table.overview th[data-key=model]{background:#f9fafc;z-index:2}
tr.baseline td.model .name{font-weight:500;color:#4a5568}
tr.baseline td .v{font-weight:500;color:#4a5568}
tr.reference td{background:var(--ref);border-top:1px dashed var(--ref-line);border-bottom:1px dashed var(--ref-line);font-style:italic}
.badge{display:inline-block;font-size:10.5px;font-weight:600;font-style:normal;letter-spacing:.02em;border-radius:999px;padding:1px 7px;margin-left:6px;vertical-align:1px}
.badge.base{background:#edf0f4;color:#4a5568}
.badge.part{background:#fdecea;color:#b3261e}
.badge.ref{background:#fbe3ad;color:#7a5200}
.method{font-size:11px;margin-left:6px;color:#6b46c1;background:#f3edff;border-radius:4px;padding:0 5px}
.plots{display:flex;flex-wrap:wrap;gap:18px;margin-top:16px}
figure{margin:0;background:#fcfcfe;border:1px solid var(--line);border-radius:10px;padding:10px 12px;max-width:100%;overflow-x:auto}
svg.plot{display:block;font-family:inherit}
svg .ptitle{font-size:13px;font-weight:600;fill:#2d3748}
svg .tick,svg .val,svg .legend,svg .na{font-size:11px;fill:#5f6b7a}
svg .rlabel{font-size:12px;fill:#2d3748}
svg .reflabel2{font-style:italic;fill:#7a5200}
svg .grid{stroke:#eceff4}svg .grid.zero{stroke:#b8c0cc}
svg .ci{stroke:#3056d3;stroke-width:2.2;stroke-linecap:round}
svg .pt{fill:#3056d3;stroke:#fff;stroke-width:1.5}svg .pt.base{fill:#8a94a6}
svg .refline{stroke:var(--ref-line);stroke-width:2;stroke-dasharray:4 3}
svg .refband{fill:#fbe3ad;opacity:.55}
svg .reflabel{font-size:11px;fill:#7a5200;font-weight:600}
svg .pct{font-size:10.5px;fill:#1d2330;pointer-events:none}
svg .seg{stroke:#fff;stroke-width:1}
svg .sep{stroke:#c5ccd8;stroke-dasharray:2 2}
.note{font-size:12.5px;color:var(--muted);margin:10px 0 0}
footer{color:var(--muted);font-size:13px;padding:10px 0 40px}
footer pre{background:#fff;border:1px solid var(--line);border-radius:8px;padding:10px 12px;overflow-x:auto;font-size:12px}
@media (max-width:720px){h1{font-size:22px}section.card{padding:14px}}
"""

JS = r"""
(function(){
  function cellKey(row, col){
    var c = row.cells[col];
    var v = c ? c.getAttribute('data-value') : null;
    return (v === null || v === '') ? null : v;
  }
  function sortTable(table, th){
    var headRow = th.parentNode;
    var col = Array.prototype.indexOf.call(headRow.children, th);
    var numeric = th.getAttribute('data-sort') === 'num';
    var cur = th.getAttribute('aria-sort');
    var dir = cur === 'ascending' ? 'descending' : cur === 'descending' ? 'ascending' : (th.getAttribute('data-first') || 'ascending');
    Array.prototype.forEach.call(headRow.children, function(h){ h.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', dir);
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    var sign = dir === 'ascending' ? 1 : -1;
    rows.sort(function(a, b){
      var ka = cellKey(a, col), kb = cellKey(b, col);
      if (ka === null || kb === null) { return (ka === null) - (kb === null); }  // undefined values last
      var c = numeric ? (parseFloat(ka) - parseFloat(kb)) : ka.localeCompare(kb);
      return sign * c;
    });
    rows.forEach(function(r){ body.appendChild(r); });
  }
  var tables = document.querySelectorAll('table.sortable');
  Array.prototype.forEach.call(tables, function(table){
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function(th){
      var btn = th.querySelector('button');
      if (btn) { btn.addEventListener('click', function(){ sortTable(table, th); }); }
    });
  });
  document.documentElement.setAttribute('data-ready', '1');
})();
"""


def _facts(t: TaskBoard) -> str:
    primary = next(c for c in t.metrics if c.primary)
    items = [
        ("documents", str(t.n_docs_total)),
        ("ranked by", f"{metric_label(primary.name)} ({'higher' if primary.higher_is_better else 'lower'} is better)"),
        ("entries", str(len(t.entries))),
        ("data", f"<code>{escape(t.dataset_content_hash[:19])}…</code>"),
        ("task config", f"<code>{escape(t.config_sha256[:12])}…</code>"),
    ]
    if t.group:
        items.insert(0, ("group", escape(t.group)))
    return '<dl class="facts">' + "".join(f"<div><dt>{k}</dt><dd>{v}</dd></div>" for k, v in items) + "</dl>"


def task_section(t: TaskBoard) -> str:
    plots = "".join(f"<figure>{p}</figure>" for p in task_plots(t))
    notes = []
    if t.human_reference:
        notes.append("The amber row is the human–human agreement on the same documents: the level a judge would need to reach to be as good as another annotator.")
    if any(e.partial for e in t.entries):
        notes.append("Entries marked <em>subset</em> covered only the first documents of the task.")
    note = f'<p class="note">{" ".join(notes)}</p>' if notes else ""
    return (
        f'<section class="card task" id="task-{escape(t.name)}" data-task="{escape(t.name)}">'
        f'<h2>{escape(t.name)}<span class="ver">v{t.version}</span></h2>'
        f'<p class="desc">{escape(t.description)}</p>{_facts(t)}{task_table(t)}{note}'
        f'<div class="plots">{plots}</div></section>'
    )


def render_page(board: Leaderboard) -> str:
    data = json.dumps(board.model_dump(mode="json"), ensure_ascii=False, separators=(",", ":"))
    data = data.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    nav = '<a href="#overview">Overview</a>' + "".join(f'<a href="#task-{escape(t.name)}">{escape(t.name)}</a>' for t in board.tasks)
    if board.tasks:
        body = (
            '<section class="card" id="overview" data-task="overview"><h2>Overview</h2>'
            '<p class="desc">Each model\'s primary metric on every task it was run on, with its rank among that task\'s entries. '
            "Click a column header to sort; click again to reverse.</p>"
            f"{overview_table(board)}</section>" + "".join(task_section(t) for t in board.tasks)
        )
    else:
        body = '<section class="card" id="overview"><h2>Overview</h2><p class="desc">No validated submission yet.</p></section>'
    generated = escape(board.generated_at or "—")
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>{escape(board.title)}</title>
<style>{CSS}</style>
</head>
<body>
<header class="top"><div class="wrap">
<h1>{escape(board.title)}</h1>
<p class="lede">How well do language models judge debates? Every number below was recomputed from the submitted
per-sample predictions on the real data. Values carry a bootstrap 95% confidence interval and n; baselines that call no
model put them in context.</p>
<p class="meta">{len(board.tasks)} task(s) · {board.n_submissions} submission(s) · latest result {generated} · debench {escape(board.debench_version)} · schema {escape(board.schema_version)}</p>
</div></header>
<nav class="toc"><div class="wrap">{nav}</div></nav>
<main class="wrap">
{body}
</main>
<footer class="wrap">
<p><strong>Submit a model:</strong> run it on the real data, validate, and open a pull request adding the folder
(results file + samples log) under <code>leaderboard/submissions/</code>.</p>
<pre>debench eval --task ibm_speech_likert --model YOUR_MODEL
debench validate results/YOUR_MODEL/results_ibm_speech_likert_*.json</pre>
<p>★ marks the metric a task's entries are ranked by; ↑ / ↓ say whether higher or lower is better. The data behind this
page is <code>leaderboard.json</code> (schema <code>debench/schema/leaderboard.schema.json</code>), also embedded below.</p>
</footer>
<script type="application/json" id="leaderboard-data">{data}</script>
<script>{JS}</script>
</body>
</html>
"""
