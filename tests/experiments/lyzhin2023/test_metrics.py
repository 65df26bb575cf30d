"""The study's four metrics (NDCG@10, MRR@10, MAP@10 with grades >= 1 relevant, ERR@10 with gain
(2^g − 1)/2^4) against ir_measures, the test oracle, on small hand-made lists (ties broken alike:
distinct scores)."""
import numpy as np
import pytest

from experiments.lyzhin2023.protocol import METRICS
from ltrrepro.metrics import evaluate

ir_measures = pytest.importorskip("ir_measures")

#: three queries of graded documents, each with distinct scores; the third's 12 documents run past the cutoff
LISTS = [([0, 2, 1, 0, 4], [0.9, 0.8, 0.7, 0.6, 0.5]),
         ([1, 0, 0, 3], [0.1, 0.4, 0.3, 0.2]),
         ([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1], [1.2, 1.1, 1.0, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1])]


def _ours():
    y = np.concatenate([l for l, _ in LISTS])
    s = np.concatenate([sc for _, sc in LISTS])
    offsets = np.cumsum([0, *(len(l) for l, _ in LISTS)])
    return {k: evaluate(s, y, offsets, [m])[m].per_query for k, m in METRICS.items()}


def _oracle(measure):
    qrels = [ir_measures.Qrel(str(q), f"d{i}", int(g)) for q, (l, _) in enumerate(LISTS) for i, g in enumerate(l)]
    run = [ir_measures.ScoredDoc(str(q), f"d{i}", float(v)) for q, (_, sc) in enumerate(LISTS) for i, v in enumerate(sc)]
    return {int(m.query_id): m.value for m in ir_measures.iter_calc([measure], qrels, run)}


@pytest.mark.parametrize("key,measure", [
    ("ndcg", ir_measures.nDCG(gains={0: 0, 1: 1, 2: 3, 3: 7, 4: 15}) @ 10),
    ("mrr", ir_measures.RR(rel=1) @ 10),
    ("map", ir_measures.AP(rel=1) @ 10)])
def test_the_metrics_match_ir_measures(key, measure):
    ours, theirs = _ours()[key], _oracle(measure)
    assert np.allclose(ours, [theirs[q] for q in range(len(LISTS))], atol=1e-6)


def test_err_by_hand_and_the_oracle():
    """ERR@10 of the second list by hand: ranked grades 0, 0, 3, 1 (scores .4, .3, .2, .1);
    R = (2^g − 1)/16: 0, 0, 7/16, 1/16; ERR = (7/16)/3 + (1 − 7/16)(1/16)/4."""
    ours = _ours()["err"]
    assert ours[1] == pytest.approx((7 / 16) / 3 + (9 / 16) * (1 / 16) / 4)
    theirs = _oracle(ir_measures.ERR @ 10)
    assert np.allclose(ours, [theirs[q] for q in range(len(LISTS))], atol=1e-6)
