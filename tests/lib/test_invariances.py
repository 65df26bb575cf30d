"""Invariances every objective and metric must have, and property-based checks (hypothesis).

* Permuting the documents of a query permutes grad and hess the same way (objectives see a
  list as a set), and leaves metrics of distinct scores unchanged.
* Lists are independent: the per-query results of concatenated lists equal those of each
  list alone (no state leaks across query boundaries).
* Every SVMlight file ltrrepro writes reads back to the same arrays; every metric lies in
  its range.
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import random_lists
from ltrrepro.data import RankingDataset
from ltrrepro.svmlight import read_svmlight, write_svmlight
from ltrrepro.metrics import evaluate
from ltrrepro.objectives import XENDCG, LambdaMART, ListMLE, ListNet, McRank, QBRank, RankNet, SquaredLoss

METRICS = ["ndcg@3", "ndcg@10", "ndcg", "dcg@5", "err@5", "err", "ap", "mrr", "p@3", "recall@5"]


def _objectives():
    """(name, objective, call) with call(obj, scores, labels, offsets, gamma) -> (grad, hess)."""
    plain = lambda o, s, y, off, g: o.grad_hess(s, y, off)  # noqa: E731
    return [
        ("squared", SquaredLoss(), plain),
        ("ranknet", RankNet(sigma=1.5), plain),
        ("lambdamart", LambdaMART(exact_sigmoid=True), plain),
        ("lambdamart-trunc3", LambdaMART(truncation_level=3, exact_sigmoid=True), plain),
        ("qbrank", QBRank(w=0.3), plain),
        ("listnet-order2", ListNet(), plain),
        ("xendcg-order2", XENDCG(), lambda o, s, y, off, g: o.grad_hess(s, y, off, gamma=g)),
        ("xendcg-exact", XENDCG(order="exact", eps=0.1), lambda o, s, y, off, g: o.grad_hess(s, y, off, gamma=g)),
    ]


def _within_query_permutation(rng, offsets):
    perm = np.arange(offsets[-1])
    for a, b in zip(offsets[:-1], offsets[1:]):
        perm[a:b] = a + rng.permutation(b - a)
    return perm


@pytest.mark.parametrize("name,obj,call", _objectives(), ids=[o[0] for o in _objectives()])
def test_permuting_a_query_permutes_grad_and_hess(rng, name, obj, call):
    scores, labels, offsets = random_lists(rng, n_queries=30, max_size=12)
    scores = rng.normal(size=scores.size)                     # distinct scores
    gamma = rng.random(scores.size)
    g, h = call(obj, scores, labels, offsets, gamma)
    perm = _within_query_permutation(rng, offsets)
    gp, hp = call(obj, scores[perm], labels[perm], offsets, gamma[perm])
    np.testing.assert_allclose(gp, g[perm], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(hp, h[perm], rtol=1e-10, atol=1e-12)


def test_permutation_invariance_of_mcrank_and_listmle(rng):
    scores, labels, offsets = random_lists(rng, n_queries=20, max_size=10)
    perm = _within_query_permutation(rng, offsets)
    raw = rng.normal(size=(scores.size, 5))
    g, h = McRank().grad_hess(raw, labels, offsets)
    gp, hp = McRank().grad_hess(raw[perm], labels[perm], offsets)
    np.testing.assert_allclose(gp, g[perm])
    np.testing.assert_allclose(hp, h[perm])
    # ListMLE orders documents by label: with distinct labels in each list the order is unique
    sizes = np.diff(offsets)
    y = np.concatenate([rng.permutation(m) for m in sizes])
    s = rng.normal(size=y.size)
    g, h = ListMLE(ties="input").grad_hess(s, y, offsets)
    gp, hp = ListMLE(ties="input").grad_hess(s[perm], y[perm], offsets)
    np.testing.assert_allclose(gp, g[perm], atol=1e-12)
    np.testing.assert_allclose(hp, h[perm], atol=1e-12)


def test_concatenated_lists_give_the_per_list_gradients(rng):
    scores, labels, offsets = random_lists(rng, n_queries=12, max_size=9)
    scores = rng.normal(size=scores.size)
    gamma = rng.random(scores.size)
    for name, obj, call in _objectives():
        g, h = call(obj, scores, labels, offsets, gamma)
        for a, b in zip(offsets[:-1], offsets[1:]):
            gq, hq = call(obj, scores[a:b], labels[a:b], [0, b - a], gamma[a:b])
            np.testing.assert_allclose(g[a:b], gq, rtol=1e-12, atol=1e-14, err_msg=name)
            np.testing.assert_allclose(h[a:b], hq, rtol=1e-12, atol=1e-14, err_msg=name)


def test_metrics_of_distinct_scores_ignore_document_order(rng):
    scores, labels, offsets = random_lists(rng, n_queries=50, max_size=20)
    perm = _within_query_permutation(rng, offsets)
    a = evaluate(scores, labels, offsets, METRICS, norel="zero")
    b = evaluate(scores[perm], labels[perm], offsets, METRICS, norel="zero")
    for k in a:
        np.testing.assert_allclose(b[k].per_query, a[k].per_query, rtol=1e-12, err_msg=k)


def test_metrics_of_concatenated_lists_are_the_per_list_values(rng):
    scores, labels, offsets = random_lists(rng, n_queries=25, max_size=15, distinct=False)
    together = evaluate(scores, labels, offsets, METRICS)
    for q, (a, b) in enumerate(zip(offsets[:-1], offsets[1:])):
        alone = evaluate(scores[a:b], labels[a:b], [0, b - a], METRICS)
        for k in together:
            np.testing.assert_array_equal(together[k].per_query[q:q + 1], alone[k].per_query, err_msg=k)


# ---------------------------------------------------------------- property-based (hypothesis)
@st.composite
def _lists(draw, max_queries=6, max_size=12):
    sizes = draw(st.lists(st.integers(1, max_size), min_size=1, max_size=max_queries))
    n = sum(sizes)
    labels = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    scores = draw(st.lists(st.floats(-1e3, 1e3, allow_nan=False, width=32), min_size=n, max_size=n))
    return np.asarray(scores, float), np.asarray(labels), np.r_[0, np.cumsum(sizes)]


@settings(max_examples=150, deadline=None)
@given(_lists())
def test_metrics_lie_in_their_range(data):
    scores, labels, offsets = data
    res = evaluate(scores, labels, offsets, ["ndcg@5", "ndcg", "err@10", "ap", "mrr", "p@3", "recall@5"], norel="zero")
    for k, r in res.items():
        v = r.per_query
        assert np.all((v >= 0) & (v <= 1 + 1e-12)), (k, v)
    # a query whose labels are all equal and relevant is ranked perfectly whatever the scores
    ideal = evaluate(scores, np.full(labels.size, 3), offsets, ["ndcg@5", "ndcg"])
    for r in ideal.values():
        np.testing.assert_allclose(r.per_query, 1.0)


@st.composite
def _datasets(draw):
    sizes = draw(st.lists(st.integers(1, 6), min_size=1, max_size=5))
    n, d = sum(sizes), draw(st.integers(1, 7))
    vals = draw(st.lists(st.one_of(st.just(0.0), st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False,
                                                           width=32)), min_size=n * d, max_size=n * d))
    labels = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    qids = np.repeat(draw(st.lists(st.integers(0, 10**9), min_size=len(sizes), max_size=len(sizes), unique=True)),
                     sizes)
    return RankingDataset(X=np.asarray(vals, np.float32).reshape(n, d), y=np.asarray(labels), qid=qids)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ds=_datasets(), suffix=st.sampled_from([".txt", ".txt.gz", ".txt.bz2"]))
def test_write_then_read_gives_the_same_arrays(tmp_path, ds, suffix):
    path = tmp_path / f"round{suffix}"
    write_svmlight(ds, path)
    back = read_svmlight(path, n_features=ds.n_features, use_cache=False)
    np.testing.assert_array_equal(back.X, ds.X)
    np.testing.assert_array_equal(back.y, ds.y)
    np.testing.assert_array_equal(back.qid, ds.qid)
    np.testing.assert_array_equal(back.offsets, ds.offsets)
