"""A plot of Bradley–Terry scores with their 95% intervals."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def plot_bradley_terry(result: dict[str, Any], path: Path) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    bt = result["bradley_terry"]
    models = sorted(bt, key=lambda m: bt[m]["score"])
    scores = [bt[m]["score"] for m in models]
    lo = [bt[m]["score"] - (bt[m]["ci95"] or [bt[m]["score"]] * 2)[0] for m in models]
    hi = [(bt[m]["ci95"] or [bt[m]["score"]] * 2)[1] - bt[m]["score"] for m in models]
    fig, ax = plt.subplots(figsize=(6.5, 0.5 * len(models) + 1.5))
    ax.errorbar(scores, range(len(models)), xerr=[lo, hi], fmt="o", color="#1f4e79", ecolor="#7a9cc6", capsize=4)
    ax.set_yticks(range(len(models)), models)
    ax.axvline(0, color="#bbbbbb", lw=0.8)
    ax.set_xlabel("Bradley–Terry score (Elo-like scale, 95% bootstrap CI over topics)")
    ax.set_title(f"Debate arena ranking ({result['rule']} rule)")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
