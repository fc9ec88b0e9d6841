"""Rating methods asked for with ``debench arena rank --rating NAME``: entry points of
``debench.arena_ratings`` (debench's own ``win_rate``, or an installed package's; the interface is
``RatingMethod``). Each is computed on the top-level verdicts and on the same
topic resamples as every other statistic, and written under ``ratings.NAME`` of ranking.json with
the built-in ratings' conventions (``topic_bootstrap.interval``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from debench.arena.bt_bootstrap import score_groups
from debench.arena.judgment_table import JudgmentTable
from debench.arena.ranking_file import RatedScore, Rating
from debench.arena.topic_bootstrap import TopicDraws, interval
from debench.core.entry_points import Declared, PluginError
from debench.core.errors import UserError
from debench.core.registries import Registry


@runtime_checkable
class RatingMethod(Protocol):
    """A rating of the debaters from the arena's judgments (the interface of a
    ``debench.arena_ratings`` entry point), reported under ``ratings.NAME`` of ranking.json with the
    built-in ratings' conventions: the point value on all topics, a 95% percentile interval over the
    same topic resamples as every other statistic, ``draws_used``, and no interval when fewer than
    half the resamples gave a value."""

    description: str
    """What the score is and its scale (recorded in ranking.json)."""
    higher_is_better: bool

    def scores(self, table: JudgmentTable, weights: np.ndarray) -> np.ndarray:
        """(b, n_models) scores from (b, n_topics) topic weights: row r weighs each judgment by how
        many times its topic (``table.topic``) is in resample r (a row of ones is the data itself).
        Columns follow ``table.models``; NaN where a model has no score in a resample (no game).
        Judgments of a model against itself (``table.side1 == table.side2``) are never ranked."""
        ...


def _not_a_rating(obj: object) -> str | None:
    if not isinstance(obj, RatingMethod):
        return "lacks description, higher_is_better or scores (see debench.arena.ratings.RatingMethod)"
    return None


class GuardedRating:
    """Another package's rating method: what its ``scores`` raises (but its own ``UserError``), or
    an answer that is not an array of numbers, is one line naming it."""

    def __init__(self, inner: RatingMethod, item: Declared):
        self.inner = inner
        self.item = item
        self.description = str(inner.description)
        self.higher_is_better = bool(inner.higher_is_better)

    def scores(self, table: JudgmentTable, weights: np.ndarray) -> np.ndarray:
        try:
            return np.asarray(self.inner.scores(table, weights), dtype=float)
        except UserError:
            raise
        except Exception as exc:  # noqa: BLE001 - a plug-in's failure, reported as one line naming it
            raise PluginError(self.item.failed(exc, "scores")) from None


def _guarded(method: RatingMethod, item: Declared) -> RatingMethod:
    return GuardedRating(method, item)


RATINGS: Registry[RatingMethod] = Registry(
    "rating method", field="--rating", group="debench.arena_ratings", check=_not_a_rating, guard=_guarded
)


def _checked(name: str, values: np.ndarray, rows: int, n_models: int) -> np.ndarray:
    out = np.asarray(values, dtype=float)
    if out.shape != (rows, n_models):
        raise UserError(
            f"rating method '{name}' returned an array of shape {out.shape}, expected ({rows}, {n_models})",
            field="--rating",
        )
    return out


def rate(name: str, table: JudgmentTable, models: Sequence[int], draws: TopicDraws) -> Rating:
    """The rating ``name`` of the debaters ``models`` (codes into ``table.models``)."""
    method = RATINGS.get(name)
    n_models = len(table.models)
    point = _checked(name, method.scores(table, np.ones((1, draws.n_topics))), 1, n_models)[0]
    blocks = [_checked(name, method.scores(table, block), len(block), n_models) for block in draws.blocks()]
    resampled = np.concatenate(blocks) if blocks else np.zeros((0, n_models))
    scores: dict[str, RatedScore] = {}
    for m in models:
        ci, used = interval(resampled[:, m], draws.n_boot)
        value = float(point[m])
        scores[table.models[m]] = RatedScore(score=value, ci95=ci if np.isfinite(value) else None, draws_used=used)
    sign = 1.0 if method.higher_is_better else -1.0
    finite = {k: sign * s.score for k, s in scores.items() if np.isfinite(s.score)}
    groups = score_groups(finite)
    ranking = sorted(finite, key=lambda k: (groups[k], k))
    entry = RATINGS.entry(name)
    plugin = entry.identity() if entry is not None else None
    return Rating(
        description=str(method.description),
        higher_is_better=bool(method.higher_is_better),
        scores=scores,
        ranking=ranking,
        plugin=plugin.code() if plugin is not None else None,
    )
