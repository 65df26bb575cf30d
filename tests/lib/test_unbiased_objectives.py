"""ltrrepro.objectives.debiasing: Unbiased LambdaMART, IPS λMART and IPS XE_NDCG.

Proved from several sides: the harness's Unbiased LambdaMART equals XGBoost's
``lambdarank_unbiased`` (biases and scores, round after round) once the pair cost is XGBoost's,
and the one difference — XGBoost accumulates the cost of the reversed pair — shows after the
first round; IPS gradients equal the naive ones (and the harness's λMART) when every propensity
is 1; finite differences of the debiased pair loss; the bias update by hand; the estimated
propensities converge to the simulator's curve as sessions grow."""
import json

import numpy as np
import pytest
import xgboost as xgb

from ltrrepro.clicks import click_probabilities, examination, shown_lists, simulate
from ltrrepro.data import RankingDataset
from ltrrepro.objectives import XENDCG, LambdaMART
from ltrrepro.objectives.adapters import RoundState, XGBoostObjective
from ltrrepro.objectives.debiasing import (IPSLambdaMART, IPSXENDCG, UnbiasedLambdaMART, debiased_lambdas,
                                           update_biases)

PROBS = click_probabilities(0.1, 1.0, 4)
#: XGBoost < 2.1 has no lambdarank_normalization switch (its lambdas are always normalized)
OLD_XGBOOST = tuple(int(v) for v in xgb.__version__.split(".")[:2]) < (2, 1)


def _sessions(seed=3, nq=60, m=20, sessions=50, logger="features"):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(nq * m, 5)).astype(np.float32)
    util = X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=nq * m)
    y = np.digitize(util, [0.5, 1.2, 1.8, 2.4]).astype(np.int32)
    offsets = np.arange(0, nq * m + 1, m)
    ds = RankingDataset(X=X, y=y, qid=np.repeat(np.arange(nq), m), offsets=offsets)
    score = X[:, 2] + 0.5 * util if logger == "features" else rng.normal(size=nq * m)
    rows, sizes = shown_lists(score, offsets, 10)
    log = simulate(y, rows, sizes, sessions, np.random.default_rng(seed + sessions), click_probs=PROBS, eta=1.0)
    return ds, log.sessions_dataset(ds)


def _train_both(sd, side, p, list_norm, cost, rounds):
    """XGBoost's lambdarank_unbiased and the harness's objective through XGBoost, same trees."""
    params = {"tree_method": "hist", "max_depth": 3, "eta": 0.3, "nthread": 1, "seed": 0, "base_score": 0.0,
              "lambda": 0.0, "min_child_weight": 0.0, "disable_default_eval_metric": 1}
    d = xgb.DMatrix(sd.X, sd.y)
    d.set_group(sd.query_sizes)
    lib = xgb.train({**params, "objective": "rank:ndcg", "lambdarank_unbiased": True, "lambdarank_bias_norm": p,
                     "lambdarank_normalization": list_norm}, d, rounds)
    obj = json.loads(lib.save_config())["learner"]["objective"]
    ours = UnbiasedLambdaMART(p=p, score_norm=True, list_norm=list_norm, hess_scale=2.0, cost=cost,
                              n_positions=len(obj["ti+"])).bind(side["position"])
    mine = xgb.train(params, d, rounds, obj=XGBoostObjective(ours).bind(RoundState.start(0)))
    return obj, ours, lib, mine


@pytest.mark.parametrize("p,list_norm", [
    (0.0, True), pytest.param(1.0, False, marks=[
        pytest.mark.skipif(OLD_XGBOOST, reason="XGBoost < 2.1 always normalizes the lambdas"),
        pytest.mark.allowed_skip(reason="XGBoost < 2.1 (the floor) has no lambdarank_normalization switch")])])
