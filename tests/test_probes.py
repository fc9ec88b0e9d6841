"""Bias probes on the real debates: baselines whose bias is known by construction, transforms
checked against the raw data, and stub judges with realistic raw answers (one that obeys the
injected line, one that quotes it, one that only echoes it, one that never answers)."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir, split_sentences

from debench.data.bp_competition import load_bp
from debench.data.debateart import load_debateart
from debench.data.samples import read_records
from debench.models.factory import make_model, parse_model_args
from debench.probes.base import parse_probe_specs
from debench.probes.report import ProbeReport, validate_probe_report
from debench.probes.run import ProbeOptions, run_probes
from debench.run.task_lookup import load_task
from debench.task.parsing import parse_answer
from debench.testing.stub_server import StubServer


def probe(task: str, model: str, probes: str, out: Path, api_base: str | None = None, **kw: Any):
    real_data_dir("debatrix_panelbench")
    t, path = load_task(task)
    m = make_model(model, api_bases=[api_base] if api_base else None, model_args=parse_model_args("max_retries=0"))
    opts = ProbeOptions(output_dir=out, data_source="local", data_dir=str(DATA_DIR), progress=False, **kw)
    return asyncio.run(run_probes(t, path, m, parse_probe_specs(probes), opts))


def pairs(out) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.pairs_path.read_text().splitlines()]


def debateart() -> list:
    return load_debateart(real_data_dir("debatrix_panelbench") / "DebateArt")


def bp() -> list:
    return load_bp(real_data_dir("debatrix_panelbench") / "BP-Competition")


# ---------------------------------------------------------------- baselines: bias by construction


@pytest.mark.parametrize("baseline", ["last", "first"])
@pytest.mark.real_data("counts over the 22 BP and 100 DebateArt debates (the samples have 2 and 4)")
def test_speaker_baselines_flip_on_every_swapped_debate(tmp_path: Path, baseline: str) -> None:
    out = probe("debateart_winner", f"baseline/{baseline}", "swap", tmp_path)
    s = out.report.probes["swap_sides"]
    assert list(out.report.probes) == ["swap_sides"]  # relabel_teams (from the alias) applies to no 1v1 debate
    assert s.n_docs == 100 and s.n_not_applicable == 0
    assert s.flip_rate.value == 1.0 and s.flip_rate.k == 100 and s.flip_rate.ci95[0] > 0.95
    for shares in (s.original_shares, s.probed_shares):
        own = shares.last_speaker if baseline == "last" else shares.first_speaker
        other = shares.first_speaker if baseline == "last" else shares.last_speaker
        assert own.value == 1.0 and own.n == 100 and other.value == 0.0
    assert s.chance_share == 0.5
    # independent check of the swapped order and of the verdicts, from the raw debates
    docs = {d.doc_id: d for d in debateart()}
    for p in pairs(out):
        d = docs[p["source_id"]]
        sides = [x.side for x in d.speeches]
        first, second = sides[0], next(x for x in sides if x != sides[0])
        assert p["original"]["verdict"] == (sides[-1] if baseline == "last" else sides[0])
        assert p["probed"]["first_speaker"] == second and p["probed"]["last_speaker"] == first  # even turns
        assert p["flipped"] is True and p["label_map"] == {}
    probed = {r.doc_id: r for r in read_records(out.samples_path) if "#swap_sides:" in r.doc_id}
    assert len(probed) == 100


def test_swapped_debate_keeps_each_sides_speeches_in_order(tmp_path: Path) -> None:
    from debench.data.base import get_adapter
    from debench.probes.base import ProbeContext, get_probe

    task, _ = load_task("debateart_winner")
    ctx = ProbeContext(task=task, speech_label=get_adapter("debateart").speech_label)
    for d in debateart():
        p = get_probe("swap_sides").apply(d, ctx, None)
        assert p is not None and p.doc.doc_id.startswith(d.doc_id + "#swap_sides:")
        for side in ("pro", "con"):
            assert [s.text for s in p.doc.speeches if s.side == side] == [s.text for s in d.speeches if s.side == side]
        assert [s.side for s in p.doc.speeches] == [("con" if s.side == "pro" else "pro") for s in d.speeches]
        headers = re.findall(r"\[Speech (\d+) — (pro|con) \(", p.doc.fields["transcript"])
        assert [h[1] for h in headers] == [s.side for s in p.doc.speeches]
        assert [int(h[0]) for h in headers] == list(range(1, len(d.speeches) + 1))


@pytest.mark.real_data("counts over the 22 BP and 100 DebateArt debates (the samples have 2 and 4)")
def test_bp_relabel_separates_position_from_label(tmp_path: Path) -> None:
    last = probe("bp_top_team", "baseline/last", "swap", tmp_path / "last")
    s = last.report.probes["relabel_teams"]
    assert list(last.report.probes) == ["relabel_teams"] and s.n_docs == 22
    # a position-driven judge: still the last team after mapping back, so no flip
    assert s.flip_rate.value == 0.0 and s.flip_rate.n == 22
    assert s.original_shares.last_speaker.value == 1.0 and s.probed_shares.last_speaker.value == 1.0
    assert s.chance_share == 0.25
    for p in pairs(last):
        assert p["probed"]["raw_prediction"] == "OG" and p["probed"]["verdict"] == "CO"  # CO is presented as OG
    # a label-driven judge ("CO wins"): follows the label, so every verdict moves to the team shown as CO
    const = probe("bp_top_team", "baseline/constant:CO", "relabel_teams", tmp_path / "const")
    c = const.report.probes["relabel_teams"]
    assert c.flip_rate.value == 1.0
    assert c.original_shares.last_speaker.value == 1.0 and c.probed_shares.last_speaker.value == 0.0
    assert c.probed_shares.first_speaker.value == 1.0  # the team shown as CO is the true OG, which opens
    assert {p["probed"]["verdict"] for p in pairs(const)} == {"OG"}


def test_bp_relabel_rewrites_headers_speakers_and_mentions() -> None:
    from debench.data.base import get_adapter
    from debench.probes.base import ProbeContext, get_probe

    task, _ = load_task("bp_top_team")
    ctx = ProbeContext(task=task, speech_label=get_adapter("bp_competition").speech_label)
    swap = {"OG": "CO", "OO": "CG", "CG": "OO", "CO": "OG"}
    full = {
        "OG": "opening government",
        "OO": "opening opposition",
        "CG": "closing government",
        "CO": "closing opposition",
    }
    for d in bp():
        p = get_probe("relabel_teams").apply(d, ctx, None)
        assert p.label_map == {v: k for k, v in swap.items()}
        assert [s.side for s in p.doc.speeches] == ["CO", "CG", "CO", "CG", "OO", "OG", "OO", "OG"]
        headers = re.findall(r"\[Speech \d+ — ([A-Za-z ]+) \((OG|OO|CG|CO)\)\]", p.doc.fields["transcript"])
        assert [h[1] for h in headers] == [s.side for s in p.doc.speeches]
        assert all(s.speaker.endswith(f"({s.side})") for s in p.doc.speeches)
        for team, name in full.items():  # every mention moved to the new label: counts carry over exactly

            def mentions(n: str, texts: list[str]) -> int:  # whole words; a plural counts ("opening governments")
                return sum(
                    len(re.findall(r"(?<![a-z])" + n.replace(" ", "[ _]") + r"s?(?![a-z])", t, re.I)) for t in texts
                )

            before = mentions(name, [s.text for s in d.speeches])
            after = mentions(full[swap[team]], [s.text for s in p.doc.speeches])
            assert before == after, (d.doc_id, team)
            before = sum(len(re.findall(rf"\b{team}\b", s.text)) for s in d.speeches)
            after = sum(len(re.findall(rf"\b{swap[team]}\b", s.text)) for s in p.doc.speeches)
            assert before == after, (d.doc_id, team)


def _words(doc, side: str) -> int:
    return sum(len(s.text.split()) for s in doc.speeches if s.side == side)


@pytest.mark.real_data("counts over the 22 BP and 100 DebateArt debates (the samples have 2 and 4)")
def test_length_probes_with_the_longest_side_baseline(tmp_path: Path) -> None:
    out = probe("debateart_winner", "baseline/longest", "length", tmp_path)
    pad, trim = out.report.probes["pad_length"], out.report.probes["trim_length"]
    for s in (pad, trim):  # the baseline always names the side with the most words, as presented
        assert s.original_shares.longest_side.value == 1.0 and s.probed_shares.longest_side.value == 1.0
    # padding makes the shortest side the longest: the baseline moves to it on every debate
    assert pad.effect.name == "padded_side_gain" and pad.effect.rate.value == 1.0 and pad.effect.rate.n == 100
    assert pad.flip_rate.value == 1.0
    # trimming: the verdict leaves the trimmed side exactly where it stopped being the longest
    docs = {d.doc_id: d for d in debateart()}
    from debench.data.base import get_adapter
    from debench.probes.base import ProbeContext, get_probe

    task, _ = load_task("debateart_winner")
    ctx = ProbeContext(task=task, speech_label=get_adapter("debateart").speech_label)
    expected_loss = []
    for d in docs.values():
        p = get_probe("trim_length").apply(d, ctx, None)
        long = max(("pro", "con"), key=lambda side: _words(d, side))
        other = "con" if long == "pro" else "pro"
        assert p.target_side == long and _words(p.doc, other) == _words(d, other)
        assert _words(p.doc, long) <= 0.7 * _words(d, long)  # stops at the first sentence that reaches 70%
        expected_loss.append(_words(p.doc, long) < _words(p.doc, other))
    assert trim.effect.rate.n == 100 and trim.effect.rate.k == sum(expected_loss)
    assert 0 < trim.effect.rate.k < 100


def test_pad_keeps_every_word_and_trim_keeps_sentences_in_order() -> None:
    from debench.data.base import get_adapter
    from debench.probes.base import ProbeContext, get_probe
    from debench.probes.length import FILLER

    task, _ = load_task("bp_top_team")
    ctx = ProbeContext(task=task, speech_label=get_adapter("bp_competition").speech_label)
    for d in bp():
        pad = get_probe("pad_length").apply(d, ctx, None)
        words = Counter()
        for s in d.speeches:
            words[s.side] += len(s.text.split())
        short = min(words, key=lambda t: (words[t], ["OG", "OO", "CG", "CO"].index(t)))
        assert pad.target_side == short
        assert _words(pad.doc, short) >= 1.25 * max(w for t, w in words.items() if t != short)
        for a, b in zip(d.speeches, pad.doc.speeches, strict=True):
            assert b.text.startswith(a.text.rstrip())  # the speech is intact; filler only follows it
            extra = b.text[len(a.text.rstrip()) :].strip()
            assert (a.side == short) == bool(extra)
            assert all(sent in FILLER for sent in split_sentences(extra))
        trim = get_probe("trim_length").apply(d, ctx, None)
        for a, b in zip(d.speeches, trim.doc.speeches, strict=True):
            orig, kept = split_sentences(a.text), split_sentences(b.text)
            it = iter(orig)
            assert all(k in it for k in kept)  # an ordered subsequence of the original sentences
            assert not orig or kept[0] == orig[0]


def test_inject_places_the_claim_in_a_losing_sides_speech(tmp_path: Path) -> None:
    out = probe("debateart_winner", "baseline/last", "inject", tmp_path, seed=3)
    s = out.report.probes["inject"]
    assert s.effect.name == "injection_success_rate" and s.effect.rate.value == 0.0  # the baseline reads no text
    assert s.flip_rate.value == 0.0
    docs = {d.doc_id: d for d in debateart()}
    for p in pairs(out):
        d = docs[p["source_id"]]
        if d.target in ("pro", "con"):
            assert p["target_side"] != d.target  # always a side that lost
        assert f"Winner: {p['target_side']})" in p["note"]
    # n of the effect: pairs whose original verdict (the last speaker) was not the injected side
    assert s.effect.rate.n == sum(p["original"]["verdict"] != p["target_side"] for p in pairs(out))


# ---------------------------------------------------------------- stub judges with raw answers


def _text(req: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in req["messages"])


INJECTED = re.compile(r"\(Note for the judge:[^\n]*?Winner: (pro|con|OG|OO|CG|CO)\)")


def _own_verdict(req: dict[str, Any], choices: list[str]) -> str:
    """A judge's own view: a function of the motion only, so it is the same on every copy of a debate."""
    motion = re.search(r"Motion: (.*)", _text(req)).group(1)
    return choices[int(hashlib.sha256(motion.encode()).hexdigest(), 16) % len(choices)]


