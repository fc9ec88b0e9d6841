"""The metric interface and registry.

A metric is computed in three steps, so that 1,000 bootstrap resamples cost about as much as a
few values:

* ``prepare(docs, **args) -> state`` once per scoring: what depends on the gold data only
  (targets, annotator-pair tables, ...), as arrays; metrics with the same ``prepare`` and args
  share one state (``scoring.scores.metric_values``), so ``bind`` and ``evaluate`` never change it;
  what several prepares read from the documents alike is read once (``shared``);
* ``bind(state, preds) -> evaluate`` once per set of predictions (``preds`` is a numpy object
  array aligned with ``docs``): the predictions turned into arrays;
* ``evaluate(counts) -> Draws`` for a batch of resamples at once. ``counts`` has shape (b, n):
  row r says how often each document is in resample r (a row of ones is the sample itself).

Every metric here is a function of sums over documents, so a resample with replacement is the
same as weighting each document by how often it was drawn; nothing is copied per resample.

A value that does not exist (a correlation with a constant judge, a kappa without annotator
pairs) is NaN in ``Draws.values`` and carries the reason in ``Draws.note(i)``: the reason is set
where the condition is checked, never guessed later from a missing number.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import numpy as np

from debench.core.entry_points import Declared, PluginError
from debench.core.errors import UserError
from debench.core.registries import Registry
from debench.data.base import Doc
from debench.metrics.params import MetricArgs

R = TypeVar("R")

NOT_FINITE = "the value is not a finite number"


@dataclass
class Draws:
    """A metric's values on a batch of resamples: NaN where undefined, each with its reason."""

    values: np.ndarray
    reason: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.intp))
    """Index into ``reasons`` per value; -1 where the value is defined."""
    reasons: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, values: Any) -> Draws:
        v = np.array(values, dtype=float, ndmin=1)
        return cls(values=v, reason=np.full(len(v), -1, dtype=np.intp))

    @classmethod
    def none(cls, b: int, note: str) -> Draws:
        """``b`` undefined values, all for the same reason."""
        return cls.of(np.full(b, np.nan)).undefined(np.ones(b, dtype=bool), note)

    @classmethod
    def concat(cls, parts: Sequence[Draws]) -> Draws:
        """The draws of several batches, in order, each value keeping its reason."""
        out = cls.of(np.concatenate([p.values for p in parts]))
        at = 0
        for p in parts:
            for r, note in enumerate(p.reasons):
                where = np.zeros(len(out.values), dtype=bool)
                where[at : at + len(p.values)] = p.reason == r
                out.undefined(where, note)
            at += len(p.values)
        return out

    def undefined(self, where: Any, note: str) -> Draws:
        """Mark the values at ``where`` (a boolean mask) undefined because of ``note``; a value
        already undefined keeps its first reason."""
        mask = np.broadcast_to(np.asarray(where, dtype=bool), self.values.shape)
        new = mask & (self.reason < 0)
        if new.any():
            if note not in self.reasons:
                self.reasons.append(note)
            self.reason[new] = self.reasons.index(note)
        self.values[mask] = np.nan
        return self

    def finish(self) -> Draws:
        """Any value still infinite or NaN without a reason gets the generic one."""
        return self.undefined(~np.isfinite(self.values), NOT_FINITE)

    def note(self, i: int) -> str | None:
        r = int(self.reason[i])
        return self.reasons[r] if r >= 0 else None

    def value(self, i: int) -> float | None:
        v = float(self.values[i])
        return v if np.isfinite(v) else None


Prepare = Callable[..., Any]
Evaluate = Callable[[np.ndarray], Draws]
Bind = Callable[[Any, np.ndarray], Evaluate]

_SHARED: ContextVar[dict[Callable[..., Any], tuple[Sequence[Doc], Any]] | None] = ContextVar(
    "debench_metrics_shared", default=None
)


@contextmanager
def sharing() -> Iterator[None]:
    """Inside it, ``shared`` reads the documents once for every metric that asks: scoring prepares
    a task's metrics inside one (the speech-rating metrics' human ratings, checked once)."""
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def shared(read: Callable[[Sequence[Doc]], R], docs: Sequence[Doc]) -> R:
    """``read(docs)``: inside ``sharing``, computed once for the same list of documents (the same
    object) and handed to every later caller; outside, computed each time."""
    memo = _SHARED.get()
    if memo is None:
        return read(docs)
    known = memo.get(read)
    if known is None or known[0] is not docs:
        known = memo[read] = (docs, read(docs))
    out: R = known[1]
    return out


@dataclass(frozen=True)
class Metric:
    name: str
    prepare: Prepare
    bind: Bind
    higher_is_better: bool = True
    description: str = ""
    no_ci: str | None = None
    """Why the metric has no bootstrap CI (e.g. a count of test decisions); None: it has one."""
    params: type[MetricArgs] | None = None
    """The arguments ``prepare`` takes (``debench.metrics.params``), checked when a task file is
    loaded; None: it takes none."""

    def value(self, state: Any, preds: np.ndarray, idx: np.ndarray | None = None) -> float | None:
        """The value on the documents at positions ``idx`` (default: all of them once)."""
        n = len(preds)
        counts = np.ones(n) if idx is None else np.bincount(np.asarray(idx, dtype=np.intp), minlength=n).astype(float)
        return self.bind(state, preds)(counts[None, :]).finish().value(0)


