"""Judgments as columns (numpy arrays of codes), the form every statistic of ``arena rank`` reads.

A million judgments are ~50 MB here instead of ~1 GB of objects. Topics, models and judges are
coded in sorted order of their names (sorting codes sorts names), so that nothing ``arena rank``
reports depends on the order of the lines.
``leg`` tells a self-play debate's two legs apart (0, then 1: the second time a judge decided the
same model against itself on a topic); every other debate has leg 0.

``load_judgment_files`` reads judgment files into a table fast, strictly and in bounded memory: one
line at a time, each validated against ``Judgment`` into columns (~4 s and ~60 MB per million lines
here). Every problem is one line naming the file and the line, exit code 2.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import ValidationError

from debench.arena.judgments import FIELDS, UNNAMED_JUDGE, Judgment, line_validator
from debench.core.errors import UserError
from debench.core.user_files import JUDGMENTS_FILE, json_problem, read_lines

MISSING = -1
"""A word or source count that the line did not give."""


def group_ids(*columns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A group id per row (rows equal in every column share it; ids follow the sorted order of the
    columns, the first column sorting first) and the first row (in row order) of each group."""
    n = len(columns[0])
    if n == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    order = np.lexsort((np.arange(n), *reversed(columns)))
    new = np.ones(n, dtype=bool)
    for c in columns:
        s = c[order]
        new[1:] &= s[1:] == s[:-1]
    new = ~new
    new[0] = True
    ids = np.empty(n, dtype=np.int64)
    ids[order] = np.cumsum(new) - 1
    return ids, order[new]


@dataclass(frozen=True)
class JudgmentTable:
    topics: list[str]
    models: list[str]
    judges: list[str]
    topic: np.ndarray
    side1: np.ndarray
    side2: np.ndarray
    judge: np.ndarray
    winner: np.ndarray
    """0 = tie, 1, 2."""
    leg: np.ndarray
    words: np.ndarray
    """(n, 2): side 1's and side 2's words, ``MISSING`` where absent."""
    sources: np.ndarray
    judge_ids: dict[str, frozenset[str]] = field(default_factory=dict)
    """Each judge label's ``judge_model_id`` values."""
    debater_ids: dict[str, frozenset[str]] = field(default_factory=dict)
    """Each debater's ``side1_model_id`` / ``side2_model_id`` values."""
    waves: frozenset[int] = frozenset()
    """The adaptive schedule's waves the lines name (``wave``); empty when none does."""

    def __len__(self) -> int:
        return len(self.topic)

    def select(self, mask: np.ndarray) -> JudgmentTable:
        """The rows where ``mask`` holds (names and codes unchanged)."""
        return replace(
            self,
            topic=self.topic[mask],
            side1=self.side1[mask],
            side2=self.side2[mask],
            judge=self.judge[mask],
            winner=self.winner[mask],
            leg=self.leg[mask],
            words=self.words[mask],
            sources=self.sources[mask],
        )

    @property
    def ranked(self) -> np.ndarray:
        """Rows between two different models (self-play is reported apart, never ranked)."""
        mask: np.ndarray = self.side1 != self.side2
        return mask

    def debaters(self) -> list[int]:
        """Codes of the models that met a different model, in name order."""
        r = self.ranked
        return sorted(set(np.unique(self.side1[r]).tolist()) | set(np.unique(self.side2[r]).tolist()))

    def debate_ids(self) -> tuple[np.ndarray, np.ndarray]:
        """A debate id per row ((topic, side 1, side 2, leg) equal) and each debate's first row."""
        return group_ids(self.topic, self.side1, self.side2, self.leg)


