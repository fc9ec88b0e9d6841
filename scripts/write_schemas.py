"""Regenerate the JSON Schema files in debench/schema/ from the pydantic models.

python scripts/write_schemas.py          # write
python scripts/write_schemas.py --check  # exit 1 if the committed files are stale
"""

from __future__ import annotations

import json
import sys

from debench.arena.adaptive_schedule import SCHEDULE_SCHEMA_PATH, schedule_decision_json_schema
from debench.arena.judgments import JUDGMENT_SCHEMA_PATH, judgment_json_schema
from debench.arena.ranking_file import ARENA_RANKING_SCHEMA_PATH, arena_ranking_json_schema
from debench.card.model import CARD_SCHEMA_PATH, card_json_schema
from debench.leaderboard.board import SCHEMA_PATH as LEADERBOARD_SCHEMA_PATH
from debench.leaderboard.board import leaderboard_json_schema
from debench.leaderboard.maintainers import MAINTAINERS_SCHEMA_PATH, maintainers_json_schema
from debench.leaderboard.reported import REPORTED_SCHEMA_PATH, reported_json_schema
from debench.leaderboard.trusted import TRUSTED_SCHEMA_PATH, trusted_json_schema
from debench.probes.memorization import MEMORIZATION_SCHEMA_PATH, memorization_json_schema
from debench.probes.report import PROBE_SCHEMA_PATH, probe_report_json_schema
from debench.scoring.group_summary import GROUP_SUMMARY_SCHEMA_PATH, group_summary_json_schema
from debench.scoring.repeats import SCHEMA_PATH as REPEATS_SCHEMA_PATH
from debench.scoring.repeats import repeats_json_schema
from debench.scoring.results import SCHEMA_PATH, results_json_schema
from debench.speeches.report import SPEECH_RATING_SCHEMA_PATH, speech_rating_json_schema
from debench.task.config import task_json_schema

TARGETS = {
    SCHEMA_PATH: results_json_schema,
    SCHEMA_PATH.parent / "task.schema.json": task_json_schema,
    LEADERBOARD_SCHEMA_PATH: leaderboard_json_schema,
    REPORTED_SCHEMA_PATH: reported_json_schema,
    TRUSTED_SCHEMA_PATH: trusted_json_schema,
    MAINTAINERS_SCHEMA_PATH: maintainers_json_schema,
    PROBE_SCHEMA_PATH: probe_report_json_schema,
    REPEATS_SCHEMA_PATH: repeats_json_schema,
    SPEECH_RATING_SCHEMA_PATH: speech_rating_json_schema,
    ARENA_RANKING_SCHEMA_PATH: arena_ranking_json_schema,
    JUDGMENT_SCHEMA_PATH: judgment_json_schema,
    SCHEDULE_SCHEMA_PATH: schedule_decision_json_schema,
    GROUP_SUMMARY_SCHEMA_PATH: group_summary_json_schema,
    MEMORIZATION_SCHEMA_PATH: memorization_json_schema,
    CARD_SCHEMA_PATH: card_json_schema,
}


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for path, make in TARGETS.items():
        text = json.dumps(make(), indent=2, sort_keys=True) + "\n"
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(path)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    for p in stale:
        print(f"stale schema: {p} (run python scripts/write_schemas.py)")
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
