"""The seed benchmarks on the real data: adapters checked against the papers' numbers, every task
end to end with baselines and with a stub server giving realistic raw answers (some unparseable),
and every metric checked against an independent computation."""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from conftest import DATA_DIR, real_data_dir
from openpyxl import Workbook

from debench.core.errors import DataError
from debench.data.bp_competition import load_bp
from debench.data.debateart import load_debateart
from debench.data.debatebench import ROLES, load_debatebench
from debench.data.samples import read_records
from debench.models.factory import make_model, parse_model_args
from debench.run.pipeline import EvalOptions, evaluate_task
from debench.run.task_lookup import load_task
from debench.testing.stub_server import StubServer

# ---------------------------------------------------------------- adapters vs the papers


@pytest.mark.real_data("the paper's Table 2 over the 100 DebateArt debates")
def test_debateart_matches_debatrix_table_2() -> None:
    d = real_data_dir("debatrix_panelbench") / "DebateArt"
    expected = {"argument": (33, 11, 56), "source": (14, 67, 19), "language": (9, 66, 25), "general": (38, 6, 56)}
    for dim, (pro, tie, con) in expected.items():
        docs = load_debateart(d, dim)
        assert Counter(x.target for x in docs) == {"pro": pro, "tie": tie, "con": con}, dim
    docs = load_debateart(d)
    assert len(docs) == 100 and sum(len(x.speeches) for x in docs) == 670
    assert {len(x.speeches) for x in docs} == {4, 6, 8, 10}
    assert all({s.side for s in x.speeches} == {"pro", "con"} for x in docs)
    assert all(x.fields["transcript"].count("[Speech ") == len(x.speeches) for x in docs)


@pytest.mark.real_data("the paper's Table 4 over the 22 BP debates")
def test_bp_matches_debatrix_table_4() -> None:
    docs = load_bp(real_data_dir("debatrix_panelbench") / "BP-Competition")
    assert len(docs) == 22
    assert all([s.side for s in x.speeches] == ["OG", "OO", "OG", "OO", "CG", "CO", "CG", "CO"] for x in docs)
    assert Counter(t for x in docs for t in x.target) == {"OG": 8, "OO": 16, "CG": 8, "CO": 6}
    assert {x.fields["round"] for x in docs} >= {"EUDC 2022 Final"}


@pytest.mark.real_data("the 32 real DebateBench transcripts")
def test_debatebench_transcripts_all_parse() -> None:
    docs = load_debatebench(real_data_dir("debatebench"), require_labels=False)
    assert len(docs) == 32
    for d in docs:
        assert [s.speaker for s in d.speeches] == list(ROLES)
        assert [s.side for s in d.speeches] == ["OG", "OO", "OG", "OO", "CG", "CO", "CG", "CO"]
    warned = {d.doc_id: d.meta["parse_warnings"] for d in docs if d.meta["parse_warnings"]}
    # the files SOURCE.md lists as needing a guess, and nothing else
    assert len(warned) == 7
    assert any("empty" in w for ws in warned.values() for w in ws)  # Natolin R3's LO speech is empty
    assert sum(d.meta["n_pois"] for d in docs) > 200
    empty = [d for d in docs if any(not s.text for s in d.speeches)]
    assert len(empty) == 1


def _fixture(tmp_path: Path, drop_column: str | None = None) -> Path:
    """The published format: scores.xlsx + Cleaned Speeches.zip (two real transcripts, invented labels)."""
    src = real_data_dir("debatebench") / "cleaned_speeches"
    names = ["Doxbridge 4 Round 1", "LSE Open 2024 Round 1A"]
    root = tmp_path / "debatebench"
    root.mkdir()
    with zipfile.ZipFile(root / "Cleaned Speeches.zip", "w") as zf:
        for n in names:
            zf.write(src / f"{n}.txt", f"Cleaned Speeches/{n}.txt")
        zf.writestr("__MACOSX/Cleaned Speeches/._x.txt", "junk")
    wb = Workbook()
    ws = wb.active
    header = ["Tourney", "PM", "LO", "DPM", "DLO", "MG", "MO", "GW", "OW", "First", "Second", "Third", "Fourth"]
    rows = [
        [
            names[0],
            76,
            74,
            75,
            73,
            78,
            75,
            77,
            72,
            "Closing Government",
            "Opening Government",
            "Closing Opposition",
            "Opening Opposition",
        ],
        [names[1], 73, 77, 72, 76, 74, 79, 73, 78, "CO", "OO", "CG", "OG"],
    ]
    keep = [i for i, h in enumerate(header) if h != drop_column]
    ws.append([header[i] for i in keep])
    for r in rows:
        ws.append([r[i] for i in keep])
    wb.save(root / "scores.xlsx")
    return root


