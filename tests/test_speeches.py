"""Speeches written by a model and rated beside the human-annotated IBM speeches (Debatable
Intelligence §5.3): sentence trimming on the real speeches, generation through the stub server,
rating GPT-4.1's published speeches, per-source figures checked against the raw data, plots."""

from __future__ import annotations

import csv
import json
import random
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from clihelp import run_cli
from conftest import DATA_DIR, real_data_dir

from debench.core.text import trim_to_words
from debench.data.samples import read_records
from debench.testing.stub_server import LIKERT_TEMPLATES, LIKERT_UNPARSEABLE, StubServer, prompt_key

SVG = b'<svg xmlns="http://www.w3.org/2000/svg"'


def ibm() -> Path:
    return real_data_dir("ibm_debate_speeches")


def gpt41() -> Path:
    return ibm() / "GPT_4_1_speeches.csv"


def human_table() -> pd.DataFrame:
    df = pd.read_csv(ibm() / "data.csv", dtype=str)
    df["human"] = [sum(json.loads(x)) / len(json.loads(x)) for x in df["goodopeningspeech"]]
    return df


# ---------------------------------------------------------------- trimming by sentences


@pytest.mark.real_data("the GPT-4.1 speeches file of the real IBM data set (not in the sample)")
def test_trim_removes_whole_sentences_from_the_end() -> None:
    texts = list(pd.read_csv(gpt41(), dtype=str)["text"]) + list(human_table()["text"][:200])
    end = re.compile(r"[.!?][\"')\]\u201d\u2019]*(?=\s+[\"'(\u201c]?[A-Z0-9])|[.!?][\"')\]\u201d\u2019]*\s*$")
    cut = 0
    for text in texts:
        for limit in (150, 400):
            out = trim_to_words(text, limit)
            n = len(out.split())
            assert n <= limit and text.strip().startswith(out)
            if len(text.split()) <= limit:
                assert out == text.strip()
                continue
            cut += 1
            rest = text.strip()[len(out) :]
            assert out[-1] in ".!?\"')\u201d\u2019" and (not rest or rest[0].isspace())  # ends where a sentence ends
            nxt = end.search(rest)  # the next sentence would not have fitted
            assert nxt is None or n + len(rest[: nxt.end()].split()) > limit
    assert cut > 300


# ---------------------------------------------------------------- generation through the stub server


def stub_speech(topic: str, seed: int) -> str:
    rng = random.Random(f"{topic}:{seed}")
    paras = []
    for p in range(6):
        sents = [
            f"Reason {p}.{i} for the claim that {topic.lower()} is {rng.choice(['sound', 'urgent', 'fair', 'wise'])}."
            for i in range(5)
        ]
        paras.append(" ".join(sents))
    return "Thank you, chair.\n\n" + "\n\n".join(paras)


def writer(req: dict[str, Any]) -> str:
    topic = re.search(r'topic: "(.*)"', req["messages"][-1]["content"]).group(1)
    return stub_speech(topic, int(req.get("seed", -1)))


