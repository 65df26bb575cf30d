import numpy as np
import pytest
from scipy import stats

from ltrrepro.noise import (BRUCH_CLICK_PROBS, BRUCH_NOISE_PROBS, add_negatives, cascade_clicks, label_noise,
                           pbm_clicks, position_based_clicks)
from ltrrepro.synthetic import make_synthetic


@pytest.fixture(scope="module")
def train():
    return make_synthetic("web30k", n_queries=300, seed=9)


def _snapshot(ds):
    return ds.X.copy(), ds.y.copy(), ds.qid.copy(), ds.offsets.copy()


def _unchanged(ds, snap):
    for a, b in zip((ds.X, ds.y, ds.qid, ds.offsets), snap):
        np.testing.assert_array_equal(a, b)


def test_add_negatives(train):
    snap = _snapshot(train)
    out = add_negatives(train, 40, np.random.default_rng(0))
    _unchanged(train, snap)
    assert out.n_queries == train.n_queries
    np.testing.assert_array_equal(out.query_ids, train.query_ids)
    added = out.query_sizes - train.query_sizes
    assert abs(added.sum() / train.n_docs - 0.40) < 0.01
    assert np.all(np.abs(added - 0.4 * train.query_sizes) < 1)      # per list: floor or ceil
    for q in range(0, train.n_queries, 37):
        a, b = out.offsets[q], out.offsets[q + 1]
        m = train.query_sizes[q]
        np.testing.assert_array_equal(out.X[a:a + m], train.query(q)[0])   # own documents first, unchanged
        assert np.all(out.y[a + m:b] == 0)
        own = {r.tobytes() for r in train.query(q)[0]}
        assert not any(r.tobytes() in own for r in out.X[a + m:b])           # borrowed from other lists
    again = add_negatives(train, 40, np.random.default_rng(0))
    np.testing.assert_array_equal(again.X, out.X)


def test_label_noise_rate_and_distribution(train):
    snap = _snapshot(train)
    rng = np.random.default_rng(1)
    out = label_noise(train, 30, rng)
    _unchanged(train, snap)
    np.testing.assert_array_equal(out.offsets, train.offsets)
    n_chosen = out.meta["relabelled"]
    # per list floor/ceil of 30 %: the total is within a binomial-size tolerance of 30 %
    sd = np.sqrt(train.n_queries * 0.25)
    assert abs(n_chosen - 0.3 * train.n_docs) < 4 * sd
    # changed labels are at most the chosen ones; the chosen labels follow the noise distribution
    changed = out.y != train.y
    assert changed.sum() <= n_chosen
    big = label_noise(train, 100, np.random.default_rng(2))
    counts = np.bincount(big.y, minlength=5)
    p = stats.chisquare(counts, np.asarray(BRUCH_NOISE_PROBS) * big.n_docs).pvalue
    assert p > 1e-3
    assert np.all(label_noise(train, 0, rng).y == train.y)


def test_cascade_clicks_rates_match_probabilities(train):
    snap = _snapshot(train)
    rng = np.random.default_rng(3)
    out = cascade_clicks(train, rng, impressions=10)
    _unchanged(train, snap)
    # every impression ends with its only click
    last = out.offsets[1:] - 1
    assert np.all(out.y[last] == 1) and out.y.sum() == out.n_queries
    # empirical click rate per label and position among examined documents = its probability.
    # Scans without a click are dropped; on lists of >= 20 documents that almost never
    # happens, so the conditioning cannot bias the rates.
    src_labels = train.y[out.meta["source_rows"]]
    m = train.query_sizes[out.meta["source_query"]]
    long_rows = np.repeat(m >= 20, out.query_sizes)
    position = np.arange(out.n_docs) - np.repeat(out.offsets[:-1], out.query_sizes)
    for lab, pc in enumerate(BRUCH_CLICK_PROBS):
        for pos in (None, 0, 1, 2):
            seen = long_rows & (src_labels == lab) & (True if pos is None else position == pos)
            if seen.sum() < 100:
                continue
            rate = out.y[seen].mean()
            tol = 4.5 * np.sqrt(pc * (1 - pc) / seen.sum())
            assert abs(rate - pc) < tol, (lab, pos, rate, pc, seen.sum())
    assert np.all(out.y[out.offsets[:-1]][m == 1] == 1)     # a one-document list is kept only if clicked
    assert out.n_queries <= 10 * train.n_queries
    same = cascade_clicks(train, np.random.default_rng(3), impressions=10)
    np.testing.assert_array_equal(same.y, out.y)


def test_pbm_click_rates_per_label_and_position(rng):
    n = 400_000
    labels = rng.integers(0, 5, n)
    pos = rng.integers(0, 6, n)
    eta = 1.3
    click = pbm_clicks(labels, pos, np.random.default_rng(1), BRUCH_CLICK_PROBS, eta)
    for label in range(5):
        for r in range(6):
            m = (labels == label) & (pos == r)
            expect = BRUCH_CLICK_PROBS[label] * (1.0 / (r + 1)) ** eta
            assert stats.binomtest(int(click[m].sum()), int(m.sum()), expect).pvalue > 1e-4, (label, r)


def test_position_based_clicks_impressions(train):
    snap = _snapshot(train)
    out = position_based_clicks(train, np.random.default_rng(4), impressions=5, cutoff=10)
    _unchanged(train, snap)
    assert out.query_sizes.max() <= 10
    assert np.all(np.add.reduceat(out.y, out.offsets[:-1]) >= 1)        # no impression without a click
    pos = out.meta["source_position"]
    for q in range(0, out.n_queries, 97):                                 # ranks 0,1,2,... inside an impression
        a, b = out.offsets[q], out.offsets[q + 1]
        np.testing.assert_array_equal(pos[a:b], np.arange(b - a))
        src = out.meta["source_query"][q]
        rows = out.meta["source_rows"][a:b]
        assert np.all((rows >= train.offsets[src]) & (rows < train.offsets[src + 1]))
        np.testing.assert_array_equal(out.X[a:b], train.X[rows])
    same = position_based_clicks(train, np.random.default_rng(4), impressions=5, cutoff=10)
    np.testing.assert_array_equal(same.y, out.y)
