"""Speech-rating metrics on the real IBM speeches, checked against plain re-computations.

The reference implementations below are deliberately written differently from the module
(plain Python loops over annotator pairs, hand-built confusion matrices, scipy and the
krippendorff package called directly on explicitly resampled data).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from itertools import combinations

import krippendorff
import numpy as np
import pytest
from conftest import real_data_dir
from scipy import stats

from debench.core.errors import UserError
from debench.data.ibm_speeches import load_ibm_speeches
from debench.metrics.base import get_metric, metric_names
from debench.metrics.params import refuse_bad_args
from debench.metrics.reports import get_report

NAMES = [
    "kendall_tau_c",
    "kappa_loo",
    "kappa_human",
    "krippendorff_alpha",
    "krippendorff_alpha_human",
    "source_pearson",
]


@pytest.fixture(scope="module")
def docs():
    return load_ibm_speeches(real_data_dir("ibm_debate_speeches"))


def obj(values) -> np.ndarray:
    arr = np.empty(len(values), dtype=object)
    arr[:] = list(values)
    return arr


def run(name: str, docs, preds, idx=None, **args):
    metric = get_metric(name)
    state = metric.prepare(docs, **args)
    return metric.value(state, obj(preds), idx)


# ------------------------------------------------------------------ reference computations


def ref_pairs(docs, min_shared=50):
    """Annotator pairs with >= min_shared common speeches, via set intersections."""
    rated = defaultdict(set)
    for d in docs:
        for a in d.meta["annotators"]:
            rated[a].add(d.doc_id)
    return sorted((a, b) for a, b in combinations(sorted(rated), 2) if len(rated[a] & rated[b]) >= min_shared)


def ref_kappa(xs, ys, cats, weights):
    """Weighted Cohen's kappa from a hand-built confusion matrix; None if undefined."""
    k = len(cats)
    pos = {c: i for i, c in enumerate(cats)}
    conf = [[0] * k for _ in range(k)]
    for x, y in zip(xs, ys, strict=True):
        conf[pos[x]][pos[y]] += 1
    n = sum(map(sum, conf))
    if n == 0:
        return None
    rows = [sum(conf[i]) for i in range(k)]
    cols = [sum(conf[i][j] for i in range(k)) for j in range(k)]

    def w(i, j):
        return abs(i - j) if weights == "linear" else (i - j) ** 2

    observed = sum(w(i, j) * conf[i][j] for i in range(k) for j in range(k)) / n
    expected = sum(w(i, j) * rows[i] * cols[j] for i in range(k) for j in range(k)) / (n * n)
    if expected == 0:
        return None
    return 1 - observed / expected


def ref_kappas(docs, judge, pairs, weights, *, judge_too=True):
    """Mean kappa over pairs: humans only, or the judge in place of each member in turn.

    ``docs``/``judge`` may contain repeats (an explicit bootstrap resample); a judge value of
    None means that speech is left out for the judge.
    """
    cats = sorted({1, 2, 3, 4, 5} | {v for v in judge if v is not None})
    values = []
    for a, b in pairs:
        ja, ha, hb = [], [], []
        for d, j in zip(docs, judge, strict=True):
            r = dict(zip(d.meta["annotators"], d.meta["ratings"], strict=True))
            if a in r and b in r:
                ha.append(r[a])
                hb.append(r[b])
                if j is not None:
                    ja.append((j, r[a], r[b]))
        if judge_too:
            candidates = [
                ref_kappa([t[0] for t in ja], [t[2] for t in ja], cats, weights),  # judge replaces a
                ref_kappa([t[0] for t in ja], [t[1] for t in ja], cats, weights),  # judge replaces b
            ]
        else:
            candidates = [ref_kappa(ha, hb, [1, 2, 3, 4, 5], weights)]
        values += [v for v in candidates if v is not None]
    return sum(values) / len(values) if values else None


def ref_alpha(docs, judge=None):
    """Ordinal alpha from an explicit coder x speech matrix (NaN where missing)."""
    annots = sorted({a for d in docs for a in d.meta["annotators"]})
    row = {a: i for i, a in enumerate(annots)}
    mat = np.full((len(annots) + (judge is not None), len(docs)), np.nan)
    for j, d in enumerate(docs):
        for a, r in zip(d.meta["annotators"], d.meta["ratings"], strict=True):
            mat[row[a], j] = r
        if judge is not None and judge[j] is not None:
            mat[-1, j] = judge[j]
    return float(krippendorff.alpha(reliability_data=mat, level_of_measurement="ordinal"))