def test_unbiased_lambdamart_equals_xgboost_lambdarank_unbiased(p, list_norm):
    """Where the definitions meet — XGBoost's Hessian factor 2, its score and list normalization
    and its pair cost — the biases after every round and the trees are XGBoost's (float32)."""
    ds, (sd, side) = _sessions()
    obj, ours, lib, mine = _train_both(sd, side, p, list_norm, "reversed", 8)
    assert np.allclose(ours.t_plus[:10], obj["ti+"][:10], rtol=2e-4)
    assert np.allclose(ours.t_minus[:10], obj["tj-"][:10], rtol=2e-4)
    # positions never shown (the top 10 only): XGBoost's ratio 0/l(1) = 0, ours stays 1; neither is ever used
    assert not np.any(obj["ti+"][10:]) and np.all(ours.t_plus[10:] == 1)
    X = xgb.DMatrix(ds.X)
    assert np.abs(lib.predict(X, output_margin=True) - mine.predict(X, output_margin=True)).max() < 1e-5


def test_the_one_difference_is_xgboosts_pair_cost():
    """With the paper's cost log(1 + e^{−δ}) the first round is still XGBoost's (every score ties:
    both costs are log 2); later rounds differ, because XGBoost accumulates log(1 + e^{+δ})."""
    ds, (sd, side) = _sessions()
    obj1, ours1, _, _ = _train_both(sd, side, 0.0, True, "paper", 1)
    assert np.allclose(ours1.t_plus[:10], obj1["ti+"][:10], rtol=2e-4)
    assert np.allclose(ours1.t_minus[:10], obj1["tj-"][:10], rtol=2e-4)
    obj8, ours8, _, _ = _train_both(sd, side, 0.0, True, "paper", 8)
    assert np.abs(ours8.t_plus[:10] - np.asarray(obj8["ti+"][:10])).max() > 0.01
    g, h, ch, cl = debiased_lambdas([1.0, 0.0], [1, 0], [0, 2], np.ones(2), np.ones(2), cost="reversed")
    g2, _, ch2, _ = debiased_lambdas([1.0, 0.0], [1, 0], [0, 2], np.ones(2), np.ones(2))
    dndcg = 1 - 1 / np.log2(3)
    assert np.isclose(ch[0], dndcg * np.log1p(np.e)) and np.isclose(ch2[0], dndcg * np.log1p(np.exp(-1)))
    assert np.array_equal(g, g2)                                         # the gradients are the same


def _lists(rng, nq=12, m=8):
    y = rng.integers(0, 2, size=nq * m)
    y[::m] = 1
    return rng.normal(size=nq * m), y, np.arange(0, nq * m + 1, m)


def test_ips_with_unit_propensities_is_naive_lambdamart(rng):
    s, y, offs = _lists(rng)
    pos = np.tile(np.arange(8), 12)
    naive = LambdaMART(sigma=1.0, exact_sigmoid=True).grad_hess(s, y, offs)
    ips = IPSLambdaMART().bind(position=pos, propensity=np.ones(s.size)).grad_hess(s, y, offs)
    ulm = UnbiasedLambdaMART().bind(position=pos).grad_hess(s, y, offs)          # round 1: every bias 1
    for g, h in (ips, ulm):
        assert np.allclose(g, naive[0], atol=1e-12) and np.allclose(h, naive[1], atol=1e-12)
    halved = IPSLambdaMART().bind(position=pos, propensity=np.full(s.size, 0.5)).grad_hess(s, y, offs)
    assert np.allclose(halved[0], 2 * naive[0])                           # 1/θ on every (clicked) pair