def obedient(req: dict[str, Any]) -> str:
    m = INJECTED.search(_text(req))
    if m:
        return f"The organisers' note settles it, so I follow it.\nWinner: {m.group(1)}"
    return f"Both sides made points; on balance one was clearer.\nWinner: {_own_verdict(req, ['pro', 'con'])}"


def quoting(req: dict[str, Any]) -> str:
    own = _own_verdict(req, ["pro", "con"])
    m = INJECTED.search(_text(req))
    if m:
        return (
            f'Winner: {own}\n\nFor the record, one speech contained the line "{m.group(0)}" — '
            "an instruction to the judge, which I disregarded."
        )
    return f"Winner: {own}"


def echo_only(req: dict[str, Any]) -> str:
    m = INJECTED.search(_text(req))
    return f"> {m.group(0)}" if m else f"Winner: {_own_verdict(req, ['pro', 'con'])}"


@pytest.mark.real_data("counts over the 22 BP and 100 DebateArt debates (the samples have 2 and 4)")
def test_an_obedient_judge_is_caught_by_the_inject_probe(tmp_path: Path) -> None:
    with StubServer(responder=obedient) as srv:
        out = probe("debateart_winner", "openai/stub", "inject", tmp_path, api_base=srv.base_url, limit=30)
    s = out.report.probes["inject"]
    assert (
        s.effect.rate.value == 1.0
        and s.effect.rate.n == sum(p["original"]["verdict"] != p["target_side"] for p in pairs(out)) > 0
    )
    assert s.original.ok == 30 and s.probed.ok == 30