def build_table(
    topic_names: Sequence[str],
    model_names: Sequence[str],
    judge_names: Sequence[str],
    topic: np.ndarray,
    side1: np.ndarray,
    side2: np.ndarray,
    judge: np.ndarray,
    winner: np.ndarray,
    words: np.ndarray,
    sources: np.ndarray,
    judge_ids: dict[str, frozenset[str]],
    debater_ids: dict[str, frozenset[str]],
    where: Callable[[int], str],
) -> JudgmentTable:
    """Codes in order of appearance -> the table (topics, models and judges recoded in name order,
    legs numbered, rows in the order of (topic, side 1, side 2, judge, leg), so that no statistic
    depends on the order of the lines). A second verdict of one judge on one debate (a third on a
    self-play topic) is a ``UserError`` naming both places (``where(row)``)."""
    topic_order, model_order, judge_order = _recode(topic_names), _recode(model_names), _recode(judge_names)
    topic, side1, side2, judge = topic_order[topic], model_order[side1], model_order[side2], judge_order[judge]
    ids, _ = group_ids(judge, topic, side1, side2)
    leg = _occurrence(ids)
    bad = np.flatnonzero(leg >= np.where(side1 == side2, 2, 1))
    if len(bad):
        row = int(bad[0])
        names = sorted(model_names), sorted(topic_names), sorted(judge_names)
        raise _second_verdict(names, topic, side1, side2, judge, row, int(np.flatnonzero(ids == ids[row])[0]), where)
    rows = np.lexsort((leg, judge, side2, side1, topic))
    return JudgmentTable(
        topics=sorted(topic_names),
        models=sorted(model_names),
        judges=sorted(judge_names),
        topic=topic[rows].astype(np.int32),
        side1=side1[rows].astype(np.int32),
        side2=side2[rows].astype(np.int32),
        judge=judge[rows].astype(np.int32),
        winner=winner[rows].astype(np.int8),
        leg=leg[rows].astype(np.int8),
        words=words[rows],
        sources=sources[rows],
        judge_ids=judge_ids,
        debater_ids=debater_ids,
    )


def _second_verdict(
    names: tuple[list[str], list[str], list[str]],
    topic: np.ndarray,
    side1: np.ndarray,
    side2: np.ndarray,
    judge: np.ndarray,
    row: int,
    first: int,
    where: Callable[[int], str],
) -> UserError:
    """The refusal of line ``row``, a second verdict of its judge on the debate of line ``first``."""
    models, topics, judges = names
    s1, s2, t, name = models[side1[row]], models[side2[row]], topics[topic[row]], judges[judge[row]]
    who = "the unnamed judge (give each judge's lines a 'judge' field)" if name == UNNAMED_JUDGE else f"judge '{name}'"
    what = (
        f"a third judgment of the self-play debate of '{s1}' on '{t}'"
        if s1 == s2
        else f"a second judgment of '{s1}' vs '{s2}' on '{t}' in that order"
    )
    return UserError(f"{where(row)}: {what} by {who}; the first is {where(first)}")


def _recode(names: Sequence[str]) -> np.ndarray:
    """Old code (order of appearance) -> new code (name order)."""
    order = np.argsort(np.array(names, dtype=object), kind="stable") if names else np.zeros(0, dtype=np.int64)
    new = np.empty(len(names), dtype=np.int64)
    new[order] = np.arange(len(names))
    return new


def _occurrence(ids: np.ndarray) -> np.ndarray:
    """For each row, how many earlier rows share its id."""
    order = np.argsort(ids, kind="stable")
    s = ids[order]
    start = np.r_[0, np.flatnonzero(s[1:] != s[:-1]) + 1] if len(s) else np.zeros(0, dtype=np.int64)
    run_start = np.repeat(start, np.diff(np.r_[start, len(s)]))
    out = np.empty(len(ids), dtype=np.int64)
    out[order] = np.arange(len(s)) - run_start
    return out