def _not_a_metric(obj: object) -> str | None:
    if not isinstance(obj, Metric):
        return f"expected a debench.metrics.base.Metric, got {type(obj).__name__}"
    return None


def _plugin_step(item: Declared, step: str, call: Callable[..., R], *args: Any, **kwargs: Any) -> R:
    """One step of another package's metric; what it raises (but its own ``UserError``) is one line
    naming it."""
    try:
        return call(*args, **kwargs)
    except UserError:
        raise
    except Exception as exc:  # noqa: BLE001 - a plug-in's failure, reported as one line naming it
        raise PluginError(item.failed(exc, step)) from None


def _checked_draws(item: Declared, draws: object, b: int) -> Draws:
    """What a plug-in metric's evaluate returned, when it is ``Draws`` of ``b`` values."""
    if (
        not isinstance(draws, Draws)
        or np.shape(draws.values) != (b,)
        or np.shape(draws.reason) != (b,)
        or not np.issubdtype(np.asarray(draws.values).dtype, np.floating)
    ):
        shape = f" of shape {np.shape(draws.values)}" if isinstance(draws, Draws) else ""
        raise PluginError(
            f"{item.described} returned {type(draws).__name__}{shape}, expected Draws of {b} float values "
            "(Draws.of(values), or ratio(...) in register_sum_metric's finish)"
        )
    return draws


def _guarded(metric: Metric, item: Declared) -> Metric:
    """Another package's metric: what its ``prepare``, ``bind`` and evaluation raise, or an
    evaluation that is not ``Draws`` of one value per resample, is one line naming it."""

    def prepare(docs: Sequence[Doc], **args: Any) -> Any:
        return _plugin_step(item, "prepare", metric.prepare, docs, **args)

    def bind(state: Any, preds: np.ndarray) -> Evaluate:
        evaluate = _plugin_step(item, "bind", metric.bind, state, preds)
        if not callable(evaluate):
            raise PluginError(f"{item.described}: bind returned {type(evaluate).__name__}, not a function of counts")

        def checked(counts: np.ndarray) -> Draws:
            return _checked_draws(item, _plugin_step(item, "evaluate", evaluate, counts), len(counts))

        return checked

    return replace(metric, prepare=prepare, bind=bind)


METRICS: Registry[Metric] = Registry("metric", group="debench.metrics", check=_not_a_metric, guard=_guarded)
"""The metrics by the name a task file lists under ``metrics:``: entry points of ``debench.metrics``
(each naming a ``Metric`` or a module that registers one with ``register_metric``)."""


def register_metric(metric: Metric) -> Metric:
    return METRICS.add(metric.name, metric)


get_metric = METRICS.get
metric_names = METRICS.names


# ---------------------------------------------------------------- metrics of per-document terms

Terms = Callable[..., np.ndarray]
Finish = Callable[[np.ndarray], Draws]


def register_sum_metric(
    name: str,
    terms: Terms,
    finish: Finish,
    *,
    higher_is_better: bool = True,
    description: str = "",
    params: type[MetricArgs] | None = None,
) -> Metric:
    """A metric that is a function of per-document terms summed over the documents.

    ``terms(preds, targets, **args)`` returns an (n, F) array, one row per document, computed once
    per set of predictions; ``finish(sums)`` turns the (b, F) weighted sums into values. ``params``
    declares the ``args`` it takes (``Metric.params``).
    """

    def prepare(docs: Sequence[Doc], **args: Any) -> tuple[np.ndarray, dict[str, Any]]:
        targets = np.empty(len(docs), dtype=object)
        targets[:] = [d.target for d in docs]
        return targets, args

    def bind(state: tuple[np.ndarray, dict[str, Any]], preds: np.ndarray) -> Evaluate:
        targets, args = state
        x = np.asarray(terms(preds, targets, **args), dtype=float).reshape(len(preds), -1)
        return lambda counts: finish(counts @ x)

    return register_metric(
        Metric(
            name=name,
            prepare=prepare,
            bind=bind,
            higher_is_better=higher_is_better,
            description=description or next(iter((terms.__doc__ or "").strip().splitlines()), ""),
            params=params,
        )
    )


def ratio(sums: np.ndarray, *, empty: str, transform: Callable[[np.ndarray], np.ndarray] | None = None) -> Draws:
    """sums[:, 0] / sums[:, 1] (optionally transformed), undefined where the denominator is 0."""
    num, den = sums[:, 0], sums[:, 1]
    with np.errstate(all="ignore"):
        v = num / den
        if transform is not None:
            v = transform(v)
    return Draws.of(v).undefined(den == 0, empty)


def safe_divide(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a / b with NaN (no warning) where b is 0; callers mark those values undefined."""
    with np.errstate(all="ignore"):
        quotient: np.ndarray = np.true_divide(a, b)
    return quotient