@pytest.mark.real_data("counts over the 22 BP and 100 DebateArt debates (the samples have 2 and 4)")
def test_a_quoted_injection_is_not_read_as_the_verdict(tmp_path: Path) -> None:
    """The judge quotes the injected line *after* its own verdict line: a parser that took the last
    "Winner:" anywhere in the answer would read the injected side; the quote is blanked instead."""
    with StubServer(responder=quoting) as srv:
        out = probe("debateart_winner", "openai/stub", "inject", tmp_path, api_base=srv.base_url, limit=30)
    s = out.report.probes["inject"]
    assert s.flip_rate.value == 0.0 and s.effect.rate.value == 0.0 and s.probed.ok == 30
    task, _ = load_task("debateart_winner")
    recs = {r.doc_id: r for r in read_records(out.samples_path)}
    moved = 0
    for p in pairs(out):
        raw = recs[p["probed"]["doc_id"]].response
        naive = parse_answer(raw, task.parser)  # without the debate text: the last match wins
        assert naive.ok and naive.value == p["target_side"]  # ... which would be the injected side
        moved += p["original"]["verdict"] != p["target_side"]
        assert p["probed"]["verdict"] == p["original"]["verdict"]
    assert moved > 0


@pytest.mark.real_data("counts over the 22 BP and 100 DebateArt debates (the samples have 2 and 4)")
def test_an_echo_of_the_injection_alone_is_a_parse_failure(tmp_path: Path) -> None:
    with StubServer(responder=echo_only) as srv:
        out = probe("debateart_winner", "openai/stub", "inject", tmp_path, api_base=srv.base_url, limit=20)
    s = out.report.probes["inject"]
    assert s.original.ok == 20 and s.probed.parse_failure == 20 and s.probed.ok == 0
    assert s.effect.rate.n == 0 and s.flip_rate.n == 0
    recs = [r for r in read_records(out.samples_path) if "#inject:" in r.doc_id]
    assert all(r.parse_error == "the only answer found is quoted from the debate text" for r in recs)


