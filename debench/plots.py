"""PNG plots of speech-rating behaviour (Debatable Intelligence §5.2–5.3): the judge's score
distribution beside the human annotators', and mean score per speech source, judge beside humans.

Written next to the results of every speech-rating run (``eval`` on an IBM task, ``rate-speeches``).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

JUDGE_COLOUR = "#1f4e79"
HUMAN_COLOUR = "#d98c2b"


def _pyplot():  # type: ignore[no-untyped-def]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_score_distribution(
    judge: Mapping[str, int], human: Mapping[str, int], path: Path, *, n_parse_failures: int = 0, title: str = ""
) -> Path:
    """Share of each score 1-5 for the judge (parse failures as their own bar) and the humans."""
    plt = _pyplot()
    scores = [str(s) for s in range(1, 6)]
    judge_total = sum(judge.values()) + n_parse_failures
    human_total = sum(human.values())
    labels = [*scores, "parse\nfailure"]
    j = [judge.get(s, 0) / judge_total if judge_total else 0 for s in scores] + [n_parse_failures / judge_total if judge_total else 0]
    h = [human.get(s, 0) / human_total if human_total else 0 for s in scores] + [0.0]
    x = list(range(len(labels)))
    fig, ax = plt.subplots(figsize=(6.5, 3.8))
    ax.bar([i - 0.2 for i in x], j, width=0.4, color=JUDGE_COLOUR, label=f"judge (n={judge_total})")
    ax.bar([i + 0.2 for i in x], h, width=0.4, color=HUMAN_COLOUR, label=f"human ratings (n={human_total})")
    ax.set_xticks(x, labels)
    ax.set_ylabel("share of scores")
    ax.set_xlabel("score")
    ax.set_title(title or "Score distribution: judge vs human annotators")
    ax.legend(frameon=False)
    fig.tight_layout()
    return _save(fig, plt, path)


def plot_source_means(rows: Mapping[str, Mapping[str, Any]], path: Path, *, title: str = "", subtitle: str = "") -> Path:
    """Mean score per source: ``rows[source] = {"judge_mean": x, "human_mean": y | None, ...}``;
    a 95% interval is drawn when ``judge_ci95`` / ``human_ci95`` are given. Sorted by human mean
    (sources without human ratings, such as generated speeches, first)."""
    plt = _pyplot()

    def order(item: tuple[str, Mapping[str, Any]]) -> tuple[float, str]:
        hm = item[1].get("human_mean")
        return (-1.0 if hm is None else float(hm), item[0])

    items = sorted(rows.items(), key=order)
    names = [n for n, _ in items]
    y = list(range(len(names)))
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(names) + 1.8))
    for offset, key, colour, label in ((-0.2, "judge", JUDGE_COLOUR, "judge"), (0.2, "human", HUMAN_COLOUR, "human annotators")):
        ys, xs, err_lo, err_hi = [], [], [], []
        for i, (_, r) in enumerate(items):
            v = r.get(f"{key}_mean")
            if v is None:
                continue
            ci = r.get(f"{key}_ci95") or [v, v]
            ys.append(i + offset)
            xs.append(v)
            err_lo.append(max(0.0, v - ci[0]))
            err_hi.append(max(0.0, ci[1] - v))
        if xs:
            xerr = [err_lo, err_hi] if any(err_lo) or any(err_hi) else None
            ax.barh(ys, xs, height=0.4, color=colour, label=label, xerr=xerr, ecolor="#555555", capsize=2)
    ax.set_yticks(y, names)
    ax.set_xlim(0, 5.2)
    xlabel = "mean score (1-5)" + (" with 95% CI" if any(r.get("judge_ci95") for _, r in items) else "")
    ax.set_xlabel(xlabel + (f"\n{subtitle}" if subtitle else ""))
    ax.set_title(title or "Mean score per speech source")
    handles, labels = ax.get_legend_handles_labels()
    fig.legend(handles, labels, frameon=False, loc="lower center", ncol=2, fontsize=8)
    fig.tight_layout(rect=(0, 0.05, 1, 1))
    return _save(fig, plt, path)


def _save(fig, plt, path: Path) -> Path:  # type: ignore[no-untyped-def]
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def speech_rating_plots(results: Any, results_path: Path) -> list[Path]:
    """For a speech-rating run (its reports hold both distributions and the per-source means):
    ``<results stem>_scores.png`` and ``<results stem>_sources.png`` beside the results file."""
    reports = results.reports
    needed = ("prediction_distribution", "human_rating_distribution", "mean_by_source")
    if not all(k in reports for k in needed):
        return []
    stem = results_path.with_suffix("")
    who = f"{results.task.name} | {results.model.name}"
    paths = [
        plot_score_distribution(
            reports["prediction_distribution"], reports["human_rating_distribution"], Path(f"{stem}_scores.png"),
            n_parse_failures=results.n_parse_failures, title=f"Scores: judge vs humans\n{who}",
        )
    ]
    if reports["mean_by_source"]:
        r = results.metrics.get("source_pearson")
        sub = f"Pearson r of source means = {r.value:.3f}" if r is not None and r.value is not None else ""
        paths.append(plot_source_means(reports["mean_by_source"], Path(f"{stem}_sources.png"), title=f"Mean score per source\n{who}", subtitle=sub))
    return paths
