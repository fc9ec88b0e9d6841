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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debench.core.errors import DataError
from debench.core.user_files import DATA_FILE, DEBATE_FILE, open_bounded, read_bytes
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


@dataclass
class _Segment:
    """One speech as the scan found it: the tag that opened it, its text in pieces, its points of
    information."""

    tag: str
    parts: list[str] = field(default_factory=list)
    pois: int = 0

    def body(self) -> str:
        return "".join(self.parts).strip()

    def add_poi(self, text: str) -> None:
        self.parts.append(f"[Point of information: {' '.join(text.split())}]")
        self.pois += 1


def _closes_poi(tag: re.Match[str] | None) -> bool:
    return tag is not None and tag.group(1) == "/" and tag.group(2).lower() == "poi"


class _Scanner:
    """Splits a transcript on its opening role tags, outside points of information, and notes
    what it had to guess."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.segments: list[_Segment] = []
        self.poi: str | None = None
        """The text of the point of information open at this point (None: none is)."""
        self.warnings: list[str] = []

    def scan(self) -> list[_Segment]:
        tags = list(TAG.finditer(self.text))
        pos = 0
        for i, tag in enumerate(tags):
            self._take(self.text[pos : tag.start()])
            pos = tag.end()
            self._tag(tag, tags[i + 1] if i + 1 < len(tags) else None)
        self._finish(self.text[pos:])
        return self.segments

    def _take(self, chunk: str) -> None:
        """Text between two tags: into the open point of information, else the current speech."""
        if self.poi is not None:
            self.poi += chunk
        elif self.segments:
            self.segments[-1].parts.append(chunk)

    def _tag(self, tag: re.Match[str], nxt: re.Match[str] | None) -> None:
        closing, name = tag.group(1) == "/", tag.group(2).lower()
        if name == "poi" or self.poi is not None:
            self._poi_tag(closing, name)
        elif closing:
            return  # a speech ends where the next one opens
        elif self.segments and _closes_poi(nxt):
            # A role tag opened where the next tag closes a POI: a POI mistyped as a role tag.
            self.warnings.append(f"a point of information was opened with <{tag.group(2)}>")
            self.poi = ""
        elif self._closes_own_speech(tag, name, nxt):
            self.warnings.append(f"<{tag.group(2)}> used as a closing tag")
        else:
            self.segments.append(_Segment(name))

    def _poi_tag(self, closing: bool, name: str) -> None:
        """A tag met while a point of information is open, or a POI tag: role tags inside a point
        of information are its text's."""
        if not closing and name == "poi":
            self.poi = ""
        elif closing and name == "poi" and self.poi is not None:
            if self.segments:
                self.segments[-1].add_poi(self.poi)
            self.poi = None

    def _closes_own_speech(self, tag: re.Match[str], name: str, nxt: re.Match[str] | None) -> bool:
        """An opener of the same role as the current speech, with nothing after it, used as the
        closer of that speech."""
        last = self.segments[-1] if self.segments else None
        if last is None or last.tag != name or not last.body():
            return False
        following = self.text[tag.end() : nxt.start() if nxt else len(self.text)]
        return not following.strip()

    def _finish(self, tail: str) -> None:
        if not self.segments:
            return
        if self.poi is not None:
            self.segments[-1].add_poi(self.poi + tail)
            self.warnings.append("a point of information is never closed")
        else:
            self.segments[-1].parts.append(tail)


def _motion(text: str) -> str:
    """The motion of a transcript whose first line is ``Motion: ...`` ("" otherwise)."""
    first = text.lstrip().split("\n", 1)[0]
    return first.split(":", 1)[1].strip() if first.lower().startswith("motion:") else ""


def _by_role(segments: list[_Segment], warnings: list[str]) -> dict[str, _Segment]:
    """Eight speeches take the eight roles by position; otherwise each role takes the first speech
    tagged with it."""
    if len(segments) != len(ROLES):
        warnings.append(f"{len(segments)} speeches found instead of 8 ({', '.join(s.tag for s in segments)})")
        by_role: dict[str, _Segment] = {}
        for seg in segments:
            if seg.tag in ROLES and seg.tag not in by_role:
                by_role[seg.tag] = seg
        return by_role
    for n, (role, seg) in enumerate(zip(ROLES, segments, strict=True)):
        if seg.tag != role:
            warnings.append(f"speech {n + 1} tagged <{seg.tag}>, taken as {role}")
    return dict(zip(ROLES, segments, strict=True))


def _speech(role: str, found: _Segment | None, warnings: list[str]) -> Speech:
    body = found.body() if found else ""
    if found is None:
        warnings.append(f"no {role} speech")
    elif not body:
        warnings.append(f"the {role} speech is empty")
    return Speech(speaker=role, side=HOUSE_OF[role], text=re.sub(r"[ \t]*\n\s*\n+", "\n\n", body))


def parse_transcript(text: str) -> tuple[list[Speech], dict[str, Any]]:
    """Eight role speeches (possibly empty) and a report of what had to be guessed."""
    scanner = _Scanner(text)
    segments = scanner.scan()
    warnings = scanner.warnings
    by_role = _by_role(segments, warnings)
    speeches = [_speech(role, by_role.get(role), warnings) for role in ROLES]
    n_pois = sum(seg.pois for seg in by_role.values())
    return speeches, {"motion": _motion(text), "parse_warnings": warnings, "n_pois": n_pois}


def _member_text(zf: zipfile.ZipFile, info: zipfile.ZipInfo, archive: Path) -> str:
    """One transcript of the archive, unpacked no further than the ceiling of one debate's file."""
    with zf.open(info) as member:
        data = member.read(DEBATE_FILE.max_bytes + 1)
    if len(data) > DEBATE_FILE.max_bytes:
        raise DataError(
            f"member {info.filename} unpacks to more than {DEBATE_FILE.max_bytes:,} bytes, the ceiling of "
            "one debate's file (docs/errors.md, Ceilings)",
            path=str(archive),
        )
    return data.decode("utf-8", errors="replace")


def _read_transcripts(directory: Path) -> dict[str, tuple[str, str]]:
    """normalized name -> (file stem, text), from the zip or an extracted folder."""
    out: dict[str, tuple[str, str]] = {}
    archive = directory / "Cleaned Speeches.zip"
    if archive.exists():
        try:
            with open_bounded(archive, DATA_FILE) as raw, zipfile.ZipFile(raw) as zf:
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
                    out[normalize_name(stem)] = (stem, _member_text(zf, info, archive))
        except zipfile.BadZipFile:
            raise DataError("not a readable zip archive", path=str(archive)) from None
        return out
    for folder in ("cleaned_speeches", "Cleaned Speeches"):
        d = directory / folder
        if d.is_dir():
            for p in sorted(d.rglob("*.txt")):
                if "__MACOSX" not in p.parts:
                    out[normalize_name(p.stem)] = (p.stem, read_bytes(p, DEBATE_FILE).decode("utf-8", errors="replace"))
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
        with open_bounded(path, DATA_FILE) as fh:
            df = pd.read_excel(fh)
    except DataError:
        raise
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
            "missing the gold file scores.xlsx (speaker scores and house ranks); put the published file from the "
            "Hugging Face data set utkarsh2105/DebateBench there, run online (--data-source hub), or try the task on "
            "debench's small sample (--data-source sample)",
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
