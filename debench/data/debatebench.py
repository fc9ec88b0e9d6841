"""DebateBench (Tiwari et al. 2025) in its published form (HF ``utkarsh2105/DebateBench``):
``scores.xlsx`` (Tourney, PM, LO, DPM, DLO, MG, MO, GW, OW, First, Second, Third, Fourth) and
``Cleaned Speeches.zip`` (one .txt per debate; speeches in role tags ``<pm>…</pm>`` … ``<ow>…</ow>``,
points of information in ``<poi>…</poi>``). An extracted folder (``cleaned_speeches/`` or
``Cleaned Speeches/``) works too.

The transcripts are hand-tagged and messy (upper-case tags, a wrong role in a tag, a closing tag
of another role, a missing closer, an opener used as a closer, a POI opened with a role tag). The
parser splits on opening role tags, outside points of information, and assigns the eight roles by
position when there are exactly eight speeches; whatever it had to guess is listed in
``meta["parse_warnings"]``.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path
from typing import Any

from debench.core.errors import DataError
from debench.data.base import Doc, Speech, register_adapter
from debench.data.transcript import SpeechHeader, format_transcript

ROLES = ("pm", "lo", "dpm", "dlo", "mg", "mo", "gw", "ow")
HOUSE_OF = {"pm": "OG", "dpm": "OG", "lo": "OO", "dlo": "OO", "mg": "CG", "gw": "CG", "mo": "CO", "ow": "CO"}
ROLE_NAMES = {
    "pm": "Prime Minister",
    "lo": "Leader of the Opposition",
    "dpm": "Deputy Prime Minister",
    "dlo": "Deputy Leader of the Opposition",
    "mg": "Member of Government",
    "mo": "Member of Opposition",
    "gw": "Government Whip",
    "ow": "Opposition Whip",
}
HOUSES = ("OG", "OO", "CG", "CO")
SCORE_COLUMNS = ["Tourney", "PM", "LO", "DPM", "DLO", "MG", "MO", "GW", "OW", "First", "Second", "Third", "Fourth"]
TAG = re.compile(r"<\s*(/?)\s*(pm|lo|dpm|dlo|mg|mo|gw|ow|og|oo|cg|co|poi)\s*[>?:]", re.IGNORECASE)


def normalize_name(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def parse_transcript(text: str) -> tuple[list[Speech], dict[str, Any]]:
    """Eight role speeches (possibly empty) and a report of what had to be guessed."""
    warnings: list[str] = []
    motion = ""
    first = text.lstrip().split("\n", 1)[0]
    if first.lower().startswith("motion:"):
        motion = first.split(":", 1)[1].strip()
    tags = list(TAG.finditer(text))
    segments: list[dict[str, Any]] = []  # {tag, parts: [str], pois: [str]}
    in_poi: dict[str, Any] | None = None
    pos = 0
    for i, m in enumerate(tags):
        closing, name = m.group(1) == "/", m.group(2).lower()
        chunk = text[pos : m.start()]
        pos = m.end()
        if in_poi is not None:
            in_poi["text"] += chunk
        elif segments:
            segments[-1]["parts"].append(chunk)
        if name == "poi" or in_poi is not None:
            if not closing and name == "poi":
                in_poi = {"text": ""}
            elif closing and name == "poi" and in_poi is not None:
                if segments:
                    segments[-1]["parts"].append(f"[Point of information: {' '.join(in_poi['text'].split())}]")
                    segments[-1]["pois"] += 1
                in_poi = None
            continue
        if closing:
            continue
        # A role tag opened where the next tag closes a POI: a POI mistyped as a role tag.
        nxt = tags[i + 1] if i + 1 < len(tags) else None
        if segments and nxt is not None and nxt.group(1) == "/" and nxt.group(2).lower() == "poi":
            warnings.append(f"a point of information was opened with <{m.group(2)}>")
            in_poi = {"text": ""}
            continue
        # An opener of the same role, with nothing after it, used as the closer of that speech.
        if segments and segments[-1]["tag"] == name and "".join(segments[-1]["parts"]).strip():
            following = text[m.end() : nxt.start() if nxt else len(text)]
            if not following.strip():
                warnings.append(f"<{m.group(2)}> used as a closing tag")
                continue
        segments.append({"tag": name, "parts": [], "pois": 0})
    if segments:
        tail = text[pos:]
        if in_poi is not None:
            segments[-1]["parts"].append(f"[Point of information: {' '.join((in_poi['text'] + tail).split())}]")
            segments[-1]["pois"] += 1
            warnings.append("a point of information is never closed")
        else:
            segments[-1]["parts"].append(tail)
    tags_seen = [s["tag"] for s in segments]
    if len(segments) != len(ROLES):
        warnings.append(f"{len(segments)} speeches found instead of 8 ({', '.join(tags_seen)})")
    by_role: dict[str, dict[str, Any]] = {}
    if len(segments) == len(ROLES):
        for role, seg in zip(ROLES, segments, strict=True):
            if seg["tag"] != role:
                warnings.append(f"speech {ROLES.index(role) + 1} tagged <{seg['tag']}>, taken as {role}")
            by_role[role] = seg
    else:
        for seg in segments:
            if seg["tag"] in ROLES and seg["tag"] not in by_role:
                by_role[seg["tag"]] = seg
    speeches = []
    n_pois = 0
    for role in ROLES:
        found = by_role.get(role)
        body = "".join(found["parts"]).strip() if found else ""
        if found is None:
            warnings.append(f"no {role} speech")
        elif not body:
            warnings.append(f"the {role} speech is empty")
        n_pois += found["pois"] if found else 0
        speeches.append(Speech(speaker=role, side=HOUSE_OF[role], text=re.sub(r"[ \t]*\n\s*\n+", "\n\n", body)))
    return speeches, {"motion": motion, "parse_warnings": warnings, "n_pois": n_pois}


def _read_transcripts(directory: Path) -> dict[str, tuple[str, str]]:
    """normalized name -> (file stem, text), from the zip or an extracted folder."""
    out: dict[str, tuple[str, str]] = {}
    archive = directory / "Cleaned Speeches.zip"
    if archive.is_file():
        try:
            with zipfile.ZipFile(archive) as zf:
                for info in zf.infolist():
                    name = info.filename
                    if (
                        info.is_dir()
                        or not name.lower().endswith(".txt")
                        or "__MACOSX" in name
                        or Path(name).name.startswith("._")
                    ):
                        continue
                    stem = Path(name).stem
                    out[normalize_name(stem)] = (stem, zf.read(info).decode("utf-8", errors="replace"))
        except zipfile.BadZipFile:
            raise DataError("not a readable zip archive", path=str(archive)) from None
        return out
    for folder in ("cleaned_speeches", "Cleaned Speeches"):
        d = directory / folder
        if d.is_dir():
            for p in sorted(d.rglob("*.txt")):
                if "__MACOSX" not in p.parts:
                    out[normalize_name(p.stem)] = (p.stem, p.read_text(encoding="utf-8", errors="replace"))
            return out
    raise DataError(
        "no transcripts: expected 'Cleaned Speeches.zip' or a 'cleaned_speeches/' folder", path=str(directory)
    )


def normalize_house(value: Any, path: Path, row: int, column: str) -> str:
    v = str(value).strip().lower()
    if v.upper() in HOUSES:
        return v.upper()
    words = re.sub(r"[^a-z ]", " ", v)
    opening = "open" in words or words.startswith("o")
    if "gov" in words or "prop" in words:
        return "OG" if opening and "clos" not in words else "CG"
    if "opp" in words:
        return "OO" if "open" in words else "CO"
    raise DataError(f"row {row}: '{value}' is not a house (OG/OO/CG/CO)", path=str(path), field=column)


def read_scores(path: Path) -> dict[str, dict[str, Any]]:
    """Tourney -> {"ranking": [...], "scores": {role: float}} from ``scores.xlsx``."""
    import pandas as pd

    try:
        df = pd.read_excel(path)
    except FileNotFoundError:
        raise DataError("file not found", path=str(path)) from None
    except Exception as exc:  # noqa: BLE001 - openpyxl raises many kinds for a broken file
        raise DataError(f"not a readable spreadsheet ({exc.__class__.__name__})", path=str(path)) from None
    df.columns = [str(c).strip() for c in df.columns]
    missing = [c for c in SCORE_COLUMNS if c not in df.columns]
    if missing:
        raise DataError(f"missing column(s) {', '.join(missing)}", path=str(path), field=missing[0])
    out: dict[str, dict[str, Any]] = {}
    for i, row in enumerate(df.to_dict("records"), start=2):
        name = str(row["Tourney"]).strip()
        if not name or name.lower() == "nan":
            continue
        scores = {}
        for role in ROLES:
            try:
                scores[role] = float(row[role.upper()])
            except (TypeError, ValueError):
                raise DataError(
                    f"row {i}: score {row[role.upper()]!r} is not a number", path=str(path), field=role.upper()
                ) from None
        ranking = [normalize_house(row[c], path, i, c) for c in ("First", "Second", "Third", "Fourth")]
        if sorted(ranking) != sorted(HOUSES):
            raise DataError(f"row {i}: ranking {ranking} does not name each house once", path=str(path), field="First")
        out[name] = {"ranking": ranking, "scores": scores}
    return out


speech_label = SpeechHeader(head="speaker", title_from="speaker", names=ROLE_NAMES, tag="side")
"""``[PM — Prime Minister (OG)]``"""


@register_adapter(
    "debatebench",
    patterns=["scores.xlsx", "Cleaned Speeches.zip", "cleaned_speeches/*.txt", "Cleaned Speeches/*.txt"],
    speech_label=speech_label,
)
def load_debatebench(directory: Path, require_labels: bool = True) -> list[Doc]:
    directory = Path(directory)
    transcripts = _read_transcripts(directory)
    scores_path = directory / "scores.xlsx"
    if scores_path.exists():
        gold = read_scores(scores_path)
    elif require_labels:
        raise DataError(
            "missing the gold file scores.xlsx (speaker scores and house ranks); put the published file from the Hugging Face data set "
            "utkarsh2105/DebateBench there, run online (--data-source hub), or try the task on debench's small sample (--data-source sample)",
            path=str(scores_path),
        )
    else:
        gold = None
    items: list[tuple[str, str, Any]] = []
    if gold is None:
        items = [(stem, text, None) for stem, text in (transcripts[k] for k in sorted(transcripts))]
    else:
        for name, target in gold.items():
            key = normalize_name(name)
            match = transcripts.get(key) or next((v for k, v in sorted(transcripts.items()) if k.startswith(key)), None)
            if match is None:
                raise DataError(f"no transcript for the debate '{name}'", path=str(scores_path), field="Tourney")
            items.append((name, match[1], target))
    docs = []
    for doc_id, text, target in items:
        speeches, info = parse_transcript(text)
        transcript = format_transcript(speeches, speech_label)
        docs.append(
            Doc(
                doc_id=doc_id,
                fields={"motion": info["motion"], "transcript": transcript, "n_tokens_estimate": len(transcript) // 4},
                speeches=speeches,
                target=target,
                label=target["ranking"][0] if target else None,
                meta=info,
            )
        )
    return docs
