"""The alternative annotator test (``debench.metrics.alt_test``) against a second implementation
written here from the paper (Calderon, Reichart & Dror 2025, Algorithm 1): plain loops over
annotators and documents, dictionaries of ratings, the t statistic by hand and scipy's Student t
distribution only for its tail; Benjamini–Yekutieli as the paper states it. Checked on the real IBM
speeches (the committed baselines' and the embedded model's predictions, an oracle, a seeded random
judge) and on small hand-made cases with known answers. The numbers themselves are frozen: the
committed results files' and ``tests/frozen/alt_test_answers.json`` (written by the implementation
before the test was vectorised) must come out again to the last digit."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from alt_test_cases import FROZEN, alt_test_answers, cases, oracle, paired_answers
from conftest import real_data_dir
from scipy.special import stdtr
from scoring_cases import Case

from debench.core.errors import UserError
from debench.data.base import Doc
from debench.data.ibm_speeches import load_ibm_speeches
from debench.metrics.alt_test import alt_test_report
from debench.metrics.base import get_metric
from debench.metrics.bootstrap import point_and_ci
from debench.metrics.params import refuse_bad_args

REPO = Path(__file__).resolve().parent.parent
SUBMISSIONS = REPO / "leaderboard" / "submissions"
COMMITTED = sorted((REPO / "leaderboard").glob("*/*/results_ibm_speech_likert*.json"))


# ------------------------------------------------------------------ the plain implementation


def plain_alt_test(
    docs: list[Doc], preds: list[object], epsilon: float = 0.1, q: float = 0.05, min_docs: int = 30
) -> dict[str, object]:
    humans: dict[object, dict[str, float]] = {}
    judge: dict[str, float] = {}
    for doc, pred in zip(docs, preds, strict=True):
        if isinstance(pred, (int, float)) and not isinstance(pred, bool) and len(doc.meta["ratings"]) >= 2:
            judge[doc.doc_id] = float(pred)
            for who, rating in zip(doc.meta["annotators"], doc.meta["ratings"], strict=True):
                humans.setdefault(who, {})[doc.doc_id] = float(rating)
    rows = []
    for excluded in sorted(humans):
        mine = humans[excluded]
        if len(mine) < min_docs:
            continue
        judge_wins = []
        human_wins = []
        for doc_id, own in mine.items():
            others = [humans[h][doc_id] for h in humans if h != excluded and doc_id in humans[h]]
            judge_align = -math.sqrt(sum((judge[doc_id] - r) ** 2 for r in others) / len(others))
            human_align = -math.sqrt(sum((own - r) ** 2 for r in others) / len(others))
            judge_wins.append(1 if judge_align >= human_align else 0)
            human_wins.append(1 if human_align >= judge_align else 0)
        diffs = [h - f for h, f in zip(human_wins, judge_wins, strict=True)]
        n = len(diffs)
        mean = sum(diffs) / n
        sd = math.sqrt(sum((x - mean) ** 2 for x in diffs) / (n - 1)) if n > 1 else 0.0
        if n < 2:
            p = math.nan
        elif sd == 0:
            p = 0.0 if mean < epsilon else 1.0
        else:
            p = float(stdtr(n - 1, (mean - epsilon) / (sd / math.sqrt(n))))
        rows.append({"id": excluded, "n": n, "rho_f": sum(judge_wins) / n, "rho_h": sum(human_wins) / n, "p": p})
    m = len(rows)
    harmonic = sum(1 / i for i in range(1, m + 1))
    by_p = sorted(range(m), key=lambda i: (math.isnan(rows[i]["p"]), rows[i]["p"]))
    k_max = 0
    for rank, i in enumerate(by_p, start=1):
        if rows[i]["p"] <= rank / m * q / harmonic:
            k_max = rank
    for rank, i in enumerate(by_p, start=1):
        rows[i]["won"] = rank <= k_max
    wins = sum(1 for r in rows if r["won"])
    return {
        "rows": rows,
        "omega": wins / m if m else None,
        "rho": sum(r["rho_f"] for r in rows) / m if m else None,
    }


# ------------------------------------------------------------------ data


@pytest.fixture(scope="module")
def speeches() -> list[Doc]:
    return load_ibm_speeches(real_data_dir("ibm_debate_speeches"))


def committed_predictions(docs: list[Doc], folder: str, task: str = "ibm_speech_likert") -> list[object]:
    (path,) = (
        p for p in (SUBMISSIONS / folder).glob(f"samples_{task}_*.jsonl") if p.stem.count("_") == task.count("_") + 2
    )
    by_id = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        by_id[record["doc_id"]] = record["prediction"] if record["status"] == "ok" else None
    return [by_id.get(d.doc_id) for d in docs]


def seeded_random(docs: list[Doc], seed: int = 7) -> list[object]:
    rng = np.random.default_rng(seed)
    return [int(x) for x in rng.integers(1, 6, size=len(docs))]


def metric_value(name: str, docs: list[Doc], preds: list[object], **args: object) -> float | None:
    metric = get_metric(name)
    arr = np.empty(len(preds), dtype=object)
    arr[:] = preds
    return metric.value(metric.prepare(docs, **args), arr)


def assert_same(report: dict[str, object], plain: dict[str, object]) -> None:
    rows = report["annotators"]
    assert isinstance(rows, list)
    assert len(rows) == len(plain["rows"])  # type: ignore[arg-type]
    for mine, theirs in zip(rows, plain["rows"], strict=True):  # type: ignore[call-overload]
        assert mine["id"] == theirs["id"] and mine["n"] == theirs["n"] and mine["won"] == theirs["won"]
        assert mine["rho_f"] == pytest.approx(theirs["rho_f"], abs=1e-12)
        assert mine["rho_h"] == pytest.approx(theirs["rho_h"], abs=1e-12)
        assert mine["p"] == pytest.approx(theirs["p"], rel=1e-9, abs=1e-12)
    assert report["winning_rate"] == plain["omega"]
    assert report["advantage_probability"] == pytest.approx(plain["rho"], abs=1e-9)


# ------------------------------------------------------------------ the real speeches


JUDGES = {
    "baseline/length": lambda docs: committed_predictions(docs, "baseline__length"),
    "baseline/majority": lambda docs: committed_predictions(docs, "baseline__majority"),
    "local/smollm2": lambda docs: committed_predictions(docs, "local__smollm2"),
    "oracle": oracle,
    "random(seed 7)": seeded_random,
}


@pytest.mark.parametrize("judge", sorted(JUDGES))
def test_equals_the_plain_implementation_on_the_ibm_speeches(speeches: list[Doc], judge: str) -> None:
    preds = JUDGES[judge](speeches)
    report = alt_test_report(speeches, preds)
    assert_same(report, plain_alt_test(speeches, preds))
    # 82 annotators; 64 rated 30 or more of the 631 speeches
    assert (report["n_annotators"], report["n_skipped"], report["n_scored"]) == (64, 18, 631)
    assert metric_value("alt_test_winning_rate", speeches, preds) == report["winning_rate"]
    assert metric_value("advantage_probability", speeches, preds) == pytest.approx(
        report["advantage_probability"], abs=1e-12
    )


def test_the_oracle_passes_and_random_and_length_fail(speeches: list[Doc]) -> None:
    verdicts = {
        name: alt_test_report(speeches, JUDGES[name](speeches))
        for name in ("oracle", "random(seed 7)", "baseline/length")
    }
    assert verdicts["oracle"]["passed"] is True and verdicts["oracle"]["winning_rate"] == 1.0
    assert verdicts["random(seed 7)"]["passed"] is False and verdicts["random(seed 7)"]["winning_rate"] == 0.0
    assert verdicts["baseline/length"]["passed"] is False


def test_a_constant_answer_near_the_crowd_passes(speeches: list[Doc]) -> None:
    """The crowd's ratings are noisy (kappa 0.27): the majority baseline's constant rating is closer to
    the other 14 annotators than most single annotators are, so it passes the test at epsilon 0.1
    (docs/tasks.md says to read the alt-test beside tau-c, which a constant cannot have)."""
    report = alt_test_report(speeches, JUDGES["baseline/majority"](speeches))
    assert report["passed"] is True
    assert report["winning_rate"] == pytest.approx(53 / 64)


def test_advantage_probability_ci_and_no_ci_for_the_winning_rate(speeches: list[Doc]) -> None:
    preds = np.empty(len(speeches), dtype=object)
    preds[:] = JUDGES["local/smollm2"](speeches)
    rho = get_metric("advantage_probability")
    est = point_and_ci(rho, rho.prepare(speeches), preds, 200, 1)
    assert est.ci95 is not None and est.ci95[0] < est.value < est.ci95[1]  # type: ignore[operator]
    # a resample is the same as the test's per-annotator means on the drawn speeches (with repeats)
    idx = np.random.default_rng(3).integers(0, len(speeches), size=len(speeches))
    drawn = [speeches[i] for i in idx]
    drawn = [d.model_copy(update={"doc_id": f"{d.doc_id}#{k}"}) for k, d in enumerate(drawn)]
    tested = {r["id"] for r in alt_test_report(speeches, list(preds))["annotators"]}  # fixed by the sample itself
    rows = [r for r in plain_alt_test(drawn, [preds[i] for i in idx], min_docs=1)["rows"] if r["id"] in tested]  # type: ignore[union-attr]
    assert rho.value(rho.prepare(speeches), preds, idx) == pytest.approx(
        sum(r["rho_f"] for r in rows) / len(rows), abs=1e-12
    )
    omega = get_metric("alt_test_winning_rate")
    est = point_and_ci(omega, omega.prepare(speeches), preds, 200, 1)
    assert est.value == 0.0 and est.ci95 is None and est.note and "no CI" in est.note


# ------------------------------------------------------------------ the numbers, to the last digit


@pytest.mark.real_data("the committed results were computed on the real speeches")
@pytest.mark.parametrize("path", COMMITTED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_committed_results_come_out_again_to_the_last_digit(path: Path) -> None:
    from debench.data.loading import load_local
    from debench.run.task_lookup import load_task
    from debench.scoring.predictions import load_predictions

    committed = json.loads(path.read_text(encoding="utf-8"))
    task, _ = load_task(committed["task"]["name"])
    docs = load_local(task, real_data_dir("ibm_debate_speeches").parent).docs
    records = load_predictions(path.parent / committed["samples_file"], task, docs)
    now = alt_test_answers(task, docs, {r.doc_id: r for r in records})
    assert now["alt_test"] == committed["reports"]["alt_test"]
    for name, value in now["metrics"].items():
        assert value == committed["metrics"][name], name


def test_the_committed_results_are_found() -> None:
    assert len(COMMITTED) >= 8 and {p.parent.name for p in COMMITTED} >= {"baseline__majority", "local__smollm2"}


FROZEN_ANSWERS = json.loads(FROZEN.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def frozen_cases() -> dict[str, Case]:
    return {case[0]: case for case in cases(real_data_dir("ibm_debate_speeches").parent)}


def test_every_frozen_case_is_still_computed(frozen_cases: dict[str, Case]) -> None:
    assert sorted(frozen_cases) == sorted(FROZEN_ANSWERS["scores"])


@pytest.mark.real_data("the frozen answers were computed on the real speeches")
@pytest.mark.parametrize("name", sorted(FROZEN_ANSWERS["scores"]))
def test_the_frozen_answers_come_out_again_to_the_last_digit(frozen_cases: dict[str, Case], name: str) -> None:
    _, task, docs, records = frozen_cases[name]
    assert json.loads(json.dumps(alt_test_answers(task, docs, records))) == FROZEN_ANSWERS["scores"][name]


@pytest.mark.slow  # 160 permutations, each running the test twice on the 631 speeches
@pytest.mark.real_data("the frozen answers were computed on the real speeches")
def test_the_frozen_paired_tests_come_out_again_to_the_last_digit(frozen_cases: dict[str, Case]) -> None:
    assert paired_answers(frozen_cases) == FROZEN_ANSWERS["paired"]


def test_the_frozen_comparison_can_fail(frozen_cases: dict[str, Case]) -> None:
    """One speech's prediction changed moves the p-values; so does the last bit of one of them."""
    name, task, docs, records = frozen_cases["ibm/majority"]
    first = docs[0].doc_id
    changed = {**records, first: records[first].model_copy(update={"prediction": 1})}
    assert alt_test_answers(task, docs, changed) != FROZEN_ANSWERS["scores"][name]
    report = json.loads(json.dumps(FROZEN_ANSWERS["scores"][name]))
    report["alt_test"]["annotators"][0]["p"] = float(np.nextafter(report["alt_test"]["annotators"][0]["p"], 1.0))
    assert report != FROZEN_ANSWERS["scores"][name]