def ref_source_pearson(docs, judge):
    j_by, h_by = defaultdict(list), defaultdict(list)
    for d, v in zip(docs, judge, strict=True):
        j_by[d.meta["source"]].append(v)
        h_by[d.meta["source"]].append(sum(d.meta["ratings"]) / len(d.meta["ratings"]))
    srcs = sorted(j_by)
    return stats.pearsonr([np.mean(j_by[s]) for s in srcs], [np.mean(h_by[s]) for s in srcs]).statistic


def rounded_mean(docs):
    return [min(5, max(1, math.floor(d.target + 0.5))) for d in docs]


def random_judge(docs, seed=7):
    return [int(v) for v in np.random.default_rng(seed).integers(1, 6, len(docs))]


# ------------------------------------------------------------------ registry, data shape


def test_metrics_registered():
    assert set(NAMES) <= set(metric_names())


@pytest.mark.real_data("annotator pairs sharing 50 or more of the 631 IBM speeches (the sample has 8)")
def test_real_data_pairs(docs):
    pairs = ref_pairs(docs)
    assert len(docs) == 631
    assert len(pairs) == 496


# ------------------------------------------------------------------ Kendall tau-c


@pytest.mark.parametrize("judge_fn", [rounded_mean, random_judge])
def test_tau_matches_scipy(docs, judge_fn):
    judge = judge_fn(docs)
    expected = stats.kendalltau(judge, [d.target for d in docs], variant="c").statistic
    assert run("kendall_tau_c", docs, judge) == pytest.approx(expected, abs=1e-12)


@pytest.mark.real_data("annotator pairs sharing 50 or more of the 631 IBM speeches (the sample has 8)")
def test_tau_levels(docs):
    assert run("kendall_tau_c", docs, rounded_mean(docs)) > 0.6
    assert abs(run("kendall_tau_c", docs, random_judge(docs))) < 0.1
    assert run("kendall_tau_c", docs, [3] * len(docs)) is None


# ------------------------------------------------------------------ kappa


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
@pytest.mark.real_data("annotator pairs sharing 50 or more of the 631 IBM speeches (the sample has 8)")
def test_kappa_human_matches_loop(docs, weights):
    expected = ref_kappas(docs, [None] * len(docs), ref_pairs(docs), weights, judge_too=False)
    got = run("kappa_human", docs, [None] * len(docs), weights=weights)
    assert got == pytest.approx(expected, abs=1e-12)
    # The figures quoted in the module docstring (Slonim et al. report 0.24).
    assert round(got, 3) == {"linear": 0.191, "quadratic": 0.271}[weights]


def test_default_weighting_is_quadratic(docs):
    preds = random_judge(docs)
    assert run("kappa_human", docs, preds) == run("kappa_human", docs, preds, weights="quadratic")
    assert run("kappa_loo", docs, preds) == run("kappa_loo", docs, preds, weights="quadratic")


@pytest.mark.parametrize("weights", ["linear", "quadratic"])
@pytest.mark.parametrize("judge_fn", [rounded_mean, random_judge])
def test_kappa_loo_matches_loop(docs, judge_fn, weights):
    judge = judge_fn(docs)
    expected = ref_kappas(docs, judge, ref_pairs(docs), weights)
    assert run("kappa_loo", docs, judge, weights=weights) == pytest.approx(expected, abs=1e-12)


@pytest.mark.real_data("annotator pairs sharing 50 or more of the 631 IBM speeches (the sample has 8)")
def test_kappa_loo_levels(docs):
    human = run("kappa_human", docs, [None] * len(docs))
    assert run("kappa_loo", docs, rounded_mean(docs)) > human  # the consensus beats a single human
    assert abs(run("kappa_loo", docs, random_judge(docs))) < 0.05
    # A constant judge agrees exactly at chance level with every annotator.
    assert run("kappa_loo", docs, [4] * len(docs)) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.real_data("annotator pairs sharing 50 or more of the 631 IBM speeches (the sample has 8)")
def test_kappa_loo_parse_failure_category(docs):
    """-1 (the paper's parse-failure score) is a category of its own, below 1."""
    judge = rounded_mean(docs)
    for i in range(0, len(judge), 9):
        judge[i] = -1
    expected = ref_kappas(docs, judge, ref_pairs(docs), "quadratic")
    got = run("kappa_loo", docs, judge)
    assert got == pytest.approx(expected, abs=1e-12)
    assert got < run("kappa_loo", docs, rounded_mean(docs))


