"""Synthetic debate judgments with planted truths: model strengths, each debater's verbosity, and
judges with a taste for length, a bonus for their own model, a side-1 bias and draws (Davidson)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import permutations

import numpy as np

from debench.arena.judgments import Judgment


@dataclass(frozen=True)
class SynthJudge:
    label: str | None = "judge"
    model_id: str | None = None
    length_weight: float = 0.0
    """Logits per standard deviation of the normalised word difference (side 1 - side 2)."""
    own_model: str | None = None
    self_bonus: float = 0.0
    """Logits added to the side whose debater is ``own_model``."""
    side1_bonus: float = 0.0
    nu: float = 0.0
    """Davidson tie parameter of single verdicts."""


def judgment_line(j: Judgment) -> str:
    """A judgments-file line: the fields that are set, and ``winner`` always (null for a tie)."""
    return j.model_dump_json(exclude_none=True)[:-1] + (', "winner": null}' if j.winner is None else "}") + "\n"


def davidson_outcome(rng: np.random.Generator, d: float, nu: float) -> int | None:
    """1 (first side wins), 2 or None (tie) under Davidson's model with predictor ``d``."""
    w = np.array([np.exp(d / 2), np.exp(-d / 2), nu])
    return (1, 2, None)[int(rng.choice(3, p=w / w.sum()))]


def simulate(
    strengths: dict[str, float],
    judges: list[SynthJudge],
    n_topics: int,
    seed: int,
    verbosity: dict[str, float] | None = None,
    length_noise: float = 0.5,
) -> list[Judgment]:
    rng = np.random.default_rng(seed)
    verbosity = verbosity or dict.fromkeys(strengths, 300.0)
    debates = []
    for t in range(n_topics):
        for a, b in permutations(sorted(strengths), 2):
            wa, wb = (round(verbosity[m] * np.exp(rng.normal(0, length_noise))) for m in (a, b))
            debates.append((f"topic {t}", a, b, wa, wb))
    nd = np.array([(wa - wb) / (wa + wb) for *_, wa, wb in debates])
    z = (nd - nd.mean()) / nd.std()
    out = []
    for k, (topic, a, b, wa, wb) in enumerate(debates):
        for jd in judges:
            d = strengths[a] - strengths[b] + jd.length_weight * z[k] + jd.side1_bonus
            d += jd.self_bonus * ((a == jd.own_model) - (b == jd.own_model))
            out.append(
                Judgment(
                    topic=topic,
                    side1=a,
                    side2=b,
                    winner=davidson_outcome(rng, d, jd.nu),
                    judge=jd.label,
                    judge_model_id=jd.model_id,
                    side1_model_id=f"id-{a}",
                    side2_model_id=f"id-{b}",
                    side1_words=wa,
                    side2_words=wb,
                )
            )
    return out


def fit_games(n_models: int, i, j, y, x=None, ties: str = "half", l2: float | None = None):
    """One Bradley–Terry fit on plain games (first side ``i``, second side ``j``, result ``y`` for
    ``i``: 1, 0.5 tie, 0), each game its own cell when it has covariates ``x`` (no resamples):
    debench's fit (``arena.cells.aggregate`` + ``bradley_terry.fit_many``) on one topic."""
    from debench.arena.bradley_terry import L2_PENALTY, Problem, fit_many
    from debench.arena.cells import aggregate
    from debench.arena.topic_bootstrap import TopicDraws

    i, j, y = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64), np.asarray(y, dtype=float)
    n = len(y)
    values = (
        np.column_stack([y, np.ones(n)])
        if ties == "half"
        else np.column_stack([y == 1.0, y == 0.0, y == 0.5]).astype(float)
    )
    keys = None if x is None else np.arange(n)
    cells, stats = aggregate(n_models, 1, np.zeros(n, dtype=np.int64), i, j, values, keys, x)
    return fit_many([Problem(cells, stats, ties)], TopicDraws(1, 0, 0), L2_PENALTY if l2 is None else l2)[0]


def rank_judgments(judgments, rule: str = "strict", reference=None, **options):
    """The ranking file's content as plain JSON data (``options``: those of ``analyse_judgments``)."""
    from debench.arena.rank import analyse_judgments

    return analyse_judgments(judgments, rule, reference, **options).model_dump(mode="json")
