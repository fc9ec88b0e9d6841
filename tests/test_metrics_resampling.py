"""The fast bootstrap draws the same resamples as one ``rng.integers(0, n, size=n)`` per resample,
and its shortcuts (blocks of resamples, float32 pair sums, contingency tables) never change an
answer."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from conftest import DATA_DIR, real_data_dir
from scipy import stats

from debench.data.loading import load_local
from debench.metrics import bootstrap, kappa, paired, speech_rating
from debench.metrics.annotators import annotator_pairs
from debench.metrics.base import get_metric
from debench.metrics.bootstrap import resample_counts
from debench.run.task_lookup import load_task

pytestmark = pytest.mark.real_data(
    "the real annotator table (pairs of the 631 IBM speeches); the sample has 8 speeches"
)


@pytest.fixture(scope="module")
def docs():
    real_data_dir("ibm_debate_speeches")
    task, _ = load_task("ibm_speech_likert")
    return load_local(task, DATA_DIR).docs


def obj(values) -> np.ndarray:
    arr = np.empty(len(values), dtype=object)
    arr[:] = list(values)
    return arr


def one_at_a_time(n: int, n_boot: int, seed: int) -> np.ndarray:
    """The resamples as the scoring drew them before it was batched."""
    rng = np.random.default_rng(seed)
    return np.array([np.bincount(rng.integers(0, n, size=n), minlength=n) for _ in range(n_boot)], dtype=float)


@pytest.mark.parametrize("n", [1, 2, 7, 100, 631, 5000])
def test_blocks_of_resamples_are_the_same_stream(n, monkeypatch):
    expected = one_at_a_time(n, 37, seed=1234 + n)
    assert np.array_equal(np.concatenate(list(resample_counts(n, 37, 1234 + n))), expected)
    monkeypatch.setattr(bootstrap, "BLOCK_ELEMENTS", 3 * n)  # blocks of 3 resamples: 13 blocks
    blocks = list(resample_counts(n, 37, 1234 + n))
    assert len(blocks) == 13 and np.array_equal(np.concatenate(blocks), expected)


def _all_values(name, docs, preds, counts, **args):
    m = get_metric(name)
    return m.bind(m.prepare(docs, **args), obj(preds))(counts).finish().values


@pytest.mark.parametrize("weights", ["quadratic", "linear"])
def test_kappa_blocks_and_float32_sums_change_nothing(docs, weights, monkeypatch):
    preds = [int(v) for v in np.random.default_rng(5).integers(1, 6, len(docs))]
    preds[::13] = [-1] * len(preds[::13])  # a sixth category
    counts = one_at_a_time(len(docs), 60, 9)
    for name in ("kappa_loo", "kappa_human"):
        fast = _all_values(name, docs, preds, counts, weights=weights)
        assert np.isfinite(fast).all()
        monkeypatch.setattr(kappa, "_largest_term", lambda *a: 2.0**40)  # sums in float64
        wide = _all_values(name, docs, preds, counts, weights=weights)
        monkeypatch.undo()
        monkeypatch.setattr(kappa, "BLOCK_ELEMENTS", 7 * 60)  # 7 pairs at a time
        blocked = _all_values(name, docs, preds, counts, weights=weights)
        monkeypatch.undo()
        # float64 sums are the same numbers; pairs in chunks only reorder the mean's additions
        assert np.array_equal(fast, wide), name
        assert np.allclose(fast, blocked, rtol=0, atol=1e-14), name


def test_float_judge_with_many_categories(docs, monkeypatch):
    """A judge answering with decimals (many distinct values): tau-c and alpha still equal scipy
    and the krippendorff package on explicit resamples, also in small blocks and with alpha's
    sparse coincidence matrix."""
    sub = docs[::3]
    judge = [round(float(v), 1) for v in np.random.default_rng(2).uniform(1, 5, len(sub))]
    assert len(set(judge)) > 30
    rng = np.random.default_rng(4)
    idx = [rng.integers(0, len(sub), len(sub)) for _ in range(4)]
    counts = np.array([np.bincount(i, minlength=len(sub)) for i in idx], dtype=float)
    monkeypatch.setattr(speech_rating, "BLOCK_ELEMENTS", 1000)
    tau = _all_values("kendall_tau_c", sub, judge, counts)
    alpha = _all_values("krippendorff_alpha", sub, judge, counts)
    monkeypatch.setattr(speech_rating, "DENSE_ELEMENTS", 0)  # the sparse coincidence matrix
    assert np.allclose(_all_values("krippendorff_alpha", sub, judge, counts), alpha, rtol=0, atol=1e-12)
    for r, i in enumerate(idx):
        j = np.array(judge)[i]
        h = np.array([sub[k].target for k in i])
        assert tau[r] == pytest.approx(stats.kendalltau(j, h, variant="c").statistic, abs=1e-12)
        annots = sorted({a for d in sub for a in d.meta["annotators"]})
        mat = np.full((len(annots) + 1, len(i)), np.nan)
        for col, k in enumerate(i):
            for a, v in zip(sub[k].meta["annotators"], sub[k].meta["ratings"], strict=True):
                mat[annots.index(a), col] = v
            mat[-1, col] = judge[k]
        domain = np.union1d(np.arange(1, 6), judge)
        ref = krippendorff.alpha(reliability_data=mat, value_domain=domain, level_of_measurement="ordinal")
        assert alpha[r] == pytest.approx(ref, abs=1e-9)


def test_permutations_in_blocks_are_the_same_stream(docs, monkeypatch):
    m = get_metric("kendall_tau_c")
    sub = docs[:80]
    state = m.prepare(sub)
    a = obj([int(v) for v in np.random.default_rng(1).integers(1, 6, len(sub))])
    b = obj([min(5, max(1, round(d.target))) for d in sub])
    whole = paired.paired_permutation(m, state, a, b, 50, 3)
    monkeypatch.setattr(paired, "BLOCK", 7)
    assert paired.paired_permutation(m, state, a, b, 50, 3) == whole
    assert whole["p_value"] < 0.1


def test_pair_table_is_compact(docs):
    t = annotator_pairs(docs)
    rows = len(t.doc)
    assert (t.n_pairs, rows) == (496, 39163)
    assert t.doc.itemsize + t.score_a.itemsize + t.score_b.itemsize == 6
    assert t.doc.nbytes + t.score_a.nbytes + t.score_b.nbytes + t.start.nbytes <= 6 * rows + 4 * (t.n_pairs + 1)
    # every row is a speech both annotators of its pair rated, with their ratings
    for p in (0, 17, 495):
        a, b = t.pairs[p]
        for j, ra, rb in zip(*(x[t.start[p] : t.start[p + 1]] for x in (t.doc, t.score_a, t.score_b)), strict=True):
            r = dict(zip(docs[j].meta["annotators"], docs[j].meta["ratings"], strict=True))
            assert (r[a], r[b]) == (ra, rb)