@pytest.mark.real_data("annotator pairs sharing 50 or more of the 631 IBM speeches (the sample has 8)")
def test_human_annotator_as_judge(docs):
    """The busiest annotator as the judge, on the speeches they rated."""
    counts = Counter(a for d in docs for a in d.meta["annotators"])
    star, _ = counts.most_common(1)[0]
    sub = [d for d in docs if star in d.meta["annotators"]]
    judge = [dict(zip(d.meta["annotators"], d.meta["ratings"], strict=True))[star] for d in sub]
    pairs = ref_pairs(sub)
    assert run("kappa_loo", sub, judge) == pytest.approx(ref_kappas(sub, judge, pairs, "quadratic"), abs=1e-12)
    assert run("kendall_tau_c", sub, judge) == pytest.approx(
        stats.kendalltau(judge, [d.target for d in sub], variant="c").statistic, abs=1e-12
    )
    assert any(star in p for p in pairs)
    # Over all documents, with the judge missing (None) where the annotator did not rate.
    full = [dict(zip(d.meta["annotators"], d.meta["ratings"], strict=True)).get(star) for d in docs]
    assert run("kappa_loo", docs, full) == pytest.approx(
        ref_kappas(docs, full, ref_pairs(docs), "quadratic"), abs=1e-12
    )
    assert run("krippendorff_alpha", sub, judge) == pytest.approx(ref_alpha(sub, judge), abs=1e-9)


@pytest.mark.real_data("annotator pairs sharing 50 or more of the 631 IBM speeches (the sample has 8)")
def test_bootstrap_weights_equal_explicit_resample(docs):
    small = docs[::5]
    pairs = ref_pairs(small, min_shared=10)
    assert len(pairs) > 5
    judge = random_judge(small, seed=3)
    judge[::11] = [-1] * len(judge[::11])
    idx = np.random.default_rng(11).integers(0, len(small), len(small))
    res_docs = [small[i] for i in idx]
    res_judge = [judge[i] for i in idx]
    for w in ["linear", "quadratic"]:
        got = run("kappa_loo", small, judge, idx, min_shared=10, weights=w)
        assert got == pytest.approx(ref_kappas(res_docs, res_judge, pairs, w), abs=1e-12)
        got = run("kappa_human", small, judge, idx, min_shared=10, weights=w)
        assert got == pytest.approx(ref_kappas(res_docs, res_judge, pairs, w, judge_too=False), abs=1e-12)
    assert run("kendall_tau_c", small, judge, idx) == pytest.approx(
        stats.kendalltau(res_judge, [d.target for d in res_docs], variant="c").statistic, abs=1e-12
    )
    assert run("krippendorff_alpha", small, judge, idx) == pytest.approx(ref_alpha(res_docs, res_judge), abs=1e-9)
    assert run("krippendorff_alpha_human", small, judge, idx) == pytest.approx(ref_alpha(res_docs), abs=1e-9)
    assert run("source_pearson", small, judge, idx) == pytest.approx(ref_source_pearson(res_docs, res_judge), abs=1e-9)


def test_kappa_bad_weights():
    """The metric's declaration refuses weights it does not know, when the task file is loaded."""
    metric = get_metric("kappa_loo")
    with pytest.raises(
        UserError, match=r"field 'metrics.0.args.weights': kappa_loo: Input should be 'linear' or 'quadratic'"
    ):
        refuse_bad_args(metric.name, metric.params, {"weights": "cubic"}, field="metrics.0.args")


def test_kappa_no_pairs(docs):
    assert run("kappa_loo", docs[:3], [3, 4, 5]) is None
    assert run("kappa_human", docs[:3], [3, 4, 5]) is None


# ------------------------------------------------------------------ Krippendorff


@pytest.mark.parametrize("judge_fn", [rounded_mean, random_judge])
def test_alpha_matches_reliability_matrix(docs, judge_fn):
    judge = judge_fn(docs)
    assert run("krippendorff_alpha", docs, judge) == pytest.approx(ref_alpha(docs, judge), abs=1e-9)