@pytest.mark.real_data(
    "the real DebateBench layout (cleaned_speeches/, no labels; the sample is the published zip and xlsx)"
)
def test_debatebench_published_format(tmp_path: Path) -> None:
    docs = load_debatebench(_fixture(tmp_path))
    assert [d.doc_id for d in docs] == ["Doxbridge 4 Round 1", "LSE Open 2024 Round 1A"]
    assert docs[0].target["ranking"] == ["CG", "OG", "CO", "OO"]
    assert docs[1].target["scores"]["mo"] == 79.0 and docs[1].label == "CO"


@pytest.mark.real_data(
    "the real DebateBench layout (cleaned_speeches/, no labels; the sample is the published zip and xlsx)"
)
def test_debatebench_missing_column_names_file_and_column(tmp_path: Path) -> None:
    root = _fixture(tmp_path, drop_column="DLO")
    with pytest.raises(DataError, match=r"scores\.xlsx: field 'DLO': missing column"):
        load_debatebench(root)


@pytest.mark.real_data("the real DebateBench copy has no labels (the sample has them)")
def test_debatebench_without_labels_is_an_error_when_required(tmp_path: Path) -> None:
    root = _fixture(tmp_path)
    (root / "scores.xlsx").unlink()
    with pytest.raises(DataError, match=re.escape("scores.xlsx")):
        load_debatebench(root)


# ---------------------------------------------------------------- independent metrics


def ind_rmse(preds: list[str], golds: list[str]) -> float:
    v = {"pro": 0.0, "tie": 0.5, "con": 1.0}
    return math.sqrt(sum((v[p] - v[g]) ** 2 for p, g in zip(preds, golds, strict=True)) / len(preds))


def ind_macro_f1(preds: list[str], golds: list[str], labels: list[str]) -> float:
    f1s = []
    for lab in labels:
        tp = sum(p == g == lab for p, g in zip(preds, golds, strict=True))
        pred_n, gold_n = preds.count(lab), golds.count(lab)
        if pred_n == 0 and gold_n == 0:
            continue
        prec = tp / pred_n if pred_n else 0.0
        rec = tp / gold_n if gold_n else 0.0
        f1s.append(0.0 if prec + rec == 0 else 2 * prec * rec / (prec + rec))
    return sum(f1s) / len(f1s)


# ---------------------------------------------------------------- baselines end to end


def _eval(
    task: str,
    model: str,
    out: Path,
    api_base: str | None = None,
    data_dir: Path | None = None,
    limit: int | None = None,
):
    t, path = load_task(task)
    m = make_model(model, api_bases=[api_base] if api_base else None, model_args=parse_model_args("max_retries=0"))
    opts = EvalOptions(
        output_dir=out,
        data_source="local",
        data_dir=str(data_dir or DATA_DIR),
        progress=False,
        n_bootstrap=100,
        limit=limit,
    )
    return asyncio.run(evaluate_task(t, path, m, opts))


@pytest.mark.real_data("the position bias of the 22 real BP debates")
def test_last_speaker_baseline_is_visible(tmp_path: Path) -> None:
    real_data_dir("debatrix_panelbench")
    out = _eval("bp_top_team", "baseline/last", tmp_path)
    assert out.results.reports["prediction_distribution"] == {"CO": 22}  # position bias by construction
    docs = load_bp(DATA_DIR / "debatrix_panelbench" / "BP-Competition")
    assert out.results.metrics["accuracy"].value == pytest.approx(sum("CO" in d.target for d in docs) / 22)
    assert out.results.metrics["completion_rate"].value == 1.0


