import math

import ir_measures
import lightgbm as lgb
import numpy as np
import pytest

from conftest import random_lists
from ltrrepro.metrics import Metric, evaluate, ndcg, pairwise_precision_at, parse_metric


def test_hand_worked_four_documents():
    # scores rank the documents as given; labels in that order: 1, 0, 3, 2
    scores, labels, offsets = [0.9, 0.7, 0.4, 0.1], [1, 0, 3, 2], [0, 4]
    dcg = 1 / math.log2(2) + 0 + 7 / math.log2(4) + 3 / math.log2(5)
    idcg = 7 / math.log2(2) + 3 / math.log2(3) + 1 / math.log2(4)
    err = 1 / 16 + (15 / 16) * 0 / 2 + (15 / 16) * 1 * (7 / 16) / 3 + (15 / 16) * (9 / 16) * (3 / 16) / 4
    ap = (1 / 1 + 2 / 3 + 3 / 4) / 3
    r = evaluate(scores, labels, offsets, ["ndcg", "ndcg@2", "err", "ap", "mrr", "p@2", "recall@2"])
    assert r["ndcg[gain=exp2,norel=drop]"].mean == pytest.approx(dcg / idcg, abs=1e-12)
    assert r["ndcg@2[gain=exp2,norel=drop]"].mean == pytest.approx(1 / (7 + 3 / math.log2(3)), abs=1e-12)
    assert r["err[gmax=4,norel=drop]"].mean == pytest.approx(err, abs=1e-12)
    assert err == pytest.approx(0.2239379883, abs=1e-9)
    assert r["ap[rel>=1,norel=drop]"].mean == pytest.approx(ap, abs=1e-12)
    assert r["mrr[rel>=1,norel=drop]"].mean == 1.0
    assert r["p@2[rel>=1,norel=drop]"].mean == 0.5
    assert r["recall@2[rel>=1,norel=drop]"].mean == pytest.approx(1 / 3)
    lin = evaluate(scores, labels, offsets, ["ndcg[gain=linear]"])
    expected = (1 + 3 / 2 + 2 / math.log2(5)) / (3 + 2 / math.log2(3) + 1 / 2)
    assert lin["ndcg[gain=linear,norel=drop]"].mean == pytest.approx(expected, abs=1e-12)


def test_ties_broken_by_input_order():
    # all scores tied: the list is ranked in input order
    a = ndcg([1.0, 1.0, 1.0], [0, 0, 2], [0, 3], k=1)
    b = ndcg([1.0, 1.0, 1.0], [2, 0, 0], [0, 3], k=1)
    assert a[0] == 0.0 and b[0] == 1.0


def test_norel_rules_and_names():
    scores, labels, offsets = [1.0, 2.0, 3.0, 4.0], [0, 0, 1, 0], [0, 2, 4]
    drop = evaluate(scores, labels, offsets, ["ndcg@5"])["ndcg@5[gain=exp2,norel=drop]"]
    assert np.isnan(drop.per_query[0]) and drop.n_dropped == 1 and drop.mean == pytest.approx(1 / math.log2(3))
    one = evaluate(scores, labels, offsets, ["ndcg@5"], norel="one")["ndcg@5[gain=exp2,norel=one]"]
    assert one.per_query[0] == 1.0 and one.n_dropped == 0
    zero = evaluate(scores, labels, offsets, ["err@5[norel=zero]"])
    assert list(zero) == ["err@5[gmax=4,norel=zero]"] and zero["err@5[gmax=4,norel=zero]"].per_query[0] == 0.0
    assert str(parse_metric("map")) == "ap[rel>=1,norel=drop]"
    with pytest.raises(ValueError):
        Metric("p")  # needs a cutoff


def _ir_data(scores, labels, offsets, gains=None):
    qrels, run = [], []
    for q in range(len(offsets) - 1):
        for i in range(offsets[q], offsets[q + 1]):
            rel = int(labels[i]) if gains is None else int(gains[labels[i]])
            qrels.append(ir_measures.Qrel(str(q + 1), f"d{i}", rel))
            run.append(ir_measures.ScoredDoc(str(q + 1), f"d{i}", float(scores[i])))
    return qrels, run


def _per_query(measure, qrels, run, nq):
    out = np.zeros(nq)
    for m in ir_measures.iter_calc([measure], qrels, run):
        out[int(m.query_id) - 1] = m.value
    return out


