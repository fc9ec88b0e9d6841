"""Deterministic reference judges that call no model.

They put every LLM number in context: a judge that cannot beat "always the last speaker" must be
visible as such. Each returns a prediction directly (no parser); the value is always one the
task's parser could have produced (``parser.choices``).
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from debench.core.errors import UserError
from debench.data.base import Doc
from debench.models.base import Model, ModelResponse, Request
from debench.task.config import TaskConfig


def _doc_rng(seed: int, doc_id: str) -> random.Random:
    digest = hashlib.sha256(f"{seed}:{doc_id}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def _choices(task: TaskConfig) -> list[Any]:
    if not task.parser.choices:
        raise UserError(f"task '{task.name}' declares no parser.choices, so baselines cannot answer it")
    return list(task.parser.choices)


def _side_words(doc: Doc) -> dict[str, int]:
    words: Counter[str] = Counter()
    for s in doc.speeches:
        if s.side is not None:
            words[s.side] += len(s.text.split())
    return dict(words)


class Baseline(Model):
    kind = "baseline"
    cacheable = False
    makes_requests = False
    default_concurrency = 64

    def __init__(self, name: str, arg: str | None, seed: int):
        self.name = f"baseline/{name}" + (f":{arg}" if arg else "")
        self.short = name
        self.arg = arg
        self.seed = seed
        self._fixed: Any = None
        self._bins: np.ndarray | None = None

    def identity(self) -> dict[str, Any]:
        return {"name": self.name, "seed": self.seed}

    def prepare(self, docs: Iterable[Doc], task: TaskConfig) -> None:
        spec = BASELINES[self.short]
        self._fixed = spec.prepare(self, docs, task) if spec.prepare else None

    async def generate(self, request: Request) -> ModelResponse:
        if request.doc is None or request.task is None:
            raise UserError(f"{self.name} judges task documents; it cannot take part in free-form generation")
        spec = BASELINES[self.short]
        value = spec.predict(self, request.doc, request.task)
        return ModelResponse(prediction=value, direct=True)


class BaselineSpec:
    def __init__(
        self,
        description: str,
        predict: Callable[[Baseline, Doc, TaskConfig], Any],
        prepare: Callable[[Baseline, Iterable[Doc], TaskConfig], Any] | None = None,
    ):
        self.description = description
        self.predict = predict
        self.prepare = prepare


def _random(b: Baseline, doc: Doc, task: TaskConfig) -> Any:
    rng = _doc_rng(b.seed, doc.doc_id)
    if task.parser.type == "dict":
        lo, hi = _dict_space(task)
        return {k: rng.randint(int(lo), int(hi)) for k in task.parser.keys or []}
    choices = _choices(task)
    if task.parser.type == "list":
        order = choices[:]
        rng.shuffle(order)
        return order
    return rng.choice(choices)


def _majority_prepare(b: Baseline, docs: Iterable[Doc], task: TaskConfig) -> Any:
    return majority_label(docs, task)


def majority_label(docs: Iterable[Doc], task: TaskConfig) -> Any:
    """The most frequent gold label of ``docs`` (``baseline/majority``'s answer); a tie goes to the label
    listed first in the task's ``parser.choices``."""
    labels = [d.label for d in docs if d.label is not None]
    if not labels:
        raise UserError(f"baseline/majority: task '{task.name}' has no categorical gold labels")
    counts = Counter(map(_hashable, labels))
    best = max(counts.values())
    tied = [lab for lab, c in counts.items() if c == best]
    order = {_hashable(c): i for i, c in enumerate(task.parser.choices or [])}
    return sorted(tied, key=lambda lab: (order.get(lab, len(order)), str(lab)))[0]


def _hashable(x: Any) -> Any:
    return tuple(x) if isinstance(x, list) else x


def _unhashable(x: Any) -> Any:
    return list(x) if isinstance(x, tuple) else x


def _dict_space(task: TaskConfig) -> list[float]:
    if not task.parser.keys or not task.parser.value_range:
        raise UserError(f"task '{task.name}' declares no parser.keys/value_range, so baselines cannot answer it")
    return list(task.parser.value_range)


def _constant_prepare(b: Baseline, docs: Iterable[Doc], task: TaskConfig) -> Any:
    if b.arg is None:
        raise UserError("baseline/constant needs a value, e.g. baseline/constant:3")
    if task.parser.type == "dict":
        lo, hi = _dict_space(task)
        try:
            value = float(b.arg)
        except ValueError:
            raise UserError(f"baseline/constant:{b.arg}: not a number") from None
        if not lo <= value <= hi:
            raise UserError(f"baseline/constant:{b.arg}: outside {lo}-{hi}")
        return dict.fromkeys(task.parser.keys or [], value)
    choices = _choices(task)
    for c in choices:
        if str(c).lower() == b.arg.lower():
            return c
    raise UserError(f"baseline/constant:{b.arg}: not one of the task's choices {choices}")


def _speaker(position: int) -> Callable[[Baseline, Doc, TaskConfig], Any]:
    def predict(b: Baseline, doc: Doc, task: TaskConfig) -> Any:
        sided = [s for s in doc.speeches if s.side is not None]
        if len({s.side for s in sided}) < 2:
            raise UserError(f"baseline/{b.short}: task '{task.name}' has no documents with two or more sides")
        return _as_choice(sided[position].side, task)

    return predict


def _longest(b: Baseline, doc: Doc, task: TaskConfig) -> Any:
    words = _side_words(doc)
    if len(words) < 2:
        raise UserError(f"baseline/longest: task '{task.name}' has no documents with two or more sides")
    return _as_choice(max(words, key=lambda side: (words[side], side)), task)


def _as_choice(side: str | None, task: TaskConfig) -> Any:
    choices = _choices(task)
    if task.parser.type == "list":
        # A ranking task: put that side first, the rest in speaking order.
        rest = [c for c in choices if c != side]
        return [side, *rest]
    if side not in choices:
        raise UserError(f"side '{side}' is not one of the task's choices {choices}")
    return side


def _length_prepare(b: Baseline, docs: Iterable[Doc], task: TaskConfig) -> Any:
    choices = _choices(task)
    if not all(isinstance(c, (int, float)) for c in choices):
        raise UserError("baseline/length needs an ordinal numeric scale (e.g. Likert 1-5)")
    lengths = np.array([sum(len(s.text.split()) for s in d.speeches) for d in docs], dtype=float)
    # Cut points at equal quantiles: the longest fifth of speeches gets the top score.
    qs = np.linspace(0, 1, len(choices) + 1)[1:-1]
    b._bins = np.quantile(lengths, qs) if len(lengths) else np.array([])
    return sorted(choices)


def _length(b: Baseline, doc: Doc, task: TaskConfig) -> Any:
    n = sum(len(s.text.split()) for s in doc.speeches)
    assert b._bins is not None
    return b._fixed[int(np.searchsorted(b._bins, n, side="right"))]


BASELINES: dict[str, BaselineSpec] = {
    "random": BaselineSpec("uniform random choice, seeded per document", _random),
    "majority": BaselineSpec(
        "always the most frequent gold label of the data set", lambda b, d, t: _unhashable(b._fixed), _majority_prepare
    ),
    "constant": BaselineSpec(
        "always the given value, e.g. baseline/constant:3", lambda b, d, t: b._fixed, _constant_prepare
    ),
    "first": BaselineSpec("the side of the first speaker", _speaker(0)),
    "last": BaselineSpec("the side of the last speaker", _speaker(-1)),
    "longest": BaselineSpec("the side with the most words", _longest),
    "length": BaselineSpec("ordinal score by speech length quantile (longer = higher)", _length, _length_prepare),
}


def make_baseline(spec: str, seed: int) -> Baseline:
    name, _, arg = spec.partition(":")
    if name not in BASELINES:
        raise UserError(f"unknown baseline '{name}' (known: {', '.join(sorted(BASELINES))})")
    return Baseline(name, arg or None, seed)