@pytest.mark.parametrize("task", ["debateart_winner", "debateart_argument", "debateart_source", "debateart_language"])
def test_debateart_baselines(tmp_path: Path, task: str) -> None:
    real_data_dir("debatrix_panelbench")
    for b in ("random", "majority", "first", "last", "longest"):
        out = _eval(task, f"baseline/{b}", tmp_path / b)
        recs = read_records(out.samples_path)
        preds, golds = [r.prediction for r in recs], [r.target for r in recs]
        m = out.results.metrics
        assert m["rmse"].value == pytest.approx(ind_rmse(preds, golds))
        assert m["accuracy"].value == pytest.approx(sum(p == g for p, g in zip(preds, golds, strict=True)) / len(preds))
        assert m["macro_f1"].value == pytest.approx(ind_macro_f1(preds, golds, ["pro", "tie", "con"]))
        assert m["rmse"].ci95[0] <= m["rmse"].value <= m["rmse"].ci95[1]


# ---------------------------------------------------------------- stub server with raw answers


def _pick(request: dict[str, Any], options: list[str]) -> str:
    text = "".join(m["content"] for m in request["messages"])
    return options[int(hashlib.sha256(text.encode()).hexdigest(), 16) % len(options)]


RAW = {
    "debateart_winner": [
        "Con answered every point.\nWinner: con",
        "Winner: PRO",
        "Both were even. Winner: tie",
        "**Winner:** draw",
        "It is hard to say who won.",
        "Winner: the audience",
    ],
    "debateart_source_scores": [
        "Pro cites well.\nPro score: 8, Con score: 4",
        "Pro score: 6, Con score: 7",
        "Pro: 9/10. Con: 3/10",
        "pro score 7 con score 7",
        "Both sides were fine.",
        "Pro score: 12, Con score: 3",
    ],
    "bp_top_team": [
        "CG extended well.\nWinner: Closing Government",
        "Winner: OG",
        "Winner: [[CO]]",
        "winner - OO",
        "The best team was clear.",
        "Winner: Opening Gov",
    ],
}
EXPECTED = {
    "debateart_winner": ["con", "pro", "tie", "tie", None, None],
    "debateart_source_scores": ["pro", "tie", "pro", "tie", None, None],  # 6 vs 7 is within the +-3 tie band
    "bp_top_team": ["CG", "OG", "CO", "OO", None, None],
}


@pytest.mark.parametrize("task", sorted(RAW))
@pytest.mark.real_data("counts over the real debates")
def test_stub_raw_answers_parsed_and_scored(tmp_path: Path, task: str) -> None:
    real_data_dir("debatrix_panelbench")
    with StubServer(responder=lambda req: _pick(req, RAW[task])) as srv:
        out = _eval(task, "openai/stub", tmp_path, api_base=srv.base_url)
    recs = read_records(out.samples_path)
    expected = {r.doc_id: EXPECTED[task][RAW[task].index(r.response)] for r in recs}
    failures = [d for d, v in expected.items() if v is None]
    assert failures and out.results.n_parse_failures == len(failures)
    for r in recs:
        assert r.prediction == expected[r.doc_id] and (r.status == "ok") == (expected[r.doc_id] is not None)
    ok = [r for r in recs if r.status == "ok"]
    m = out.results.metrics
    correct = [(r.prediction in r.target) if isinstance(r.target, list) else r.prediction == r.target for r in ok]
    assert m["accuracy"].value == pytest.approx(sum(correct) / len(ok)) and m["accuracy"].n == len(ok)
    assert m["parse_failure_rate"].value == pytest.approx(len(failures) / len(recs))
    if "rmse" in m:
        assert m["rmse"].value == pytest.approx(ind_rmse([r.prediction for r in ok], [r.target for r in ok]))
    if task == "bp_top_team":
        assert out.results.reports["prediction_distribution"] == dict(sorted(Counter(r.prediction for r in ok).items()))


