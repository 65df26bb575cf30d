"""The harness's Unbiased LambdaMART and XGBoost's ``lambdarank_unbiased``, set alike, give the
same rankers on real data: a paired equivalence test over 12 random splits of the MQ2008 sample
(tests/data), each split's training queries turned into click sessions as the debiasing study
draws them (a Ranking SVM logger, the whole list shown, eye-tracking examination, 16 sessions
per query re-drawn until clicked); and a hand computation of the gradient on one 4-document
session from the paper's equations (Hu et al. 2019, Eqs. for the debiased pair loss)."""
import json
from types import SimpleNamespace

import numpy as np
import pytest
import xgboost as xgb

from experiments.hu2019.protocol import logging_ranker
from ltrrepro.clicks import click_probabilities, shown_lists, simulate
from ltrrepro.datasets import load_dataset
from ltrrepro.inference.tests import tost
from ltrrepro.metrics import ndcg
from ltrrepro.objectives.adapters import RoundState, XGBoostObjective
from ltrrepro.objectives.debiasing import UnbiasedLambdaMART, debiased_lambdas
from ltrrepro.splits import trial_split

PARAMS = {"tree_method": "hist", "grow_policy": "lossguide", "max_depth": 0, "max_leaves": 7, "eta": 0.1,
          "min_child_weight": 1.0, "lambda": 0.0, "alpha": 0.0, "base_score": 0.0, "max_bin": 63, "nthread": 1,
          "seed": 0, "disable_default_eval_metric": 1}
ROUNDS = 30
MARGIN = 0.01               # NDCG@10: the study's smallest effect of interest


def _split_sessions(ds, t):
    """Split t of the sample: its training queries' click sessions (as the study draws them) and its test part."""
    sp = trial_split(ds.n_queries, seed=0, trial=t)
    train, test = ds.subset(sp.train), ds.subset(sp.test)
    seed = np.random.SeedSequence([7, t])
    logger = logging_ranker(train, 0.3, SimpleNamespace(logger="svm"), seed, 1)
    rows, sizes = shown_lists(logger(train.X), train.offsets, None)
    log = simulate(train.y, rows, sizes, 16, np.random.default_rng([8, t]), click_probs=click_probabilities(0.1, 1, 2),
                   eta=1.0, curve="eyetracking", no_click="redraw")
    sd, side = log.sessions_dataset(train)
    return sd, side, test


def _pair(ds, t, update=True):
    """Test NDCG@10 of XGBoost's lambdarank_unbiased and of the harness's objective (XGBoost's
    settings: ``UnbiasedLambdaMART.variant("lambdarank_unbiased")``) trained alike on split t; their biases."""
    sd, side, test = _split_sessions(ds, t)
    d = xgb.DMatrix(sd.X, sd.y)
    d.set_group(sd.query_sizes)
    lib = xgb.train({**PARAMS, "objective": "rank:ndcg", "lambdarank_unbiased": True}, d, ROUNDS)
    ours = UnbiasedLambdaMART.variant("lambdarank_unbiased", update=update).bind(side["position"])
    mine = xgb.train(PARAMS, d, ROUNDS, obj=XGBoostObjective(ours).bind(RoundState.start(0)))
    X = xgb.DMatrix(test.X)
    score = [float(np.nanmean(ndcg(m.predict(X, output_margin=True), test.y, test.offsets, k=10))) for m in (lib, mine)]
    obj = json.loads(lib.save_config())["learner"]["objective"]
    return score, np.asarray(obj["ti+"][:10], float), ours.t_plus[:10]


def _equivalent(ds, update=True):
    res = [_pair(ds, t, update) for t in range(12)]
    lib, ours = np.array([r[0][0] for r in res]), np.array([r[0][1] for r in res])
    diff = ours - lib
    same_biases = all(np.allclose(r[1], r[2], rtol=1e-3, atol=1e-6) for r in res)
    if not diff.any():                                        # the same trees: every split's NDCG equal
        return True, same_biases, diff
    p_eq, _ = tost(diff, MARGIN)
    return p_eq < 0.05, same_biases, diff


@pytest.mark.slow       # 2 × 12 splits × 2 models of 30 rounds on ~3,500 session rows: about 15 s
def test_unbiased_lambdamart_is_xgboosts_over_mq2008_splits(mq2008_dir):
    """Equivalence within ±0.01 NDCG@10 (TOST, α = 0.05) over 12 paired splits, and XGBoost's
    biases t⁺ at positions 1–10 after the last round on every split. With the bias update
    removed (every t = 1: λMART on the clicks) both fail: the test can tell."""
    ds = load_dataset("svmlight", paths=[mq2008_dir / "vali.txt", mq2008_dir / "test.txt"])
    eq, biases, diff = _equivalent(ds)
    assert eq and biases, (diff.round(4).tolist(), biases)
    assert np.abs(diff).max() < 0.02
    eq0, biases0, diff0 = _equivalent(ds, update=False)
    assert not biases0                                        # XGBoost's t⁺ are not all 1
    assert not (eq0 and np.abs(diff0).max() < 0.02), diff0.round(4).tolist()


def test_gradient_of_one_session_by_hand():
    """One session of 4 documents at positions 1–4, clicks at 2 and 4, scores (0.5, 0.2, −0.1,
    0.3), biases t⁺ = (1, .5, .25, .2), t⁻ = (1, .8, .6, .5); the paper's equations, σ = 1:
    for each pair (h clicked, l not), δ = f_h − f_l, ranks by score,
    |ΔNDCG| = (2^1 − 2^0)·|1/log2(1 + r_h) − 1/log2(1 + r_l)| / IDCG, IDCG = 1 + 1/log2 3,
    λ_h −= σ |ΔNDCG| / (1 + e^{σδ}) / (t⁺_{pos h} t⁻_{pos l}), λ_l the opposite."""
    f = np.array([0.5, 0.2, -0.1, 0.3])
    y = np.array([0, 1, 0, 1])
    tp, tm = np.array([1, 0.5, 0.25, 0.2]), np.array([1, 0.8, 0.6, 0.5])
    rank = {0: 1, 3: 2, 1: 3, 2: 4}                                       # by score: 0.5, 0.3, 0.2, −0.1
    idcg = 1 + 1 / np.log2(3)
    want = np.zeros(4)
    for h, l in ((1, 0), (1, 2), (3, 0), (3, 2)):                         # (clicked, not clicked)
        dndcg = abs(1 / np.log2(1 + rank[h]) - 1 / np.log2(1 + rank[l])) / idcg
        lam = dndcg / (1 + np.exp(f[h] - f[l])) / (tp[h] * tm[l])
        want[h] -= lam
        want[l] += lam
    # worked through by hand, to 4 places: pair (2,1): |ΔNDCG| = (1/log2 4 − 1)/1.6309 = 0.3066,
    # 1/(1 + e^{−0.3}) = 0.5744, /(t⁺ 0.5 · t⁻ 1): λ = 0.3522
    assert np.isclose(abs(1 / np.log2(4) - 1) / idcg * (1 / (1 + np.exp(-0.3))) / 0.5, 0.3522, atol=1e-4)
    g, h, _, _ = debiased_lambdas(f, y, np.array([0, 4]), 1 / tp, 1 / tm)
    assert np.allclose(g, want, atol=1e-12)
    obj = UnbiasedLambdaMART(truncation=4).bind(np.arange(4))
    obj.t_plus[:4], obj.t_minus[:4] = tp, tm
    g2, _ = obj.grad_hess(f, y, np.array([0, 4]))
    assert np.allclose(g2, want, atol=1e-12)