@pytest.mark.real_data("the GPT-4.1 speeches file of the real IBM data set (not in the sample)")
def test_generate_speeches_writes_the_published_columns(tmp_path: Path) -> None:
    out = tmp_path / "speeches.csv"
    args = [
        "generate-speeches",
        "--model",
        "openai/writer",
        "--limit",
        "3",
        "--words",
        "120",
        "--output",
        str(out),
        "--no-progress",
    ]
    env = {"DEBENCH_DATA_DIR": str(DATA_DIR)}
    with StubServer(responder=writer) as srv:
        proc = run_cli(*args, "--api-base", srv.base_url, env=env)
        assert proc.returncode == 0, proc.stderr
        assert srv.stats.total_requests == 6
        bodies = srv.stats.requests
        first = out.read_bytes()
        srv.reset_stats()
        again = run_cli(*args, "--api-base", srv.base_url, env=env)
        assert again.returncode == 0 and srv.stats.total_requests == 0  # every speech came from the cache
    assert {b["temperature"] for b in bodies} == {1.0} and {b["seed"] for b in bodies} == {0, 1}
    with open(out, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    with open(gpt41(), newline="", encoding="utf-8") as fh:
        assert list(csv.DictReader(fh).fieldnames or []) == list(rows[0])  # the same columns as GPT-4.1's file
    topics = sorted(set(human_table()["topic"]))[:3]
    assert [r["topic"] for r in rows] == [t for t in topics for _ in range(2)]
    assert len({r["id"] for r in rows}) == 6 and {r["source"] for r in rows} == {"openai/writer"}
    for k, r in enumerate(rows):
        full = stub_speech(r["topic"], k % 2)
        assert full.startswith(r["text"]) and len(r["text"].split()) <= 120 < len(full.split())
        assert r["text"].endswith(".")
    assert rows[0]["text"] != rows[1]["text"]
    meta = json.loads((tmp_path / "speeches.csv.meta.json").read_text())
    assert meta["n_speeches"] == 6 and meta["n_trimmed"] == 6 and meta["words"] == 120
    assert out.read_bytes() == first  # the rerun wrote the same file


class Judge:
    """Realistic raw Likert answers; ``truth`` holds the score of each answer (None: no score)."""

    def __init__(self) -> None:
        self.truth: dict[str, int | None] = {}

    def __call__(self, req: dict[str, Any]) -> str:
        key = prompt_key(req["messages"])
        rng = random.Random(key)
        if rng.random() < 0.1:
            self.truth[key] = None
            return rng.choice(LIKERT_UNPARSEABLE)
        self.truth[key] = rng.randint(1, 5)
        return rng.choice(LIKERT_TEMPLATES).format(n=self.truth[key])


def _means(report: dict[str, Any], samples: Path, sources: dict[str, str]) -> dict[str, list[float]]:
    by: dict[str, list[float]] = defaultdict(list)
    for r in read_records(samples):
        if r.status == "ok":
            by[sources[r.doc_id]].append(float(r.prediction))
    return by


@pytest.mark.real_data("the GPT-4.1 speeches file of the real IBM data set (not in the sample)")
def test_rate_generated_speeches_beside_the_annotated_ones(tmp_path: Path) -> None:
    speeches = tmp_path / "speeches.csv"
    env = {"DEBENCH_DATA_DIR": str(DATA_DIR)}
    judge = Judge()
    with StubServer(responder=writer) as w:
        assert (
            run_cli(
                "generate-speeches",
                "--model",
                "openai/writer",
                "--api-base",
                w.base_url,
                "--limit",
                "2",
                "--words",
                "200",
                "--output",
                str(speeches),
                "--no-progress",
                env=env,
            ).returncode
            == 0
        )
    with StubServer(responder=judge) as srv:
        proc = run_cli(
            "rate-speeches",
            "--speeches",
            str(speeches),
            "--model",
            "openai/judge",
            "--api-base",
            srv.base_url,
            "--output-dir",
            str(tmp_path / "out"),
            "--no-progress",
            "--bootstrap",
            "200",
            env=env,
        )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(next((tmp_path / "out").glob("*/speech_rating_ibm_*.json")).read_text())
    samples = next((tmp_path / "out").glob("*/speech_rating_samples_*.jsonl"))
    df = human_table()
    topics = sorted(set(df["topic"]))[:2]
    assert report["topics"] == topics
    subset = df[df["topic"].isin(topics)]
    with open(speeches, encoding="utf-8") as fh:
        generated = {r["id"]: r["source"] for r in csv.DictReader(fh)}
    sources = {**dict(zip(subset["id"], subset["source"], strict=True)), **generated}
    recs = read_records(samples)
    assert len(recs) == len(sources) == len(subset) + 4
    for r in recs:  # every prediction is the score the judge's raw answer carried
        t = judge.truth[prompt_key(r.messages)]
        assert (r.status == "ok") == (t is not None) and (r.prediction == t if t is not None else r.prediction is None)
    judged = _means(report, samples, sources)
    for name, s in report["sources"].items():
        assert s["judge_mean"]["value"] == pytest.approx(sum(judged[name]) / len(judged[name]))
        assert s["judge_mean"]["n"] == len(judged[name])
        if name == "openai/writer":
            assert s["origin"] == "speeches_file" and s["human_mean"] is None and s["n_speeches"] == 4
        else:
            h = subset[subset["source"] == name]["human"]
            assert (
                s["origin"] == "annotated"
                and s["human_mean"]["value"] == pytest.approx(h.mean())
                and s["n_speeches"] == len(h)
            )
    assert set(report["sources"]) == set(subset["source"]) | {"openai/writer"}
    gen = sum(judged["openai/writer"]) / len(judged["openai/writer"])
    for c in report["comparisons"]:
        ref = judged[c["reference"]]
        assert c["source"] == "openai/writer" and c["diff"]["value"] == pytest.approx(gen - sum(ref) / len(ref))


@pytest.mark.real_data("the GPT-4.1 speeches file of the real IBM data set (not in the sample)")
def test_rate_gpt41_speeches_with_a_baseline(tmp_path: Path) -> None:
    import jsonschema

    from debench.speeches.report import SPEECH_RATING_SCHEMA_PATH

    proc = run_cli(
        "rate-speeches",
        "--speeches",
        str(gpt41()),
        "--model",
        "baseline/random",
        "--seed",
        "4",
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )
    assert proc.returncode == 0, proc.stderr
    assert "gpt-4.1 minus Human expert" in proc.stdout
    path = next(tmp_path.glob("baseline__random/speech_rating_ibm_speech_likert_*.json"))
    report = json.loads(path.read_text())
    jsonschema.validate(report, json.loads(SPEECH_RATING_SCHEMA_PATH.read_text()))
    df = human_table()
    gpt = pd.read_csv(gpt41(), dtype=str)
    sources = {**dict(zip(df["id"], df["source"], strict=True)), **dict(zip(gpt["id"], gpt["source"], strict=True))}
    judged = _means(report, path.parent / report["samples_file"], sources)
    assert len(report["topics"]) == 76 and report["speeches_file"]["n_speeches"] == 152
    counts = {k: v["n_speeches"] for k, v in report["sources"].items()}
    assert counts == {"gpt-4.1": 152, **df["source"].value_counts().to_dict()}
    for name, s in report["sources"].items():
        m = s["judge_mean"]
        assert (
            m["value"] == pytest.approx(sum(judged[name]) / len(judged[name]))
            and m["ci95"][0] <= m["value"] <= m["ci95"][1]
        )
        assert 2.4 < m["value"] < 3.6  # a uniform random judge averages 3 on every source
        if s["human_mean"]:
            assert s["human_mean"]["value"] == pytest.approx(df[df["source"] == name]["human"].mean())
    expert = next(c for c in report["comparisons"] if c["reference"] == "Human expert")
    assert expert["diff"]["ci95"][0] < 0 < expert["diff"]["ci95"][1]  # random: no difference
    svg = path.parent / report["plots"][0]
    assert svg.read_bytes().startswith(SVG) and "human annotators" in svg.read_text()


@pytest.mark.real_data("the GPT-4.1 speeches file of the real IBM data set (not in the sample)")
def test_rate_speeches_human_source_filter(tmp_path: Path) -> None:
    proc = run_cli(
        "rate-speeches",
        "--speeches",
        str(gpt41()),
        "--model",
        "baseline/constant:3",
        "--limit",
        "5",
        "--human-sources",
        "Human expert,Speech-GPT2",
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )
    assert proc.returncode == 0, proc.stderr
    report = json.loads(next(tmp_path.glob("*/speech_rating_*.json")).read_text())
    assert set(report["sources"]) == {"gpt-4.1", "Human expert", "Speech-GPT2"}
    assert report["sources"]["gpt-4.1"]["n_speeches"] == 10
    assert all(s["judge_mean"]["value"] == 3.0 for s in report["sources"].values())
    assert all(c["diff"]["value"] == 0.0 for c in report["comparisons"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["rate-speeches", "--speeches", "{broken}", "--model", "baseline/random"],
            "broken.csv: field 'text': missing column(s) text",
        ),
        (
            ["rate-speeches", "--speeches", "{gpt}", "--model", "baseline/random", "--task", "debateart_winner"],
            "not a speech-rating task",
        ),
        (
            ["rate-speeches", "--speeches", "{gpt}", "--model", "baseline/random", "--human-sources", "Robots"],
            "no annotated source 'Robots'",
        ),
        (
            ["generate-speeches", "--model", "baseline/random", "--limit", "1", "--output", "{out}"],
            "cannot take part in free-form generation",
        ),
    ],
)
@pytest.mark.real_data("the GPT-4.1 speeches file of the real IBM data set (not in the sample)")
def test_speech_command_user_errors(tmp_path: Path, args: list[str], message: str) -> None:
    broken = tmp_path / "broken.csv"
    pd.read_csv(gpt41(), dtype=str).drop(columns=["text"]).to_csv(broken, index=False)
    subst = {"{broken}": str(broken), "{gpt}": str(gpt41()), "{out}": str(tmp_path / "x.csv")}
    proc = run_cli(
        *[subst.get(a, a) for a in args], "--no-progress", env={"DEBENCH_DATA_DIR": str(DATA_DIR)}, cwd=tmp_path
    )
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------- plots beside eval results