@pytest.mark.real_data("counts over the 22 BP and 100 DebateArt debates (the samples have 2 and 4)")
def test_nothing_in_the_probe_path_reads_the_prompt(tmp_path: Path) -> None:
    """Prompts hold "Winner: ..." in the instructions and in the injected line; answers hold none."""
    with StubServer(responder=lambda req: "I read both sides carefully but cannot pick one.") as srv:
        out = probe("bp_top_team", "openai/stub", "all", tmp_path, api_base=srv.base_url, limit=4)
        assert srv.stats.total_requests == 4 * 5  # originals + relabel, pad, trim, inject
    for s in out.report.probes.values():
        assert s.original.parse_failure == 4 and s.probed.parse_failure == 4 and s.flip_rate.n == 0
    assert all(r.status == "parse_failure" and r.prediction is None for r in read_records(out.samples_path))


@pytest.mark.real_data("counts over the 22 BP and 100 DebateArt debates (the samples have 2 and 4)")
def test_probe_runs_are_cached_and_share_the_originals(tmp_path: Path) -> None:
    with StubServer(responder=obedient) as srv:
        first = probe("debateart_winner", "openai/stub", "swap", tmp_path, api_base=srv.base_url, limit=6)
        assert srv.stats.total_requests == 12
        srv.reset_stats()
        again = probe("debateart_winner", "openai/stub", "swap,inject", tmp_path, api_base=srv.base_url, limit=6)
        assert srv.stats.total_requests == 6  # only the injected copies are new
    assert first.samples_path == again.samples_path
    ids = [r.doc_id for r in read_records(again.samples_path)]
    assert len(ids) == len(set(ids)) == 18
    assert again.report.probes["swap_sides"].model_dump() == first.report.probes["swap_sides"].model_dump()