def test_equal_to_ir_measures_on_random_lists(rng):
    scores, labels, offsets = random_lists(rng, n_queries=60)
    nq = len(offsets) - 1
    qrels, run = _ir_data(scores, labels, offsets)
    qrels_exp2, _ = _ir_data(scores, labels, offsets, gains=2 ** np.arange(5) - 1)
    ours = evaluate(scores, labels, offsets,
                    ["ndcg@1", "ndcg@5", "ndcg@10", "ndcg", "ndcg@5[gain=linear]", "ap", "mrr", "p@5",
                     "recall@5"], norel="zero")
    I = ir_measures
    pairs = [
        ("ndcg@5[gain=linear,norel=zero]", I.nDCG @ 5, qrels),
        ("ndcg@1[gain=exp2,norel=zero]", I.nDCG @ 1, qrels_exp2),      # 2^y - 1 as judgments
        ("ndcg@5[gain=exp2,norel=zero]", I.nDCG @ 5, qrels_exp2),
        ("ndcg@10[gain=exp2,norel=zero]", I.nDCG @ 10, qrels_exp2),
        ("ndcg[gain=exp2,norel=zero]", I.nDCG, qrels_exp2),
        ("ap[rel>=1,norel=zero]", I.AP, qrels),
        ("mrr[rel>=1,norel=zero]", I.RR, qrels),
        ("p@5[rel>=1,norel=zero]", I.P @ 5, qrels),
        ("recall@5[rel>=1,norel=zero]", I.R @ 5, qrels),
    ]
    for name, measure, qr in pairs:
        ref = _per_query(measure, qr, run, nq)
        np.testing.assert_allclose(ours[name].per_query, ref, atol=1e-9, rtol=0, err_msg=name)


def test_err_equal_to_gdeval(rng):
    scores, labels, offsets = random_lists(rng, n_queries=30)
    qrels, run = _ir_data(scores, labels, offsets)
    ref = _per_query(ir_measures.ERR @ 10, qrels, run, len(offsets) - 1)
    ours = evaluate(scores, labels, offsets, ["err@10[norel=zero]"])["err@10[gmax=4,norel=zero]"]
    np.testing.assert_allclose(ours.per_query, ref, atol=6e-6)   # gdeval prints 5 decimals
    # gdeval's own exp2-gain nDCG, the same convention without the 2^y - 1 judgments trick
    ref = _per_query(ir_measures.nDCG(dcg="exp-log2") @ 10, qrels, run, len(offsets) - 1)
    ours = evaluate(scores, labels, offsets, ["ndcg@10[norel=zero]"])["ndcg@10[gain=exp2,norel=zero]"]
    np.testing.assert_allclose(ours.per_query, ref, atol=6e-6)


def test_equal_to_lightgbm_ndcg_eval(rng):
    scores, labels, offsets = random_lists(rng, n_queries=80, max_size=30)
    X = rng.standard_normal((len(labels), 5)) + labels[:, None] * 0.3
    X = np.round(X, 1)   # coarse features so that predictions tie inside queries
    sizes = np.diff(offsets)
    tr = lgb.Dataset(X[: offsets[50]], labels[: offsets[50]], group=sizes[:50])
    va = lgb.Dataset(X[offsets[50]:], labels[offsets[50]:], group=sizes[50:], reference=tr)
    res = {}
    bst = lgb.train({"objective": "lambdarank", "metric": "ndcg", "eval_at": [1, 3, 5, 10], "verbose": -1,
                     "num_leaves": 4, "min_data_in_leaf": 5, "num_threads": 1},
                    tr, 5, valid_sets=[va], valid_names=["va"], callbacks=[lgb.record_evaluation(res)])
    pred = bst.predict(X[offsets[50]:])
    va_off = offsets[50:] - offsets[50]
    assert len(np.unique(pred)) < len(pred)   # ties occur, and are broken by input order
    r = evaluate(pred, labels[offsets[50]:], va_off, ["ndcg@1", "ndcg@3", "ndcg@5", "ndcg@10"], norel="one")
    for k in (1, 3, 5, 10):
        assert r[f"ndcg@{k}[gain=exp2,norel=one]"].mean == pytest.approx(res["va"][f"ndcg@{k}"][-1], abs=1e-9)


def test_pairwise_precision_hand_worked():
    # query 1: labels 2,1,0 with scores 3,1,2 -> pairs (a,b) d=2 ok, (a,c) d=1 ok, (b,c) d=-1 wrong
    # query 2: labels 0,1 scores 0,0 -> tie, counted wrong, margin 0
    p = pairwise_precision_at([3, 1, 2, 0, 0], [2, 1, 0, 0, 1], [0, 3, 5], percents=[25, 50, 75, 100])
    # margins sorted: 2 (ok), 1 (ok), 1 (wrong), 0 (wrong)
    assert p == {25: 1.0, 50: 1.0, 75: pytest.approx(2 / 3), 100: 0.5}


@pytest.mark.parametrize("spec", ["ndcg@5", "dcg@3[gain=linear,norel=zero]", "err@10[gmax=3,norel=one]", "ap",
                                  "p@10[rel>=2,norel=drop]", "recall@5", "mrr"])
def test_a_canonical_name_parses_back_to_its_metric(spec):
    m = parse_metric(spec)
    assert parse_metric(str(m)) == m and str(parse_metric(str(m))) == str(m)


def test_a_gain_table_survives_its_canonical_name():
    m = Metric("ndcg", 5, gain=(0.0, 0.1, 1 / 3, 7.5))
    assert str(m) == "ndcg@5[gain=table(0,0.1,0.3333333333333333,7.5),norel=drop]"
    back = parse_metric(str(m))
    assert back == m
    y, s, off = np.array([2, 0, 3, 1]), np.array([0.1, 0.4, 0.3, 0.2]), np.array([0, 4])
    assert evaluate(s, y, off, [back])[str(m)].mean == evaluate(s, y, off, [m])[str(m)].mean
    with pytest.raises(ValueError, match="gain table"):
        parse_metric("ndcg@5[gain=table(0,x)]")