# ------------------------------------------------------------------ the arrays, bit for bit


def test_segment_sums_are_numpys_sums_bit_for_bit() -> None:
    from debench.metrics.alt_test import segment_sums

    rng = np.random.default_rng(0)
    for scale in (1.0, 1e-3, 1e6):
        sizes = rng.integers(1, 700, size=40)
        x = rng.random(int(sizes.sum())) * scale
        starts = np.cumsum(sizes) - sizes
        expected = [np.sum(x[a : a + k]) for a, k in zip(starts, sizes, strict=True)]
        assert segment_sums(x, sizes).tolist() == expected
        # np.add.reduceat alone (a segment's first element plus the pairwise sum of the rest) differs
        assert np.add.reduceat(x, starts).tolist() != expected
    assert segment_sums(np.zeros(0), np.zeros(0, dtype=int)).tolist() == []


def test_the_t_tests_are_scipys_ttest_1samp_bit_for_bit() -> None:
    """Differences W_h - W_f (-1, 0, 1) of every length from 2 to 130 (numpy sums in blocks of 128)
    and a few longer, constant ones included, and arbitrary floats: the same p as scipy's own test,
    to the last digit."""
    import warnings

    from scipy.stats import ttest_1samp

    from debench.metrics.alt_test import one_sided_t_tests

    rng = np.random.default_rng(1)
    sizes = np.r_[np.arange(2, 131), [203, 256, 257, 400, 30, 30]]
    diff = rng.choice([-1.0, 0.0, 1.0], p=[0.1, 0.6, 0.3], size=int(sizes.sum()))
    diff[-60:-30] = 0.0  # constant samples: p = 0 below epsilon, 1 above
    diff[-30:] = 1.0
    starts = np.cumsum(sizes) - sizes
    for values, epsilon in ((diff, 0.1), (diff, 0.0), (rng.normal(0, 1, size=len(diff)), 0.2)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # scipy warns of a constant sample
            expected = [
                float(ttest_1samp(values[a : a + k], epsilon, alternative="less").pvalue)
                for a, k in zip(starts, sizes, strict=True)
            ]
        # exactly equal (NaN where both are: a constant sample at epsilon 0)
        np.testing.assert_array_equal(one_sided_t_tests(values, sizes, epsilon), expected)
    assert one_sided_t_tests(diff, sizes, 0.1)[-2:].tolist() == [0.0, 1.0]


# ------------------------------------------------------------------ small cases with known answers


def _doc(i: int, ratings: list[int], annotators: list[str]) -> Doc:
    return Doc(doc_id=f"d{i}", target=sum(ratings) / len(ratings), meta={"ratings": ratings, "annotators": annotators})


def test_ties_count_for_both_sides() -> None:
    # three annotators who always agree, and a judge who agrees with them: every comparison is a tie
    docs = [_doc(i, [3, 3, 3], ["a", "b", "c"]) for i in range(30)]
    report = alt_test_report(docs, [3] * 30)
    assert [(r["rho_f"], r["rho_h"]) for r in report["annotators"]] == [(1.0, 1.0)] * 3
    # d = W_h - W_f = 0 everywhere < epsilon: the constant sample rejects H0 (scipy gives p = 0)
    assert report["winning_rate"] == 1.0 and report["passed"] is True
    assert_same(report, plain_alt_test(docs, [3] * 30))
    # with epsilon 0 the judge must do strictly better than ties: never rejected
    assert alt_test_report(docs, [3] * 30, epsilon=0.0)["winning_rate"] == 0.0


def test_annotators_below_the_minimum_are_left_out_and_fewer_than_three_is_undefined() -> None:
    rng = np.random.default_rng(5)
    docs = [
        _doc(i, [int(x) for x in rng.integers(1, 6, size=3)], ["a", "b", "c" if i < 29 else "d"]) for i in range(40)
    ]
    preds = [int(x) for x in rng.integers(1, 6, size=40)]
    report = alt_test_report(docs, preds)
    assert [r["id"] for r in report["annotators"]] == ["a", "b"]  # c: 29 speeches, d: 11
    assert report["n_skipped"] == 2
    assert report["winning_rate"] is None and report["passed"] is None
    assert "3 or more annotators with 30 or more rated documents among the 40 scored ones; 2 have" in report["note"]
    assert metric_value("alt_test_winning_rate", docs, preds) is None
    assert alt_test_report(docs, preds, min_docs=10)["n_annotators"] == 4
    assert_same(alt_test_report(docs, preds, min_docs=10), plain_alt_test(docs, preds, min_docs=10))


def test_benjamini_yekutieli_is_stricter_than_benjamini_hochberg() -> None:
    """p = 0.012, 0.02, 0.9 over three annotators: Benjamini–Hochberg at 0.05 rejects the first two
    (0.012 <= 0.05/3, 0.02 <= 0.1/3), Benjamini–Yekutieli divides the levels by H_3 = 11/6 and
    rejects neither (0.012 > 0.05/3/H_3 = 0.00909, 0.02 > 0.01818)."""
    from debench.metrics.alt_test import benjamini_yekutieli

    p = np.array([0.012, 0.02, 0.9])
    assert [pv <= rank / 3 * 0.05 for rank, pv in enumerate(sorted(p), start=1)] == [True, True, False]
    rejected, adjusted = benjamini_yekutieli(p, 0.05)
    assert rejected.tolist() == [False, False, False]
    harmonic = 11 / 6
    assert adjusted.tolist() == pytest.approx([0.02 * 3 * harmonic / 2, 0.02 * 3 * harmonic / 2, 1.0])
    rejected, adjusted = benjamini_yekutieli(np.array([0.01, 0.001, 0.9]), 0.05)
    assert rejected.tolist() == [True, True, False]  # 0.001 <= 0.00909 and 0.01 <= 0.01818
    assert (adjusted <= 0.05).tolist() == rejected.tolist()


# ------------------------------------------------------------------ through debench score


def test_debench_score_gives_the_alt_test_from_a_predictions_file(tmp_path: Path, speeches: list[Doc]) -> None:
    from clihelp import run_cli

    from debench.scoring.results import validate_results_dict

    preds = oracle(speeches)
    file = tmp_path / "oracle.jsonl"
    file.write_text(
        "".join(json.dumps({"doc_id": d.doc_id, "prediction": p}) + "\n" for d, p in zip(speeches, preds, strict=True))
    )
    env = {"DEBENCH_DATA_DIR": str(real_data_dir("ibm_debate_speeches").parent)}
    out = tmp_path / "scored.json"
    proc = run_cli(
        "score",
        "--task",
        "ibm_speech_likert",
        "--predictions",
        str(file),
        "--output",
        str(out),
        "--bootstrap",
        "50",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    validate_results_dict(res)
    report = res["reports"]["alt_test"]
    assert (
        report["passed"] is True and report["epsilon"] == 0.1 and report["alpha"] == 0.05 and report["min_docs"] == 30
    )
    assert_same(report, plain_alt_test(speeches, preds))
    omega, rho = res["metrics"]["alt_test_winning_rate"], res["metrics"]["advantage_probability"]
    assert (omega["value"], omega["ci95"], omega["n"]) == (1.0, None, 631) and "no CI" in omega["note"]
    assert rho["value"] == pytest.approx(plain_alt_test(speeches, preds)["rho"], abs=1e-12) and rho["ci95"] is not None
    # a --limit run too small for the test: undefined, and why
    out = tmp_path / "small.json"
    file.write_text(
        "".join(
            json.dumps({"doc_id": d.doc_id, "prediction": p}) + "\n" for d, p in zip(speeches[:40], preds, strict=False)
        )
    )
    proc = run_cli(
        "score",
        "--task",
        "ibm_speech_likert",
        "--predictions",
        str(file),
        "--output",
        str(out),
        "--limit",
        "40",
        "--bootstrap",
        "0",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    small = json.loads(out.read_text())
    assert small["metrics"]["alt_test_winning_rate"]["value"] is None and small["reports"]["alt_test"]["passed"] is None
    assert (
        "3 or more annotators with 30 or more rated documents among the 40 scored ones; 0 have"
        in small["metrics"]["alt_test_winning_rate"]["note"]
    )


def test_a_generic_task_maps_ratings_and_annotators(tmp_path: Path) -> None:
    """A task written in YAML only over a JSONL file whose records carry their annotators' ratings:
    the metrics and the report come out as for the IBM speeches, equal to the plain implementation."""
    import yaml
    from clihelp import run_cli

    rng = np.random.default_rng(11)
    records, preds = [], []
    for i in range(45):
        quality = int(rng.integers(1, 6))
        ratings = [int(np.clip(quality + rng.integers(-1, 2), 1, 5)) for _ in range(4)]
        records.append(
            {
                "id": f"t{i}",
                "text": f"text {i}",
                "mean": sum(ratings) / 4,
                "ratings": ratings,
                "annotators": ["ann", "bob", "cyd", "dee"],
            }
        )
        preds.append(quality)
    (tmp_path / "rated.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    args = {"epsilon": 0.2}
    task = {
        "name": "rated_texts",
        "version": 1,
        "description": "Rate texts 1-5 like four annotators.",
        "dataset": {
            "adapter": "generic",
            "file": "rated.jsonl",
            "fields": {"doc_id": "id", "text": "text", "gold": "mean", "meta": ["ratings", "annotators"]},
        },
        "prompt": {"user": "Rate this text 1-5: {{ transcript }}"},
        "parser": {"patterns": ["Score:\\s*([1-5])"], "type": "int", "choices": [1, 2, 3, 4, 5]},
        "metrics": [
            {"name": "alt_test_winning_rate", "args": args},
            {"name": "advantage_probability", "args": dict(args)},  # not one object: yaml would write an alias
        ],
    }
    (tmp_path / "rated.yaml").write_text(yaml.safe_dump(task))
    (tmp_path / "p.jsonl").write_text(
        "".join(json.dumps({"doc_id": r["id"], "prediction": p}) + "\n" for r, p in zip(records, preds, strict=True))
    )
    out = tmp_path / "scored.json"
    proc = run_cli(
        "score",
        "--task",
        str(tmp_path / "rated.yaml"),
        "--predictions",
        str(tmp_path / "p.jsonl"),
        "--output",
        str(out),
        "--bootstrap",
        "50",
    )
    assert proc.returncode == 0, proc.stderr
    res = json.loads(out.read_text())
    docs = [
        Doc(doc_id=r["id"], target=r["mean"], meta={"ratings": r["ratings"], "annotators": r["annotators"]})
        for r in records
    ]
    plain = plain_alt_test(docs, preds, epsilon=0.2)
    assert res["reports"]["alt_test"]["epsilon"] == 0.2 and res["reports"]["alt_test"]["n_annotators"] == 4
    assert_same(res["reports"]["alt_test"], plain)
    assert res["metrics"]["alt_test_winning_rate"]["value"] == plain["omega"]
    # the two metrics must share their args
    task["metrics"][1]["args"] = {"epsilon": 0.1}
    (tmp_path / "rated.yaml").write_text(yaml.safe_dump(task))
    proc = run_cli(
        "score",
        "--task",
        str(tmp_path / "rated.yaml"),
        "--predictions",
        str(tmp_path / "p.jsonl"),
        "--output",
        str(out),
    )
    assert proc.returncode == 2 and "the alt-test metrics must share their args" in proc.stderr


@pytest.mark.parametrize(
    ("args", "field", "message"),
    [
        ({"epsilon": 1.5}, "epsilon", "Input should be less than 1"),
        ({"alpha": 0}, "alpha", "Input should be greater than 0"),
        ({"min_docs": 1}, "min_docs", "Input should be greater than or equal to 2"),
        ({"min_docs": 2.5}, "min_docs", "Input should be a valid integer"),
        ({"epsilon": "0.1"}, "epsilon", "Input should be a valid number"),
        ({"epsilon": float("nan")}, "epsilon", "Input should be a finite number"),
        ({"epsilon": 0.1, "eps": 0.2}, "eps", "unknown argument; did you mean 'epsilon'?"),
    ],
)
def test_bad_arguments_are_one_clear_error(args: dict[str, object], field: str, message: str) -> None:
    """The metric's declaration (``Metric.params``) refuses them, naming the argument."""
    metric = get_metric("advantage_probability")
    with pytest.raises(UserError) as exc:
        refuse_bad_args(metric.name, metric.params, args, field="metrics.3.args")
    assert str(exc.value) == f"field 'metrics.3.args.{field}': advantage_probability: {message}"
