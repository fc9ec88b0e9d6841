"""The interface of each plug-in group, in one place (docs/plugins.md has a complete example of each).

* ``debench.models`` -> a ``ModelKind`` (the entry's name is the model-string prefix);
* ``debench.metrics`` -> a ``debench.metrics.base.Metric`` (the entry's name is what a task lists
  under ``metrics:``), or a module that registers one with ``register_metric``;
* ``debench.methods`` -> a ``JudgeMethod``: ``async (JudgeContext, Doc) -> SampleRecord``;
* ``debench.arena_ratings`` -> a ``RatingMethod`` (``debench arena rank --rating NAME``).

Importing this module is cheap: the types it names are imported only for type checking.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    import numpy as np

    from debench.arena.judgment_table import JudgmentTable
    from debench.models.base import Model
    from debench.models.kinds import ModelRequest


@runtime_checkable
class ModelKind(Protocol):
    """What a model-string prefix makes."""

    description: str
    """One line for ``debench plugins`` and docs."""

    @property
    def keys(self) -> frozenset[str]:
        """The ``--model-args`` keys (``debench.models.args``: generation, client and server settings)
        this kind applies; any other key given is refused before anything runs. A key that changes
        the answers must also be in the model's ``identity()``."""
        ...

    def make(self, request: ModelRequest) -> Model:
        """The model for ``request.base`` (the model string without its ``@settings``), with
        ``request.args`` applied; a ``debench.errors.UserError`` for a string it cannot serve. Set
        ``model.name = request.name``. Its ``identity()`` must come out the same when the model is
        rebuilt from it (the leaderboard's spot check does)."""
        ...


@runtime_checkable
class RatingMethod(Protocol):
    """A rating of the debaters from the arena's judgments, reported under ``ratings.NAME`` of
    ranking.json with the built-in ratings' conventions: the point value on all topics, a 95%
    percentile interval over the same topic resamples as every other statistic, ``draws_used``,
    and no interval when fewer than half the resamples gave a value."""

    description: str
    """What the score is and its scale (recorded in ranking.json)."""
    higher_is_better: bool

    def scores(self, table: JudgmentTable, weights: np.ndarray) -> np.ndarray:
        """(b, n_models) scores from (b, n_topics) topic weights: row r weighs each judgment by how
        many times its topic (``table.topic``) is in resample r (a row of ones is the data itself).
        Columns follow ``table.models``; NaN where a model has no score in a resample (no game).
        Judgments of a model against itself (``table.side1 == table.side2``) are never ranked."""
        ...