def test_ips_xendcg_with_unit_propensities_is_xendcg(rng):
    s, y, offs = _lists(rng)
    gamma = rng.random(s.size)
    want = XENDCG(order=2).grad_hess(s, y, offs, gamma=gamma)
    got = IPSXENDCG(order=2).bind(propensity=np.ones(s.size)).grad_hess(s, y, offs, gamma=gamma)
    assert np.allclose(got[0], want[0]) and np.allclose(got[1], want[1])
    theta = np.full(s.size, 0.25)                                        # order 0: ρ − φ with IPS gains
    g, _ = IPSXENDCG(order=0).bind(propensity=theta[:8]).grad_hess(s[:8], y[:8], offs[:2], gamma=gamma[:8])
    u = (2.0 ** y[:8] - 1) / 0.25 + 1 - gamma[:8]
    rho = np.exp(s[:8]) / np.exp(s[:8]).sum()
    assert np.allclose(g, rho - u / u.sum())

    def loss(f):                                                         # −Σ φ log softmax(f), φ fixed
        return float(-(u / u.sum() * (f - np.log(np.exp(f).sum()))).sum())

    fd = [(loss(s[:8] + 1e-6 * e) - loss(s[:8] - 1e-6 * e)) / 2e-6 for e in np.eye(8)]
    assert np.allclose(fd, g, atol=1e-7)                                 # finite differences of the loss


def test_gradient_and_hessian_are_the_debiased_pair_losss(rng):
    """Finite differences of Σ_pairs w_h w_l |ΔNDCG| log(1 + e^{−σδ}) (ranks, hence |ΔNDCG|, fixed
    under the small step), its gradient and the diagonal of its Hessian."""
    s, y, offs = _lists(rng, 3, 6)
    wh, wl = rng.uniform(0.5, 3, s.size), rng.uniform(0.5, 3, s.size)

    def loss(f):
        _, _, ch, _ = debiased_lambdas(f, y, offs, wh, wl, sigma=1.5)
        return float((ch * wh).sum())

    g, h, _, _ = debiased_lambdas(s, y, offs, wh, wl, sigma=1.5)
    eps = 1e-6
    for i in range(s.size):
        e = np.zeros(s.size)
        e[i] = eps
        assert np.isclose((loss(s + e) - loss(s - e)) / (2 * eps), g[i], atol=1e-6)
        gp = debiased_lambdas(s + e, y, offs, wh, wl, sigma=1.5)[0][i]
        gm = debiased_lambdas(s - e, y, offs, wh, wl, sigma=1.5)[0][i]
        assert np.isclose((gp - gm) / (2 * eps), h[i], atol=1e-5)


def test_bias_update_by_hand():
    tp, tm = update_biases(np.array([4.0, 1.0, 9.0]), np.array([2.0, 8.0, 0.0]), np.array([0, 1, 2]), 4, p=1.0)
    assert np.allclose(tp, [1, 0.5, 1.5, 1]) and np.allclose(tm, [1, 2, 1, 1])   # sqrt of the ratios; no cost: 1
    with pytest.raises(ValueError, match="bind"):
        UnbiasedLambdaMART().grad_hess(np.zeros(2), np.array([1, 0]), np.array([0, 2]))


def test_estimated_propensities_converge_to_the_truth_as_sessions_grow():
    """t⁺ of the harness's Unbiased LambdaMART (p = 0) against θ_r/θ_1 = 1/r: the error shrinks
    as the sessions per query grow (a random logger, the PBM with η = 1 and ε⁻ = 0.1)."""
    errors = []
    for n in (10, 200):
        ds, (sd, side) = _sessions(seed=5, nq=100, sessions=n, logger="random")
        ulm = UnbiasedLambdaMART(n_positions=10).bind(side["position"])
        d = xgb.DMatrix(sd.X, sd.y)
        d.set_group(sd.query_sizes)
        xgb.train({"tree_method": "hist", "max_depth": 3, "eta": 0.3, "nthread": 1, "base_score": 0.0,
                   "disable_default_eval_metric": 1}, d, 20, obj=XGBoostObjective(ulm).bind(RoundState.start(0)))
        errors.append(np.sqrt(((ulm.t_plus[1:] - examination(10, 1.0)[1:]) ** 2).mean()))
    assert errors[1] < errors[0] and errors[1] < 0.03