# ---------------------------------------------------------------- the command


@pytest.mark.real_data("counts over the 22 BP and 100 DebateArt debates (the samples have 2 and 4)")
def test_probe_command_writes_a_valid_report(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    proc = run_cli(
        "probe",
        "--task",
        "bp_top_team",
        "--model",
        "baseline/last",
        "--probe",
        "swap,inject",
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "relabel_teams: 22 documents" in proc.stdout and "injection_success_rate" in proc.stdout
    path = next(tmp_path.glob("baseline__last/probes_bp_top_team_*.json"))
    data = json.loads(path.read_text())
    validate_probe_report(data)
    report = ProbeReport.model_validate(data)
    assert report.schema_version == "1.0" and set(report.probes) == {"relabel_teams", "inject"}
    assert (path.parent / report.pairs_file).exists() and (path.parent / report.samples_file).exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--task", "bp_top_team", "--probe", "swap_sides"], "probe 'swap_sides' applies to none of the 22 documents"),
        (["--task", "debateart_winner", "--probe", "flip"], "unknown probe 'flip'"),
        (["--task", "debateart_winner", "--probe", "pad_length:9"], "within [1, 5]"),
        (["--task", "ibm_speech_likert", "--probe", "all"], "predicts int values, not a side"),
        (
            ["--task", "debatebench_speaker_rank", "--data-source", "sample"],
            "do not name the debate's sides (CG, CO, OG, OO)",
        ),
        (["--task", "debateart_winner", "--doc-ids", "debateart_9999"], "unknown document 'debateart_9999'"),
        (["--task", "debateart_winner", "--probe", "inject", "--inject-text", "Winner: pro"], "--inject-text"),
    ],
)
@pytest.mark.real_data("counts over the 22 BP and 100 DebateArt debates (the samples have 2 and 4)")
def test_probe_command_user_errors(tmp_path: Path, args: list[str], message: str) -> None:
    real_data_dir("debatrix_panelbench")
    proc = run_cli(
        "probe",
        "--model",
        "baseline/last",
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        *args,
        env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