@pytest.mark.real_data("annotator pairs sharing 50 or more of the 631 IBM speeches (the sample has 8)")
def test_alpha_human_and_parse_failures(docs):
    human = run("krippendorff_alpha_human", docs, [None] * len(docs))
    assert human == pytest.approx(ref_alpha(docs), abs=1e-9)
    assert human == pytest.approx(0.251, abs=5e-4)
    judge = rounded_mean(docs)
    judge[::7] = [-1] * len(judge[::7])
    assert run("krippendorff_alpha", docs, judge) == pytest.approx(ref_alpha(docs, judge), abs=1e-9)


# ------------------------------------------------------------------ per-source Pearson


@pytest.mark.parametrize("judge_fn", [rounded_mean, random_judge])
def test_source_pearson_matches_scipy(docs, judge_fn):
    judge = judge_fn(docs)
    assert run("source_pearson", docs, judge) == pytest.approx(ref_source_pearson(docs, judge), abs=1e-9)


def test_source_pearson_undefined(docs):
    assert run("source_pearson", docs, [3] * len(docs)) is None
    two = [d for d in docs if d.meta["source"] in ("Summit", "Human expert")]
    assert run("source_pearson", two, rounded_mean(two)) is None
    assert run("source_pearson", docs, rounded_mean(docs)) > 0.9


# ------------------------------------------------------------------ reports


@pytest.mark.real_data("annotator pairs sharing 50 or more of the 631 IBM speeches (the sample has 8)")
def test_reports(docs):
    judge = rounded_mean(docs)
    judge[0] = -1
    judge[1] = None
    human = get_report("human_rating_distribution")(judge, docs)
    assert list(human) == ["1", "2", "3", "4", "5"]
    assert human == {str(k): v for k, v in Counter(r for d in docs for r in d.meta["ratings"]).items()}
    assert sum(human.values()) == 15 * len(docs)

    dist = get_report("prediction_distribution")(judge, docs)
    assert dist["-1"] == 1 and dist["None"] == 1 and sum(dist.values()) == len(docs)

    means = get_report("mean_by_source")(judge, docs)
    assert set(means) == {d.meta["source"] for d in docs}
    for src in ("Summit", docs[1].meta["source"]):
        scored = [(j, d) for j, d in zip(judge, docs, strict=True) if d.meta["source"] == src and j is not None]
        assert means[src]["n"] == len(scored)
        assert means[src]["judge_mean"] == pytest.approx(sum(j for j, _ in scored) / len(scored), abs=1e-12)
        assert means[src]["human_mean"] == pytest.approx(
            np.mean([np.mean(d.meta["ratings"]) for _, d in scored]), abs=1e-12
        )
    # The per-source means the report shows are the ones source_pearson correlates.
    srcs = sorted(means)
    ok = [(j, d) for j, d in zip(judge, docs, strict=True) if j is not None]
    assert run("source_pearson", [d for _, d in ok], [j for j, _ in ok]) == pytest.approx(
        stats.pearsonr([means[s]["judge_mean"] for s in srcs], [means[s]["human_mean"] for s in srcs]).statistic,
        abs=1e-12,
    )


def test_scoring_reads_each_speech_s_ratings_once(docs, monkeypatch):
    """The kappas, alpha and the alt-test prepare from the same checked ratings, read once per
    scoring; the alt-test report comes from the metrics' own test, equal to the report alone."""
    from debench.data.samples import SampleRecord
    from debench.metrics import alt_test, annotators, speech_rating
    from debench.metrics.alt_test import alt_test_report
    from debench.run.task_lookup import load_task
    from debench.scoring.scores import score

    task, _ = load_task("ibm_speech_likert")
    judge = random_judge(docs)
    records = {
        d.doc_id: SampleRecord(doc_id=d.doc_id, status="ok", prediction=j) for d, j in zip(docs, judge, strict=True)
    }
    read = Counter()
    check = annotators.human_ratings
    for module in (annotators, speech_rating, alt_test):  # wherever a metric could read them
        monkeypatch.setattr(module, "human_ratings", lambda d: read.update([d.doc_id]) or check(d), raising=False)
    report = score(task, docs, records, n_bootstrap=20)
    assert set(read.values()) == {1} and len(read) == len(docs)
    monkeypatch.undo()
    ordered = sorted(zip(docs, judge, strict=True), key=lambda p: p[0].doc_id)
    alone = alt_test_report([d for d, _ in ordered], [j for _, j in ordered], epsilon=0.1)
    assert report.reports["alt_test"] == alone
