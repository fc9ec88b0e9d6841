"""What arguments a metric takes: the typed declaration a ``Metric`` carries as ``params`` (a
plug-in's metric too), checked when a task file is loaded, before any request (docs/plugins.md).

A declaration is a subclass of ``MetricArgs``, a pydantic model: one field per argument, with its
type, its range and its default. A task file's values are checked as they are written (``labels: 5``
is refused, not read as a list; ``min_shared: "50"`` is not a number) and an argument the
declaration does not name is refused; a metric without a declaration takes no argument. The
declarations of debench's own metrics are here, by metric name (``BUILTIN_PARAMS``): checking a
task file imports none of the metrics' code (no numpy, no scipy before the first request).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from debench.core.errors import UserError


class MetricArgs(BaseModel):
    """The base of a metric's declaration of its arguments: unknown arguments refused, values not
    converted, numbers finite."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


DEFAULT_MIN_SHARED = 50
Weights = Literal["linear", "quadratic"]
DEFAULT_WEIGHTS: Weights = "quadratic"
DEFAULT_EPSILON = 0.1
DEFAULT_ALPHA = 0.05
DEFAULT_MIN_DOCS = 30


class ValueMapArgs(MetricArgs):
    """``rmse``: the number each verdict stands for (default pro 0, tie 0.5, con 1)."""

    value_map: dict[str, float] | None = None


class LabelsArgs(MetricArgs):
    """``macro_f1``: the labels averaged over (default: those in the gold or the predictions)."""

    labels: list[str] | None = Field(default=None, min_length=1)


class KappaArgs(MetricArgs):
    """``kappa_loo``, ``kappa_human``: the annotator pairs kept (sharing at least ``min_shared``
    speeches) and the kappa's weights."""

    min_shared: int = Field(default=DEFAULT_MIN_SHARED, ge=1)
    weights: Weights = DEFAULT_WEIGHTS


class AltTestArgs(MetricArgs):
    """The alternative annotator test's metrics: the advantage allowed to the judge, the
    Benjamini-Yekutieli level, the documents an annotator needs to be tested."""

    epsilon: float = Field(default=DEFAULT_EPSILON, ge=0, lt=1)
    alpha: float = Field(default=DEFAULT_ALPHA, gt=0, lt=1)
    min_docs: int = Field(default=DEFAULT_MIN_DOCS, ge=2)


BUILTIN_PARAMS: dict[str, type[MetricArgs]] = {
    "rmse": ValueMapArgs,
    "macro_f1": LabelsArgs,
    "kappa_loo": KappaArgs,
    "kappa_human": KappaArgs,
    "alt_test_winning_rate": AltTestArgs,
    "advantage_probability": AltTestArgs,
}
"""debench's own metrics that take arguments (every other one takes none); each ``Metric`` carries
the same class (a test checks it)."""


def args_problem(params: type[MetricArgs] | None, args: Mapping[str, Any]) -> tuple[str | None, str] | None:
    """The first problem of ``args`` for a metric declaring ``params``: (the argument, or None for
    them all; why), or None when they are accepted."""
    if params is None:
        return (next(iter(args)), "the metric takes no argument") if args else None
    try:
        params.model_validate(dict(args))
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or None
        if err["type"] == "extra_forbidden":
            known = list(params.model_fields)
            close = difflib.get_close_matches(str(where), known, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"the metric takes {', '.join(known) or 'none'}"
            return where, f"unknown argument; {hint}"
        return where, str(err["msg"])
    return None


def refuse_bad_args(
    name: str, params: type[MetricArgs] | None, args: Mapping[str, Any], *, field: str, path: str | None = None
) -> None:
    """A one-line ``UserError`` naming the argument (``field``: where the arguments sit, e.g.
    ``metrics.2.args``) when ``args`` do not follow metric ``name``'s declaration."""
    problem = args_problem(params, args)
    if problem is not None:
        arg, why = problem
        raise UserError(f"{name}: {why}", path=path, field=field + (f".{arg}" if arg else ""))