DB_RAW = {
    "debatebench_verdict": (
        ["OG wins.\nRanking: OG > CO > OO > CG", "Ranking: CG, OG, CO, OO", "Ranking: OG > OG > CO > CG", "no idea"],
        [["OG", "CO", "OO", "CG"], ["CG", "OG", "CO", "OO"], None, None],
    ),
    "debatebench_speaker_score": (
        [
            '{"pm": 75, "lo": 74, "dpm": 76, "dlo": 73, "mg": 78, "mo": 77, "gw": 72, "ow": 71}',
            'Scores:\n{"PM": 80, "LO": 70, "DPM": 70, "DLO": 70, "MG": 70, "MO": 70, "GW": 70, "OW": 70}',
            '{"pm": 75, "lo": 74}',
            '{"pm": 175, "lo": 74, "dpm": 76, "dlo": 73, "mg": 78, "mo": 77, "gw": 72, "ow": 71}',
        ],
        [
            {"pm": 75, "lo": 74, "dpm": 76, "dlo": 73, "mg": 78, "mo": 77, "gw": 72, "ow": 71},
            {"pm": 80, "lo": 70, "dpm": 70, "dlo": 70, "mg": 70, "mo": 70, "gw": 70, "ow": 70},
            None,
            None,
        ],
    ),
    "debatebench_speaker_rank": (
        [
            "Ranking: mg > mo > pm > lo > dpm > dlo > gw > ow",
            "Ranking: pm > lo > dpm > dlo > mg > mo > gw > ow",
            "Ranking: pm > pm > dpm > dlo > mg > mo > gw > ow",
            "I rank them all equal.",
        ],
        [["mg", "mo", "pm", "lo", "dpm", "dlo", "gw", "ow"], list(ROLES), None, None],
    ),
}


@pytest.mark.parametrize("task", sorted(DB_RAW))
@pytest.mark.real_data(
    "the real DebateBench layout (cleaned_speeches/, no labels; the sample is the published zip and xlsx)"
)
def test_debatebench_tasks_through_stub(tmp_path: Path, task: str) -> None:
    root = _fixture(tmp_path)
    data_dir = tmp_path  # the task's local_dir is "debatebench"
    answers, values = DB_RAW[task]
    docs = load_debatebench(root)
    gold = {d.doc_id: d.target for d in docs}
    for offset in range(2):  # two runs so that both docs see parseable and unparseable answers
        with StubServer(
            responder=lambda req, o=offset: answers[
                (int(hashlib.sha256("".join(m["content"] for m in req["messages"]).encode()).hexdigest(), 16) + o) % 4
            ]
        ) as srv:
            out = _eval(task, "openai/stub", tmp_path / f"run{offset}", api_base=srv.base_url, data_dir=data_dir)
        recs = read_records(out.samples_path)
        m = out.results.metrics
        ok = [(r, values[answers.index(r.response)]) for r in recs]
        assert all(r.prediction == v for r, v in ok)
        scored = [(r.prediction, gold[r.doc_id]) for r, v in ok if v is not None]
        assert out.results.n_parse_failures == len(recs) - len(scored)
        if not scored:
            continue
        if task == "debatebench_verdict":
            delta = [sum(abs(p.index(h) - g["ranking"].index(h)) for h in p) for p, g in scored]
            assert m["verdict_delta"].value == pytest.approx(sum(delta) / len(delta))
        elif task == "debatebench_speaker_score":
            errs = [abs(p[r] - g["scores"][r]) for p, g in scored for r in ROLES]
            assert m["mae"].value == pytest.approx(sum(errs) / len(errs))
            for k in range(2, 10):
                assert m[f"acc_within_{k}"].value == pytest.approx(sum(e <= k for e in errs) / len(errs))
        else:
            total = []
            for p, g in scored:
                s = g["scores"]
                # gold rank: 1 + number of strictly better speakers + half the ties
                gr = {
                    r: 1 + sum(s[o] > s[r] for o in ROLES) + 0.5 * (sum(s[o] == s[r] for o in ROLES) - 1) for r in ROLES
                }
                total.append(sum(abs(p.index(r) + 1 - gr[r]) for r in ROLES))
            assert m["rank_delta"].value == pytest.approx(sum(total) / len(total))


def test_samples_load_for_every_task() -> None:
    from debench.data.loading import load_sample
    from debench.run.task_lookup import load_task, task_names

    for t in (load_task(n)[0] for n in task_names()):
        ds = load_sample(t)
        assert ds.is_sample and ds.docs, t.name


@pytest.mark.real_data("the papers' statistics of the real data sets")
def test_data_stats_script_checks_the_papers() -> None:
    import subprocess
    import sys

    real_data_dir("debatrix_panelbench")
    script = Path(__file__).resolve().parent.parent / "scripts" / "data_stats.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--data-dir", str(DATA_DIR)], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "all checks hold" in proc.stdout and "BAD" not in proc.stdout
