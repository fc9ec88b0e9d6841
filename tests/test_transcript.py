"""The one speech header: every adapter's transcripts and Debatrix's notes keep the text judges read."""

from __future__ import annotations

from conftest import real_data_dir

from debench.data.base import Speech, get_adapter
from debench.data.transcript import SIDE_AND_SPEAKER, SpeechHeader, format_transcript
from debench.judging import debatrix


def test_headers_of_each_format() -> None:
    s = Speech(speaker="alice", side="pro", text="x")
    assert SIDE_AND_SPEAKER(2, s) == "[Speech 3 — pro (alice)]"
    assert debatrix.speech_label(0, Speech(speaker="alice", text="x")) == "[Speech 1 (alice)]"
    assert get_adapter("debateart").speech_label(0, s) == "[Speech 1 — pro (alice)]"
    bp = Speech(speaker="Opening_Government_(OG)", side="OG", text="x")
    assert get_adapter("bp_competition").speech_label(4, bp) == "[Speech 5 — Opening Government (OG)]"
    pm = Speech(speaker="pm", side="OG", text="x")
    assert get_adapter("debatebench").speech_label(0, pm) == "[PM — Prime Minister (OG)]"
    # a speaker-less speech (a generic data set) drops the empty parentheses
    assert SIDE_AND_SPEAKER(0, Speech(speaker="", side="con", text="x")) == "[Speech 1 — con]"
    assert SpeechHeader(title_from="speaker")(0, Speech(speaker="", text="x")) == "[Speech 1]"


def test_real_debateart_transcript_layout() -> None:
    directory = real_data_dir("debatrix_panelbench") / "DebateArt"
    doc = get_adapter("debateart").load(directory)[0]
    transcript = doc.fields["transcript"]
    assert transcript == format_transcript(doc.speeches, SIDE_AND_SPEAKER)
    first = doc.speeches[0]
    assert transcript.startswith(f"[Speech 1 — {first.side} ({first.speaker})]\n{first.text.strip()[:40]}")
    assert transcript.count("[Speech ") == len(doc.speeches)