def test_eval_writes_score_and_source_plots_for_speech_rating(tmp_path: Path) -> None:
    ibm()
    proc = run_cli(
        "eval",
        "--task",
        "ibm_speech_likert",
        "--model",
        "baseline/random",
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        "--bootstrap",
        "20",
        env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )
    assert proc.returncode == 0, proc.stderr
    path = next(tmp_path.glob("baseline__random/results_*.json"))
    res = json.loads(path.read_text())
    assert res["plots"] == [path.stem + "_scores.svg", path.stem + "_sources.svg"]
    for name in res["plots"]:
        assert (path.parent / name).read_bytes().startswith(SVG) and f"plot:    {path.parent / name}" in proc.stdout
    scores = (path.parent / res["plots"][0]).read_text()  # one bar per score and source, judge beside humans
    assert scores.count("<title>judge, ") == 6 and scores.count("<title>human ratings, ") == 6
    assert "parse failure" in scores and f"judge (n={res['n_samples']})" in scores
    debate = run_cli(
        "eval",
        "--task",
        "debateart_winner",
        "--model",
        "baseline/last",
        "--output-dir",
        str(tmp_path),
        "--no-progress",
        "--bootstrap",
        "20",
        env={"DEBENCH_DATA_DIR": str(DATA_DIR)},
    )
    assert (
        debate.returncode == 0
        and json.loads(next(tmp_path.glob("baseline__last/results_*.json")).read_text())["plots"] == []
    )


def test_schema_files_are_current() -> None:
    import subprocess
    import sys

    script = Path(__file__).resolve().parent.parent / "scripts" / "write_schemas.py"
    proc = subprocess.run([sys.executable, str(script), "--check"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout
