"""The generic adapter: a task over a new data set in YAML only, from JSONL, CSV, Parquet, a
``save_to_disk`` folder or a Hub-layout data set read by ``datasets.load_dataset`` (offline)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml
from clihelp import invoke, run_cli
from conftest import real_data_dir

import debench
from debench.core.errors import UserError
from debench.data.generic import records_hash
from debench.data.loading import load_task_data
from debench.run.task_files import load_task_file
from debench.run.task_lookup import load_task

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "generic"
TASK = FIXTURE / "my_debates.yaml"
ROWS = [json.loads(line) for line in (FIXTURE / "debates.jsonl").read_text().splitlines()]
GOLD = {"A": "pro", "B": "con", "draw": "tie"}


def _task_variant(tmp_path: Path, **dataset: Any) -> Path:
    """The fixture task with its dataset section changed, written beside the data copies."""
    raw = yaml.safe_load(TASK.read_text())
    raw["dataset"].update(dataset)
    for key in [k for k, v in raw["dataset"].items() if v is None]:
        del raw["dataset"][key]
    path = tmp_path / "task.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    return path


def _expected_longest() -> list[str]:
    out = []
    for row in ROWS:
        words: dict[str, int] = {}
        for turn in row["turns"]:
            side = GOLD[turn["position"]]
            words[side] = words.get(side, 0) + len(turn["said"].split())
        out.append(max(words, key=lambda s: (words[s], s)))
    return out


def test_yaml_only_task_over_a_jsonl_file(tmp_path: Path) -> None:
    proc = run_cli(
        "eval", "--task", str(TASK), "--model", "baseline/longest", "--output-dir", str(tmp_path), "--no-progress"
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads(next((tmp_path / "baseline__longest").glob("results_my_debates_*.json")).read_text())
    gold = [GOLD[r["winner"]] for r in ROWS]
    expected = sum(p == g for p, g in zip(_expected_longest(), gold, strict=True)) / len(gold)
    assert res["metrics"]["accuracy"]["value"] == pytest.approx(expected) and res["metrics"]["accuracy"]["n"] == 6
    assert res["dataset"]["source"] == "local" and not res["dataset"]["is_sample"]
    assert res["dataset"]["content_hash"] == records_hash(ROWS)
    samples = [
        json.loads(line)
        for line in next((tmp_path / "baseline__longest").glob("samples_*.jsonl")).read_text().splitlines()
    ]
    assert [s["doc_id"] for s in samples] == [r["id"] for r in ROWS] and [s["target"] for s in samples] == gold
    user = samples[0]["messages"][-1]["content"]
    assert (
        user.startswith("Motion: Cities should ban private cars") and "[Speech 2 — con (Ivo)]\nA ban punishes" in user
    )


def _write_formats(tmp_path: Path) -> dict[str, dict[str, Any]]:
    """The same records as CSV (speeches as a JSON cell), Parquet, a save_to_disk folder and a
    folder in the Hub layout (``data/test-00000-of-00001.parquet``)."""
    import csv

    import datasets

    ds = datasets.Dataset.from_list(ROWS)
    ds.to_parquet(str(tmp_path / "debates.parquet"))
    datasets.DatasetDict({"test": ds, "train": ds.select([0])}).save_to_disk(str(tmp_path / "saved"))
    hub = tmp_path / "hub_repo"
    (hub / "data").mkdir(parents=True)
    ds.to_parquet(str(hub / "data" / "test-00000-of-00001.parquet"))
    datasets.Dataset.from_list(ROWS[:2]).to_parquet(str(hub / "data" / "train-00000-of-00001.parquet"))
    with open(tmp_path / "debates.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "motion", "turns", "winner"])
        for r in ROWS:
            w.writerow([r["id"], r["motion"], json.dumps(r["turns"]), r["winner"]])
    shutil.copy(FIXTURE / "debates.jsonl", tmp_path / "debates.jsonl")
    return {
        "jsonl": {"file": "debates.jsonl"},
        "csv": {"file": "debates.csv"},
        "parquet": {"file": "debates.parquet"},
        "save_to_disk": {"file": "saved", "split": "test"},
        "hub": {"file": None, "hub": {"repo_id": str(hub), "revision": None}},
    }


def test_every_format_and_the_hub_path_give_the_same_documents(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import datasets

    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-cache")
    variants = _write_formats(tmp_path)
    reference = load_task_data(load_task_file(TASK))
    for name, dataset in variants.items():
        task = load_task_file(_task_variant(tmp_path, **dataset))
        loaded = load_task_data(task, "hub" if name == "hub" else "auto")
        assert [d.model_dump() for d in loaded.docs] == [d.model_dump() for d in reference.docs], name
        assert loaded.content_hash == reference.content_hash, name
        assert loaded.source == ("hub" if name == "hub" else "local")
    # the split is honoured: the Hub layout's train split holds two records
    train = load_task_file(
        _task_variant(tmp_path, file=None, split="train", hub={"repo_id": str(tmp_path / "hub_repo")})
    )
    assert [d.doc_id for d in load_task_data(train, "auto").docs] == ["cw-01", "cw-02"]
    missing = load_task_file(_task_variant(tmp_path, file="saved", split="validation"))
    with pytest.raises(UserError, match="no split 'validation'"):
        load_task_data(missing)


@pytest.mark.slow  # a new interpreter (HF_DATASETS_CACHE is read when datasets is imported) and the datasets library
def test_hub_path_through_the_cli_offline(tmp_path: Path) -> None:
    _write_formats(tmp_path)
    task = _task_variant(tmp_path, file=None, hub={"repo_id": str(tmp_path / "hub_repo")})
    proc = run_cli(
        "eval",
        "--task",
        str(task),
        "--model",
        "baseline/majority",
        "--output-dir",
        str(tmp_path / "out"),
        "--no-progress",
        env={"HF_DATASETS_CACHE": str(tmp_path / "hf-cache"), "HF_HUB_OFFLINE": "1"},
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads(next((tmp_path / "out" / "baseline__majority").glob("results_*.json")).read_text())
    assert res["dataset"]["source"] == "hub" and res["dataset"]["location"] == str(tmp_path / "hub_repo")
    assert res["metrics"]["accuracy"]["value"] == pytest.approx(3 / 6)  # pro is the majority: 3 of 6


def test_an_unreachable_hub_data_set_is_one_line(tmp_path: Path) -> None:
    task = _task_variant(tmp_path, file=None, hub={"repo_id": "no-such-org/no-such-data", "revision": "main"})
    proc = run_cli(
        "eval",
        "--task",
        str(task),
        "--model",
        "baseline/random",
        "--output-dir",
        str(tmp_path),
        env={"HF_HUB_OFFLINE": "1"},
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1, proc.stderr
    assert "field 'dataset.hub'" in proc.stderr and "no-such-org/no-such-data" in proc.stderr


@pytest.mark.real_data("all 631 IBM speeches")
def test_the_real_ibm_csv_through_the_generic_adapter(tmp_path: Path) -> None:
    """631 real speeches read by the generic adapter equal the IBM adapter's speeches."""
    data = real_data_dir("ibm_debate_speeches")
    raw = {
        "name": "which_source",
        "description": "Which system wrote this speech?",
        "dataset": {
            "adapter": "generic",
            "file": str(data / "data.csv"),
            "fields": {
                "doc_id": "id",
                "variables": {"topic": "topic"},
                "text": "text",
                "gold": "source",
                "meta": ["topic_id"],
            },
        },
        "prompt": {"user": "Topic: {{ topic }}\n\n{{ transcript }}\n\nWho wrote it?"},
        "parser": {"patterns": ["source: (.+)"]},
        "metrics": [{"name": "accuracy"}],
    }
    path = tmp_path / "which_source.yaml"
    path.write_text(yaml.safe_dump(raw))
    generic = load_task_data(load_task_file(path))
    ibm = {d.doc_id: d for d in load_task_data(load_task("ibm_speech_likert")[0], "local", data.parent).docs}
    assert len(generic.docs) == 631 == len(ibm)
    for d in generic.docs:
        assert d.speeches[0].text == ibm[d.doc_id].speeches[0].text == d.fields["transcript"]
        assert (
            d.target == ibm[d.doc_id].meta["source"] == d.label and d.fields["topic"] == ibm[d.doc_id].fields["topic"]
        )
    assert {d.target for d in generic.docs} >= {"Human expert", "Project Debater", "Arg-GPT2"}


@pytest.mark.parametrize(
    ("dataset", "field", "message"),
    [
        (
            {"fields": {"gold": "winner", "text": "motion", "speeches": {"field": "turns"}}},
            "dataset.fields",
            "exactly one of text, texts, speeches",
        ),
        ({"fields": None}, "dataset", "needs dataset.fields"),
        ({"file": None}, "dataset", "needs dataset.file or dataset.hub"),
        ({"adapter": "debateart", "local_dir": "x"}, "dataset", "only for adapter 'generic'"),
        (
            {"fields": {"gold": "winner", "text": "motion", "variables": {"transcript": "motion"}}},
            "dataset.fields",
            "'transcript' is set by the adapter",
        ),
    ],
    ids=["two-text-sources", "no-fields", "no-source", "file-on-published-adapter", "transcript-variable"],
)
def test_invalid_generic_task_names_the_field(
    tmp_path: Path, dataset: dict[str, Any], field: str, message: str
) -> None:
    path = _task_variant(tmp_path, **dataset)
    with pytest.raises(UserError) as info:
        load_task_file(path)
    assert str(path) in str(info.value) and f"field '{field}'" in str(info.value) and message in str(info.value)


def _rows_file(tmp_path: Path, rows: list[Any], name: str = "bad.jsonl") -> Path:
    (tmp_path / name).write_text("".join(json.dumps(r) + "\n" for r in rows))
    return _task_variant(tmp_path, file=name)


@pytest.mark.parametrize(
    ("rows", "field", "message"),
    [
        ([{**ROWS[0], "winner": "C"}], "winner", "gold value 'C' is not in dataset.fields.label_map (A, B, draw)"),
        ([ROWS[0], ROWS[0]], "id", "record 2: duplicate id 'cw-01'"),
        ([{k: v for k, v in ROWS[0].items() if k != "motion"}], "motion", "record 1: no column 'motion'"),
        ([{**ROWS[0], "turns": "not a list"}], "turns", "expected a list of speeches"),
        ([{**ROWS[0], "turns": [{"name": "x"}]}], "turns", "expected a mapping with the key 'said'"),
        ([{**ROWS[0], "winner": None}], "winner", "record 1: no gold value"),
        (
            [ROWS[0], {**ROWS[1], "turns": [*ROWS[1]["turns"][:1], {**ROWS[1]["turns"][1], "position": "C"}]}],
            "turns",
            "record 2, speech 2: side 'C' is not in dataset.fields.speeches.side_map (A, B)",
        ),
        (
            [{**ROWS[0], "turns": [{"name": "Mara", "said": "no side given"}]}],
            "turns",
            "record 1, speech 1: no side (key 'position') is not in",
        ),
    ],
    ids=[
        "unmapped-gold",
        "duplicate-id",
        "missing-column",
        "speeches-not-a-list",
        "speech-without-text",
        "null-gold",
        "unmapped-side",
        "missing-side",
    ],
)
def test_bad_records_are_one_line_errors_naming_file_and_field(
    tmp_path: Path, rows: list[Any], field: str, message: str
) -> None:
    task = _rows_file(tmp_path, rows)
    line = invoke(
        "eval", "--task", str(task), "--model", "baseline/random", "--output-dir", str(tmp_path / "out")
    ).one_line_error()
    assert str(tmp_path / "bad.jsonl") in line and f"field '{field}'" in line and message in line
    with pytest.raises(UserError, match=re.escape(message)):
        debench.evaluate(str(task), "baseline/random", output_dir=tmp_path / "out")


def test_unreadable_files_are_one_line_errors(tmp_path: Path) -> None:
    (tmp_path / "broken.jsonl").write_text(json.dumps(ROWS[0]) + "\n{not json\n")
    with pytest.raises(UserError, match=r"broken.jsonl: line 2: not valid JSON"):
        load_task_data(load_task_file(_task_variant(tmp_path, file="broken.jsonl")))
    (tmp_path / "data.xlsx").write_text("x")
    with pytest.raises(UserError, match=re.escape("unknown data file type '.xlsx'")):
        load_task_data(load_task_file(_task_variant(tmp_path, file="data.xlsx")))
    with pytest.raises(UserError, match="data file not found"):
        load_task_data(load_task_file(_task_variant(tmp_path, file="nowhere.jsonl")))
    (tmp_path / "x.csv").write_text("id,motion\n1,m\n")
    with pytest.raises(UserError, match=r"x.csv: field 'winner': missing column\(s\) winner, turns"):
        load_task_data(load_task_file(_task_variant(tmp_path, file="x.csv")))
    with pytest.raises(UserError, match="generic task ships no sample"):
        load_task_data(load_task_file(TASK), "sample")


def test_texts_by_side_and_gold_numbers(tmp_path: Path) -> None:
    """Two columns, one per side; numeric gold kept as numbers; label keys 1 / 1.0 / "1" alike."""
    rows = [
        {"q": "m1", "a": "short", "b": "a much longer answer here", "score": 1.0},
        {"q": "m2", "a": "x y z w", "b": "y", "score": 0},
    ]
    (tmp_path / "pairs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    task = _task_variant(
        tmp_path,
        file="pairs.jsonl",
        fields={
            "variables": {"motion": "q"},
            "texts": {"pro": "a", "con": "b"},
            "gold": "score",
            "label_map": {1: "con", 0: "pro"},
        },
    )
    docs = load_task_data(load_task_file(task)).docs
    assert [d.doc_id for d in docs] == ["0", "1"] and [d.target for d in docs] == ["con", "pro"]
    assert docs[0].fields["transcript"] == "[Speech 1 — pro]\nshort\n\n[Speech 2 — con]\na much longer answer here"
    assert [s.side for s in docs[0].speeches] == ["pro", "con"]
    numeric = _task_variant(tmp_path, file="pairs.jsonl", fields={"texts": {"pro": "a", "con": "b"}, "gold": "score"})
    assert [d.target for d in load_task_data(load_task_file(numeric)).docs] == [1.0, 0]


def test_the_documented_example_runs_as_written(tmp_path: Path) -> None:
    """The generic task file of docs/tasks.md, as written, on the fixture's data."""
    page = (Path(__file__).resolve().parent.parent / "docs" / "tasks.md").read_text(encoding="utf-8")
    section = page.split("## A task over your own data set", 1)[1]
    block = section.split("```yaml\n", 1)[1].split("```", 1)[0]
    (tmp_path / "my_debates.yaml").write_text(block)
    shutil.copy(FIXTURE / "debates.jsonl", tmp_path / "debates.jsonl")
    proc = run_cli(
        "eval",
        "--task",
        str(tmp_path / "my_debates.yaml"),
        "--model",
        "baseline/last",
        "--output-dir",
        str(tmp_path / "out"),
        "--no-progress",
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads(next((tmp_path / "out" / "baseline__last").glob("results_my_debates_*.json")).read_text())
    last = [GOLD[r["turns"][-1]["position"]] for r in ROWS]
    gold = [GOLD[r["winner"]] for r in ROWS]
    assert res["metrics"]["accuracy"]["value"] == pytest.approx(
        sum(a == b for a, b in zip(last, gold, strict=True)) / 6
    )


def test_a_generic_task_may_include_a_shipped_one(tmp_path: Path) -> None:
    """Reusing debateart_winner's prompt, parser and metrics over a JSONL file: the inherited
    local_dir, sample and fetch sections do not get in the way."""
    from debench.data.fetch import fetch_targets
    from debench.run.task_lookup import tasks_dir

    shutil.copy(FIXTURE / "debates.jsonl", tmp_path / "debates.jsonl")
    raw = yaml.safe_load(TASK.read_text())["dataset"]
    raw["fields"]["variables"] = {"motion": "motion", "info_slide": "id", "pro_name": "id", "con_name": "id"}
    path = tmp_path / "art_like.yaml"
    path.write_text(
        yaml.safe_dump({"include": str(tasks_dir() / "debateart_winner.yaml"), "name": "art_like", "dataset": raw})
    )
    task = load_task_file(path)
    assert task.dataset.adapter == "generic" and task.dataset.fetch is not None  # inherited, unused
    assert fetch_targets([task]) == ([], ["art_like"])
    proc = run_cli(
        "eval", "--task", str(path), "--model", "baseline/first", "--output-dir", str(tmp_path / "out"), "--no-progress"
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads(next((tmp_path / "out" / "baseline__first").glob("results_art_like_*.json")).read_text())
    assert res["metrics"]["rmse"]["n"] == 6 and res["dataset"]["location"].endswith("debates.jsonl")


def test_csv_gold_numbers_are_typed_like_json(tmp_path: Path) -> None:
    (tmp_path / "s.csv").write_text("id,text,score\na,one,4\nb,two,3.5\nc,three,n/a\n")
    task = _task_variant(tmp_path, file="s.csv", fields={"doc_id": "id", "text": "text", "gold": "score"})
    docs = load_task_data(load_task_file(task)).docs
    assert [d.target for d in docs] == [4, 3.5, "n/a"] and isinstance(docs[0].target, int)
    assert [d.label for d in docs] == [4, None, "n/a"] and docs[1].fields["transcript"] == "two"