class Codes:
    """Names -> codes in order of first appearance."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}

    def __call__(self, name: str) -> int:
        code = self.index.get(name)
        if code is None:
            code = self.index[name] = len(self.index)
        return code

    @property
    def names(self) -> list[str]:
        return list(self.index)


class TableBuilder:
    """Accumulates validated judgment lines (dicts of ``Judgment`` fields) into columns, with each
    line's place (file index, line number) for error messages."""

    CHUNK = 1 << 16

    def __init__(self) -> None:
        self.topics, self.models, self.judges = Codes(), Codes(), Codes()
        self.rows: list[tuple[int, ...]] = []
        self.chunks: list[np.ndarray] = []
        self.judge_ids: dict[str, set[str]] = {}
        self.debater_ids: dict[str, set[str]] = {}
        self.waves: set[int] = set()

    def add(self, line: dict[str, Any], file: int, number: int) -> None:
        get = line.get
        judge = get("judge")
        label = UNNAMED_JUDGE if judge is None else judge
        side1, side2 = line["side1"], line["side2"]
        winner = line["winner"]
        w1, w2, q1, q2 = get("side1_words"), get("side2_words"), get("side1_sources"), get("side2_sources")
        self.rows.append(
            (
                self.topics(line["topic"]),
                self.models(side1),
                self.models(side2),
                self.judges(label),
                0 if winner is None else winner,
                MISSING if w1 is None else w1,
                MISSING if w2 is None else w2,
                MISSING if q1 is None else q1,
                MISSING if q2 is None else q2,
                file,
                number,
            )
        )
        jid, id1, id2, wave = get("judge_model_id"), get("side1_model_id"), get("side2_model_id"), get("wave")
        if wave is not None:
            self.waves.add(wave)
        if jid is not None:
            self.judge_ids.setdefault(label, set()).add(jid)
        if id1 is not None:
            self.debater_ids.setdefault(side1, set()).add(id1)
        if id2 is not None:
            self.debater_ids.setdefault(side2, set()).add(id2)
        if len(self.rows) >= self.CHUNK:
            self._flush()

    def _flush(self) -> None:
        if self.rows:
            self.chunks.append(np.array(self.rows, dtype=np.int64))
            self.rows = []

    def __len__(self) -> int:
        return sum(len(c) for c in self.chunks) + len(self.rows)

    def table(self, where: Callable[[int, int], str]) -> JudgmentTable:
        """``where(file, line)`` names a place in an error message."""
        self._flush()
        c = np.concatenate(self.chunks) if self.chunks else np.zeros((0, 11), dtype=np.int64)
        self.chunks = []
        places = c[:, 9:11].copy()
        table = build_table(
            self.topics.names,
            self.models.names,
            self.judges.names,
            c[:, 0],
            c[:, 1],
            c[:, 2],
            c[:, 3],
            c[:, 4],
            c[:, 5:7].copy(),
            c[:, 7:9].copy(),
            {k: frozenset(v) for k, v in self.judge_ids.items()},
            {k: frozenset(v) for k, v in self.debater_ids.items()},
            lambda row: where(int(places[row, 0]), int(places[row, 1])),
        )
        return replace(table, waves=frozenset(self.waves))


def table_of(judgments: Sequence[Judgment] | JudgmentTable) -> JudgmentTable:
    """The table of in-memory judgments (the Python API's input); a table passes through."""
    if isinstance(judgments, JudgmentTable):
        return judgments
    builder = TableBuilder()
    for k, j in enumerate(judgments):
        builder.add(j.model_dump(), -1, k + 1)
    return builder.table(lambda _file, number: f"judgment {number}")


def line_error(exc: ValidationError) -> str:
    """The first problem of a line, in words (an unknown key before a missing one: ``winnr``
    explains why ``winner`` is missing)."""
    errors = sorted(exc.errors(), key=lambda e: e["type"] != "extra_forbidden")
    err = errors[0]
    kind, loc = err["type"], ".".join(str(p) for p in err["loc"])
    if kind == "dict_type":
        return "expected a JSON object"
    if kind == "extra_forbidden":
        close = difflib.get_close_matches(loc, FIELDS, n=1)
        hint = f"; did you mean '{close[0]}'?" if close else f" (known: {', '.join(FIELDS)})"
        return f"unknown key '{loc}'{hint}"
    if kind == "missing":
        return f"field '{loc}' is missing" + (" (write null for a tie)" if loc == "winner" else "")
    return f"field '{loc}': {err['msg']}"


def load_judgment_files(paths: Sequence[Path]) -> JudgmentTable:
    """Every line of every file; a second verdict of one judge on one debate (a third on one
    self-play topic) is an error naming both lines."""
    validate = line_validator()
    builder = TableBuilder()
    for f, path in enumerate(paths):
        n_before = len(builder)
        for n, _, line in read_lines(path, JUDGMENTS_FILE):
            if not line.strip():
                continue
            try:
                obj = validate(line)
            except ValidationError as exc:
                raise UserError(f"line {n}: {line_error(exc)}", path=str(path)) from None
            except ValueError as exc:  # the JSON parser's: not JSON, a key given twice, nested too deep
                raise json_problem(str(exc), line, path, at=f"line {n}") from None
            builder.add(obj, f, n)
        if len(builder) == n_before:
            raise UserError("no judgments", path=str(path))
    return builder.table(lambda f, n: f"{paths[f]} line {n}" if f >= 0 else f"judgment {n}")
