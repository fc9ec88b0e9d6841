"""A plot of the plain and the style-controlled Bradley–Terry ratings with their 95% intervals,
side by side (models in the order of the plain rating)."""

from __future__ import annotations

import io
from pathlib import Path

from debench.arena.ranking_file import JudgeRanking, Score
from debench.atomic import write_atomic

PLAIN_COLOUR, CONTROLLED_COLOUR = "#1f4e79", "#a3462b"


def _panel(ax, scores: dict[str, Score], models: list[str], colour: str, title: str) -> None:  # type: ignore[no-untyped-def]
    values = [scores[m].score for m in models]
    cis = [scores[m].ci95 or [scores[m].score] * 2 for m in models]
    err = [[v - ci[0] for v, ci in zip(values, cis)], [ci[1] - v for v, ci in zip(values, cis)]]
    ax.errorbar(values, range(len(models)), xerr=err, fmt="o", color=colour, ecolor=colour, alpha=0.85, capsize=4)
    ax.axvline(0, color="#bbbbbb", lw=0.8)
    ax.set_title(title, fontsize=10)
    ax.set_xlabel("score (Elo-like, 95% CI over topics)")


def plot_bradley_terry(result: JudgeRanking, path: Path, subtitle: str = "") -> Path:
    """Both panels share the x scale, so a rating that moves under control is seen moving."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plain = result.bradley_terry
    models = sorted(plain, key=lambda m: plain[m].score)
    controlled = result.length_controlled
    fig, axes = plt.subplots(1, 2 if controlled else 1, sharey=True, sharex=True, squeeze=False, figsize=(10 if controlled else 6.5, 0.5 * len(models) + 1.8))
    _panel(axes[0][0], plain, models, PLAIN_COLOUR, "plain Bradley–Terry")
    if controlled:
        names = ", ".join(controlled.controls)
        _panel(axes[0][1], controlled.bradley_terry, models, CONTROLLED_COLOUR, f"controlled for {names}")
    axes[0][0].set_yticks(range(len(models)), models)
    title = f"Debate arena ratings ({result.rule} rule)" + ("" if controlled else ": no style control (see notes)")
    fig.suptitle(title + (f"\n{subtitle}" if subtitle else ""), fontsize=11)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    plt.close(fig)
    return write_atomic(path, buf.getvalue())
