"""British Parliamentary competition debates as published in Debatrix's PanelBench
(``BP-Competition/`` folder): ``motion/bp_NNN.yml``, ``speech/bp_NNN.yml`` (8 items of
{speaker_name, content}; the speaker is a team such as ``Opening_Government_(OG)``),
``motion/motion_list.txt`` (round names) and ``gold/gold.csv`` (winning team(s): the winner of
a final, or the two teams that advanced, e.g. ``"OG,CG"``).
"""

from __future__ import annotations

import re
from pathlib import Path

from debench.core.errors import DataError
from debench.core.user_files import DEBATE_FILE, read_text
from debench.data.base import Doc, Speech, register_adapter
from debench.data.files import as_int, panelbench_fields, read_csv, read_panelbench_debate
from debench.data.transcript import SpeechHeader, format_transcript

TEAMS = ("OG", "OO", "CG", "CO")
TEAM_NAMES = {
    "OG": "Opening Government",
    "OO": "Opening Opposition",
    "CG": "Closing Government",
    "CO": "Closing Opposition",
}
ORDER = ("OG", "OO", "OG", "OO", "CG", "CO", "CG", "CO")


def team_of(speaker: str) -> str | None:
    m = re.search(r"\((OG|OO|CG|CO)\)", speaker)
    return m.group(1) if m else None


def gold_table(directory: Path) -> dict[str, list[str]]:
    path = directory / "gold" / "gold.csv"
    out: dict[str, list[str]] = {}
    for row in read_csv(path, ["bp_id", "label"]):
        teams = [t.strip().upper() for t in row["label"].split(",") if t.strip()]
        if not teams or any(t not in TEAMS for t in teams):
            raise DataError(
                f"bp_id {row['bp_id']}: label {row['label']!r} names no known team", path=str(path), field="label"
            )
        out[f"bp_{as_int(row['bp_id'], path, 'bp_id'):03d}"] = teams
    return out


def round_names(directory: Path) -> dict[str, str]:
    path = directory / "motion" / "motion_list.txt"
    if not path.exists():
        return {}
    names = {}
    for line in read_text(path, DEBATE_FILE).splitlines():
        doc_id, _, rest = line.partition("\t")
        names[doc_id.strip()] = rest.split(":", 1)[0].strip()
    return names


speech_label = SpeechHeader(title_from="side", names=TEAM_NAMES, tag="side")
"""``[Speech 1 — Opening Government (OG)]``"""


@register_adapter("bp_competition", patterns=["motion/*", "speech/*.yml", "gold/*.csv"], speech_label=speech_label)
def load_bp(directory: Path) -> list[Doc]:
    directory = Path(directory)
    gold = gold_table(directory)
    rounds = round_names(directory)
    docs = []
    for doc_id in sorted(gold):
        motion, raw, _, spath = read_panelbench_debate(directory, doc_id)
        speeches = []
        for k, item in enumerate(raw):
            if not isinstance(item, dict) or "speaker_name" not in item or "content" not in item:
                raise DataError(f"speech {k + 1} lacks speaker_name/content", path=str(spath), field="speaker_name")
            team = team_of(str(item["speaker_name"]))
            if team is None:
                raise DataError(
                    f"speech {k + 1}: no team in '{item['speaker_name']}'", path=str(spath), field="speaker_name"
                )
            speeches.append(Speech(speaker=str(item["speaker_name"]), side=team, text=str(item["content"])))
        if tuple(s.side for s in speeches) != ORDER:
            raise DataError(f"speeches are not in BP order {'-'.join(ORDER)}", path=str(spath), field="speaker_name")
        docs.append(
            Doc(
                doc_id=doc_id,
                fields=panelbench_fields(
                    motion, format_transcript(speeches, speech_label), round=rounds.get(doc_id, "")
                ),
                speeches=speeches,
                target=gold[doc_id],
                label=gold[doc_id][0],
                meta={"n_winners": len(gold[doc_id]), "round": rounds.get(doc_id, "")},
            )
        )
    return docs
