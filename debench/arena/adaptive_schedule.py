"""The adaptive schedule's record: ``schedule.jsonl``, one line per debate chosen, saying why.

A decision is written before its debate runs, so an interrupted run knows what it had chosen: the
rerun runs the chosen debates that have no finished record, and chooses nothing new until they
are done. The file is append-only, written under the run's lock (two processes on the same
command choose a wave once); a torn last line (a process killed while writing it) is not read, and
is cut off before the next append. Versioned and documented by ``debench/schema/schedule_decision.schema.json``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from debench.arena.adaptive import Choice
from debench.arena.judgment_table import JudgmentTable, group_ids
from debench.arena.ranking_file import ScheduleSummary
from debench.core.json_schema import document_schema, schema_path
from debench.core.record_log import read_log

SCHEDULE_SCHEMA_VERSION = "1.0"
SCHEDULE_SCHEMA_PATH = schema_path("schedule_decision.schema.json")
SCHEDULE_FILE = "schedule.jsonl"


class ScheduleDecision(BaseModel):
    """One debate the adaptive schedule chose, and why."""

    model_config = ConfigDict(extra="forbid")

    wave: int = Field(
        ge=0,
        description="the wave it was chosen in (0 first); a wave is chosen from the "
        "judgments of the earlier waves only",
    )
    position: int = Field(ge=0, description="its place in the wave's order of choice")
    debate_id: str
    topic: str
    side1: str
    side2: str
    leg: str = Field(
        description="'second leg': the other side of a topic the pair had played once; 'new "
        "topic': the pair's first leg there"
    )
    utility: float = Field(
        description="expected reduction of the summed probabilities that adjacent models of the "
        "ranking are in the wrong order"
    )
    target: list[str] = Field(
        min_length=2,
        max_length=2,
        description="the adjacent pair of the ranking whose order it was expected to settle most",
    )
    target_difference: float = Field(
        description="that pair's posterior strength difference (logits, the first minus the "
        "second) when the wave was chosen"
    )
    target_sd: float = Field(description="its posterior standard deviation")
    target_misorder: float = Field(description="posterior probability that the pair is in the wrong order")
    ranking: list[str] = Field(description="the posterior ranking the wave was chosen from")
    judgments_used: int = Field(ge=0, description="verdicts the wave was chosen from")
    budget: int = Field(ge=1, description="the run's --budget when the wave was chosen")
    seed: int
    why: str = Field(description="the reason in words")


def decision(
    choice: Choice,
    wave: int,
    position: int,
    debate_id: str,
    topic: str,
    ranking: list[str],
    n_judgments: int,
    budget: int,
    seed: int,
) -> ScheduleDecision:
    (a, b), s = choice.target, choice.slot
    why = (
        f"{s.side1} vs {s.side2} ({choice.leg}): expected to settle {a} vs {b} most (difference "
        f"{choice.target_difference:+.2f} ± {choice.target_sd:.2f} logits, P(wrong order) {choice.target_misorder:.2f})"
    )
    return ScheduleDecision(
        wave=wave,
        position=position,
        debate_id=debate_id,
        topic=topic,
        side1=choice.slot.side1,
        side2=choice.slot.side2,
        leg=choice.leg,
        utility=choice.utility,
        target=list(choice.target),
        target_difference=choice.target_difference,
        target_sd=choice.target_sd,
        target_misorder=choice.target_misorder,
        ranking=ranking,
        judgments_used=n_judgments,
        budget=budget,
        seed=seed,
        why=why,
    )


def _good_lines(path: Path) -> tuple[list[ScheduleDecision], int]:
    """The complete decisions (a debate chosen twice counts once: the first) and where they end."""
    out, seen, end = [], set(), 0
    if path.exists():
        for offset, length, d in read_log(path, ScheduleDecision, bad_line="stop"):
            if d.debate_id not in seen:
                seen.add(d.debate_id)
                out.append(d)
            end = offset + length
    return out, end


def read_decisions(path: Path) -> list[ScheduleDecision]:
    """Every complete decision, in the order chosen (a torn last line is not one)."""
    return _good_lines(path)[0]


def append_decisions(path: Path, decisions: list[ScheduleDecision]) -> None:
    """Appended and flushed to disk before the debates run; a torn or damaged tail (a process killed
    while writing it) is cut off first. The caller holds the run's lock."""
    _, end = _good_lines(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.exists() and path.stat().st_size > end:
        with open(path, "r+b") as fh:
            fh.truncate(end)
    with open(path, "a", encoding="utf-8") as fh:
        fh.write("".join(d.model_dump_json() + "\n" for d in decisions))
        fh.flush()
        os.fsync(fh.fileno())


def schedule_decision_json_schema() -> dict[str, Any]:
    return document_schema(
        ScheduleDecision,
        slug="schedule_decision",
        version=SCHEDULE_SCHEMA_VERSION,
        title="debench arena adaptive schedule decision (one line of schedule.jsonl)",
    )


ADAPTIVE_NOTE = (
    "adaptive design: the debates were chosen wave by wave from the verdicts of earlier waves, so pairs were not "
    "chosen independently of outcomes. The Bradley-Terry scores are estimated as usual (the likelihood does not depend "
    "on a rule that chooses pairs from past outcomes), but the intervals resample topics as if the debates held were "
    "fixed in advance: pairs whose order was in doubt met more often and have narrower intervals, pairs far apart met "
    "rarely and rest on comparisons through other models, and the intervals do not account for the choice itself (read "
    "them as approximate). Topic wins and the win matrix count unequal numbers of meetings while the design is "
    "unbalanced (the ranking is then by Bradley-Terry score)"
)


def schedule_summary(table: JudgmentTable) -> tuple[ScheduleSummary, list[str]]:
    """How the judgments' debates were chosen, and the note an adaptive design needs."""
    legs = table.select(table.ranked)
    _, first = group_ids(legs.topic, legs.side1, legs.side2)
    k = len(legs.debaters())
    n_topics = len(np.unique(legs.topic))
    possible = n_topics * k * (k - 1)
    if table.waves:
        return ScheduleSummary(how="adaptive", n_debates=len(first), n_possible=possible, n_waves=len(table.waves)), [
            ADAPTIVE_NOTE
        ]
    how: Literal["round_robin", "other"] = "round_robin" if len(first) == possible and possible else "other"
    return ScheduleSummary(how=how, n_debates=len(first), n_possible=possible), []
