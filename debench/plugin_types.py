"""Everything a plug-in's author imports, in one place: ``from debench.plugin_types import ...``
(docs/plugins.md describes each and has an example of each group).

* ``debench.models`` -> a ``ModelKind`` (the entry's name is the model-string prefix), making
  ``Model``s from a ``ModelRequest``; a model answers a ``Request`` with a ``ModelResponse`` (and
  its ``Usage``), and fails with ``PermanentModelError``, ``TransientModelError`` (retried) or
  ``ContextOverflow`` (the sample is *not completed*);
* ``debench.metrics`` -> a ``Metric`` (the entry's name is what a task lists under ``metrics:``), or
  a module that registers one with ``register_metric`` / ``register_sum_metric`` (whose ``finish``
  turns summed terms into ``Draws``, usually with ``ratio``); the arguments it takes are declared by
  a ``MetricArgs`` subclass (``Metric.params``);
* ``debench.methods`` -> a ``JudgeMethod``: ``async (JudgeContext, Doc) -> SampleRecord``; the
  prompt is ``build_messages``, the answer read by ``record_from_response``; the task is a
  ``TaskConfig``, a document's speeches ``Speech``es;
* ``debench.arena_ratings`` -> a ``RatingMethod`` scoring a ``JudgmentTable``
  (``debench arena rank --rating NAME``).

``UserError`` is a problem the user can fix: one line, exit code 2. Each name is defined beside its
registry or in its layer; this module only gathers them, and is the one import that stays the same
when debench's modules move.

May import: ``core``, ``task``, ``data``, ``models``, ``judging``, ``metrics``, ``arena``.
"""

from __future__ import annotations

from debench.arena.judgment_table import JudgmentTable
from debench.arena.ratings import RatingMethod
from debench.core.errors import UserError
from debench.data.base import Doc, Speech
from debench.data.prompts import Message, build_messages
from debench.data.samples import SampleRecord
from debench.judging.base import CallResult, JudgeContext, JudgeMethod
from debench.judging.direct import record_from_response
from debench.metrics.base import Draws, Metric, ratio, register_metric, register_sum_metric
from debench.metrics.params import MetricArgs
from debench.models.base import ContextOverflow, Model, ModelResponse, PermanentModelError, Request, Usage
from debench.models.kinds import ModelKind, ModelRequest
from debench.models.retry import TransientModelError
from debench.task.config import GenerationConfig, TaskConfig

__all__ = [
    "CallResult",
    "ContextOverflow",
    "Doc",
    "Draws",
    "GenerationConfig",
    "JudgeContext",
    "JudgeMethod",
    "JudgmentTable",
    "Message",
    "Metric",
    "MetricArgs",
    "Model",
    "ModelKind",
    "ModelRequest",
    "ModelResponse",
    "PermanentModelError",
    "RatingMethod",
    "Request",
    "SampleRecord",
    "Speech",
    "TaskConfig",
    "TransientModelError",
    "Usage",
    "UserError",
    "build_messages",
    "ratio",
    "record_from_response",
    "register_metric",
    "register_sum_metric",
]
