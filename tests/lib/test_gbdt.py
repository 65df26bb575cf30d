"""The histogram GBDT with SE / RWSE / exact-OLE split principles (ltrrepro.gbdt, issue 8)."""
from __future__ import annotations

import itertools
import math

import lightgbm as lgb
import numpy as np
import pytest

from ltrrepro.data import RankingDataset
from ltrrepro.gbdt import BinMapper, Model, TreeGrower, train
from ltrrepro.objectives import LambdaMART, ListMLE, ListNet, McRank, RankNet, SquaredLoss


def _tiny(seed=0, nq=4, m=(5, 9), nf=3, levels=4, max_label=2):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(m[0], m[1], size=nq)
    n = int(sizes.sum())
    X = rng.integers(0, levels, size=(n, nf)).astype(np.float32)
    y = rng.integers(0, max_label + 1, size=n).astype(np.int32)
    qid = np.repeat(np.arange(nq), sizes)
    return RankingDataset(X=X, y=y, qid=qid), rng.normal(size=n)


def _grower(ds, criterion, num_leaves, leaf_hessian="exact"):
    bm = BinMapper(max_bin=255).fit(ds.X)
    return TreeGrower(bm.transform(ds.X), bm.n_bins, bm.thresholds, criterion=criterion, num_leaves=num_leaves,
                      min_data_in_leaf=1, min_sum_hessian_in_leaf=0.0, leaf_hessian=leaf_hessian), bm


def _fd_derivs(loss, scores, mask, eps=1e-3):
    """L'(0), L''(0) of o -> loss(scores + o·1_mask) by central differences."""
    lp, l0, lm = loss(scores + eps * mask), loss(scores), loss(scores - eps * mask)
    return (lp - lm) / (2 * eps), (lp - 2 * l0 + lm) / eps ** 2


def _term(g, h):
    """g²/h, or 0 for a flat direction (h = 0 up to finite-difference noise: every pair of
    the part lies inside it, so the loss does not move with its output)."""
    return 0.0 if h < 1e-6 else g * g / h


def _same_split(ds, node, f1, t1, f2, t2):
    """Two (feature, threshold) splits send the node's documents the same way (thresholds
    between the same two present values are one split)."""
    return f1 == f2 and np.array_equal(ds.X[node, f1] <= t1, ds.X[node, f2] <= t2)


def _reference_best(ds, node_mask, loss):
    """Exhaustive OLE: every feature and threshold of the node, each child's L' and L''
    taken from the objective itself (finite differences of the loss along the child)."""
    scores = ds._scores
    gp, hp = _fd_derivs(loss, scores, node_mask.astype(float))
    best = (-np.inf, None, None)
    for f in range(ds.X.shape[1]):
        vals = np.unique(ds.X[node_mask, f])
        for a, b in zip(vals[:-1], vals[1:]):
            thr = (float(a) + float(b)) / 2
            left = node_mask & (ds.X[:, f] <= thr)
            right = node_mask & ~(ds.X[:, f] <= thr)
            gl, hl = _fd_derivs(loss, scores, left.astype(float))
            gr, hr = _fd_derivs(loss, scores, right.astype(float))
            gain = _term(gl, hl) + _term(gr, hr) - _term(gp, hp)
            if gain > best[0] + 1e-9 * abs(gain):
                best = (gain, f, thr)
    return best


def _check_first_two_splits(ds, tree, loss):
    """Root and second split (split, gain) of ``tree`` = the exhaustive reference's; the second
    is the best over both children, each searched with the rest of the data fixed."""
    allm = np.ones(ds.n_docs, bool)
    gain, f, thr = _reference_best(ds, allm, loss)
    assert _same_split(ds, allm, tree.feature[0], tree.threshold[0], f, thr)
    assert tree.gain[0] == pytest.approx(gain, rel=1e-5)
    left = ds.X[:, f] <= thr
    cands = [(*_reference_best(ds, node, loss), node) for node in (left, ~left)]
    gain2, f2, thr2, node = max(cands, key=lambda c: c[0])
    assert _same_split(ds, node, tree.feature[1], tree.threshold[1], f2, thr2)
    assert tree.gain[1] == pytest.approx(gain2, rel=1e-5)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exact_ole_matches_exhaustive_reference_on_ranknet(seed):
    """Root and second split of exact OLE = the exhaustive search with L', L'' from the loss."""
    ds, scores = _tiny(seed)
    ds._scores = scores
    obj = RankNet(sigma=1.0)
    loss = lambda s: obj.loss(s, ds.y, ds.offsets)
    g, h, pairs = obj.grad_hess_pairs(scores, ds.y, ds.offsets)
    grower, _ = _grower(ds, "ole", num_leaves=3)
    tree, leaf_of_row = grower.grow(g, h, pairs)
    _check_first_two_splits(ds, tree, loss)
    # and the principles differ here: RWSE's gains are not OLE's
    rw, _ = _grower(ds, "rwse", num_leaves=3)
    assert rw.grow(g, h, pairs)[0].gain[0] != pytest.approx(tree.gain[0], rel=1e-3)


def _brute_lambdamart_pairs(scores, labels, offsets, trunc=30, sigma=1.0):
    """LambdaMART pairs and ρ = |ΔNDCG| σ² p(1 − p) enumerated directly (exact sigmoid)."""
    out = {}
    for q in range(len(offsets) - 1):
        a, b = offsets[q], offsets[q + 1]
        s, y = scores[a:b], labels[a:b]
        order = np.argsort(-s, kind="mergesort")
        rank = np.empty(b - a, int)
        rank[order] = np.arange(b - a)
        gains = 2.0 ** y - 1
        ideal = np.sort(gains)[::-1][:trunc]
        idcg = np.sum(ideal / np.log2(np.arange(2, ideal.size + 2)))
        for i, j in itertools.combinations(range(b - a), 2):
            if y[i] == y[j] or min(rank[i], rank[j]) >= min(trunc, b - a - 1):
                continue
            hi, lo = (i, j) if y[i] > y[j] else (j, i)
            w = abs(gains[hi] - gains[lo]) * abs(1 / math.log2(2 + rank[hi]) - 1 / math.log2(2 + rank[lo])) / idcg
            p = 1 / (1 + math.exp(sigma * (s[hi] - s[lo])))
            out[(a + hi, a + lo)] = w * sigma ** 2 * p * (1 - p)
    return out


def test_lambdamart_pairs_and_exact_child_hessians_match_direct_enumeration():
    ds, scores = _tiny(3, nq=5, m=(6, 12))
    obj = LambdaMART(exact_sigmoid=True, truncation_level=4)
    g, h, (pi, pj, rho) = obj.grad_hess_pairs(scores, ds.y, ds.offsets)
    ref = _brute_lambdamart_pairs(scores, ds.y, ds.offsets, trunc=4)
    got = {(int(i), int(j)): float(r) for i, j, r in zip(pi, pj, rho)}
    assert got.keys() == ref.keys()
    assert np.allclose([got[k] for k in ref], list(ref.values()), rtol=1e-12)
    hsum = np.zeros(ds.n_docs)
    np.add.at(hsum, pi, rho)
    np.add.at(hsum, pj, rho)
    assert np.allclose(hsum, h)
    # the learner's root gain = the gain with L''_C = Σ over pairs with exactly one end in C
    grower, _ = _grower(ds, "ole", num_leaves=2)
    tree, _ = grower.grow(g, h, (pi, pj, rho))
    def exact_h(mask):
        return sum(r for (i, j), r in ref.items() if mask[i] != mask[j])
    best = -np.inf
    allm = np.ones(ds.n_docs, bool)
    for f in range(ds.X.shape[1]):
        for v in np.unique(ds.X[:, f])[:-1]:
            L = ds.X[:, f] <= v
            gain = _term(g[L].sum(), exact_h(L)) + _term(g[~L].sum(), exact_h(~L)) - _term(g.sum(), exact_h(allm))
            best = max(best, gain)
    # the root holds every pair: its own L'' is 0 and G = 0, so its term is 0
    assert tree.gain[0] == pytest.approx(best, rel=1e-9)


def test_exact_leaf_value_is_the_newton_step_on_a_hand_built_list():
    """RankNet at zero scores, labels 2, 1, 0, split {d1, d2} | {d3}: p = ½ for all pairs, so
    g = (−1, 0, +1), h = (½, ½, ½), ρ = ¼. Leaf {d1, d2}: G = −1, exact L'' = 1 − 2·¼ = ½
    → −G/L'' = 2 (diagonal: 1); leaf {d3}: G = 1, L'' = ½ → −2."""
    X = np.array([[0.0], [0.0], [1.0]], dtype=np.float32)
    ds = RankingDataset(X=X, y=np.array([2, 1, 0], np.int32), qid=np.zeros(3, np.int64))
    g, h, pairs = RankNet().grad_hess_pairs(np.zeros(3), ds.y, ds.offsets)
    assert np.allclose(g, [-1, 0, 1]) and np.allclose(h, [0.5, 0.5, 0.5]) and np.allclose(pairs[2], 0.25)
    for crit in ("se", "rwse", "ole"):
        grower, _ = _grower(ds, crit, num_leaves=2)
        tree, leaf = grower.grow(g, h, pairs, learning_rate=0.1)
        assert np.allclose(tree.value[leaf], [0.2, 0.2, -0.2])
        grower.leaf_hessian = "diagonal"
        tree, leaf = grower.grow(g, h, pairs, learning_rate=0.1)
        assert np.allclose(tree.value[leaf], [0.1, 0.1, -0.2])


def test_ole_equals_rwse_on_a_pointwise_loss_and_both_equal_the_loss_expansion():
    """Theorem 1: McRank's loss is derivative additive, so OLE's gain (from the loss itself,
    by finite differences) is RWSE's gain, and the learner's OLE and RWSE trees coincide."""
    ds, scores = _tiny(4, nq=6)
    F = np.random.default_rng(4).normal(size=(ds.n_docs, 3))
    obj = McRank(n_classes=3)
    G, H = obj.grad_hess(F, ds.y, ds.offsets)
    k = 1
    def loss(s):
        FF = F.copy()
        FF[:, k] = s
        return obj.loss(FF, ds.y)
    ds._scores = F[:, k]
    allm = np.ones(ds.n_docs, bool)
    gain, f, thr = _reference_best(ds, allm, loss)
    trees = {}
    for crit in ("rwse", "ole"):
        grower, _ = _grower(ds, crit, num_leaves=6)
        trees[crit] = grower.grow(G[:, k], H[:, k], None)[0]
    assert _same_split(ds, allm, trees["rwse"].feature[0], trees["rwse"].threshold[0], f, thr)
    assert trees["rwse"].gain[0] == pytest.approx(gain, rel=1e-5)
    for name in ("feature", "threshold", "left", "right", "gain", "value"):
        assert np.array_equal(getattr(trees["rwse"], name), getattr(trees["ole"], name))


def test_squared_loss_se_rwse_ole_grow_the_same_trees():
    """Theorem 2 (Xia §3.4): for MART's squared loss SE = RWSE = OLE."""
    ds, _ = _tiny(5, nq=20, m=(10, 30), nf=5, levels=8, max_label=4)
    models = {c: train(SquaredLoss(), ds, criterion=c, num_rounds=15, num_leaves=7, min_data_in_leaf=3)[0]
              for c in ("se", "rwse", "ole")}
    for c in ("rwse", "ole"):
        for name in ("feature", "threshold", "left", "right", "value"):
            assert np.array_equal(getattr(models["se"], name), getattr(models[c], name)), (c, name)
        assert np.allclose(models["se"].gain, models[c].gain)


def test_rwse_on_squared_loss_reaches_lightgbms_training_loss():
    """Equal binning (≤ 12 distinct values per feature: one bin per value in both) and the
    same settings: the boosted model's training loss equals LightGBM's regression."""
    rng = np.random.default_rng(0)
    n = 3000
    X = rng.integers(0, 12, size=(n, 6)).astype(np.float32)
    y = ((X[:, 0] > 5).astype(int) + (X[:, 1] * X[:, 2] > 30) + (rng.random(n) < 0.2)).astype(np.int32)
    ds = RankingDataset(X=X, y=y, qid=np.repeat(np.arange(n // 30), 30))
    model, log = train(SquaredLoss(), ds, criterion="rwse", leaf_hessian="diagonal", num_rounds=30,
                       num_leaves=8, learning_rate=0.1, min_data_in_leaf=5, track_loss=True)
    params = dict(objective="regression", boost_from_average=False, num_leaves=8, learning_rate=0.1,
                  min_data_in_leaf=5, min_sum_hessian_in_leaf=1e-3, lambda_l2=0.0, max_bin=255, min_data_in_bin=1,
                  feature_pre_filter=False, verbose=-1, num_threads=1, deterministic=True)
    booster = lgb.train(params, lgb.Dataset(X, y.astype(float)), 30)
    ref = 0.5 * np.sum((y - booster.predict(X)) ** 2)
    assert log.train_loss[-1] == pytest.approx(ref, rel=1e-6)
    assert log.train_loss[-1] < 0.5 * np.sum((y - y.mean()) ** 2) * 0.8


def test_model_predicts_like_training_and_survives_save_and_load(tmp_path):
    ds, _ = _tiny(6, nq=30, m=(8, 20), nf=4, levels=10, max_label=3)
    va, _ = _tiny(7, nq=10, m=(8, 20), nf=4, levels=10, max_label=3)
    model, log = train(LambdaMART(), ds, va, criterion="ole", num_rounds=8, num_leaves=5, min_data_in_leaf=2)
    assert np.allclose(model.predict(ds.X), model.train_scores, atol=1e-12)
    path = model.save(tmp_path / "m.npz")
    back = Model.load(path)
    assert np.array_equal(back.predict(va.X), model.predict(va.X))
    assert back.meta["criterion"] == "ole" and back.num_trees == model.num_trees
    assert np.array_equal(back.train_scores, model.train_scores)        # the training scores survive too
    parts = model.predict(va.X, num_rounds=3) + model.predict(va.X, num_rounds=8, start_round=3)
    assert np.allclose(parts, model.predict(va.X)) and not np.allclose(parts, model.predict(va.X, num_rounds=3))
    # validation curve = the metric of the saved model's predictions, round by round
    from ltrrepro.metrics import evaluate
    for r in (1, 8):
        v = evaluate(back.predict(va.X, num_rounds=r), va.y, va.offsets, ["ndcg@10"]).popitem()[1].mean
        assert v == pytest.approx(log.valid_curve[r - 1])
    # same seed, same model
    again, _ = train(LambdaMART(), ds, va, criterion="ole", num_rounds=8, num_leaves=5, min_data_in_leaf=2)
    assert np.array_equal(again.predict(va.X), model.predict(va.X))


def test_mcrank_grows_one_tree_per_class_and_early_stopping_stops():
    ds, _ = _tiny(8, nq=30, m=(8, 20), nf=4, levels=10, max_label=2)
    model, log = train(McRank(n_classes=3), ds, ds, criterion="se", num_rounds=6, num_leaves=4,
                       min_data_in_leaf=2, track_loss=True)
    assert model.num_trees == 18 and model.predict(ds.X).shape == (ds.n_docs, 3)
    assert np.allclose(model.predict(ds.X, 2) + model.predict(ds.X, start_round=2), model.predict(ds.X))
    assert log.train_loss[-1] < log.train_loss[0]
    assert np.allclose(model.predict(ds.X), model.train_scores)
    _, log = train(McRank(n_classes=3), ds, ds, criterion="se", num_rounds=200, num_leaves=4, learning_rate=2.0,
                   min_data_in_leaf=2, early_stopping_rounds=3)
    assert len(log.valid_curve) < 200 and len(log.valid_curve) - log.best_iteration == 3


@pytest.mark.parametrize("seed", [0, 1])
def test_exact_ole_matches_exhaustive_reference_on_listnet(seed):
    """A listwise loss: ListNet's cross entropy (order 0) couples every pair of a list through
    −ρ_i ρ_j; root and second split of exact OLE = the search with L', L'' from the loss."""
    ds, scores = _tiny(seed + 10)
    ds._scores = scores
    obj = ListNet(order=0)
    loss = lambda s: obj.loss(s, ds.y, ds.offsets, per_query=True).sum()  # noqa: E731
    g, h, pairs = obj.grad_hess_pairs(scores, ds.y, ds.offsets)
    assert pairs[0].shape[0] == sum(m * (m - 1) // 2 for m in ds.query_sizes)
    tree, _ = _grower(ds, "ole", num_leaves=3)[0].grow(g, h, pairs)
    _check_first_two_splits(ds, tree, loss)


def test_losses_without_a_pair_structure_say_what_is_missing():
    ds, _ = _tiny(9)
    with pytest.raises(ValueError, match="order=0"):
        train(ListNet(), ds, criterion="ole", num_rounds=1)          # Neumann order 2: no loss's gradient
    with pytest.raises(NotImplementedError, match="grad_hess_pairs"):
        train(ListMLE(ties="input"), ds, criterion="ole", num_rounds=1)
    model, _ = train(ListNet(), ds, criterion="rwse", leaf_hessian="diagonal", num_rounds=2, min_data_in_leaf=1)
    assert model.num_trees == 2


def test_bad_inputs_are_refused_clearly():
    X = np.array([[0.0], [np.nan]], dtype=np.float32)
    with pytest.raises(ValueError, match="feature 0 has NaN"):
        BinMapper().fit(X)
    with pytest.raises(ValueError, match="max_bin"):
        BinMapper(max_bin=1000)
    ds, _ = _tiny(0)
    with pytest.raises(ValueError, match="criterion"):
        train(SquaredLoss(), ds, criterion="gini")


def test_binning_is_consistent_with_raw_thresholds():
    rng = np.random.default_rng(1)
    X = np.c_[rng.normal(size=5000), rng.integers(0, 5, 5000), np.zeros(5000)].astype(np.float32)
    bm = BinMapper(max_bin=16).fit(X)
    bins = bm.transform(X)
    assert list(bm.n_bins) == [16, 5, 1]
    for f in range(2):
        for b in range(bm.n_bins[f] - 1):
            assert np.array_equal(bins[:, f] <= b, X[:, f] <= bm.upper_bound(f, b))
    counts = np.bincount(bins[:, 0], minlength=16)
    assert counts.min() > 0.5 * 5000 / 16          # equal-frequency bins


def test_unsplittable_data_gives_single_leaf_trees_that_predict_and_reload(tmp_path):
    ds, _ = _tiny(12, nq=3, m=(5, 6))
    model, _ = train(RankNet(), ds, criterion="ole", num_rounds=3, min_data_in_leaf=100)
    assert model.num_trees == 3 and model.feature.size == 0
    # one leaf holding every pair: L'' = 0 and G = 0, so the Newton step is 0, not 0/0
    assert np.all(model.value == 0.0) and np.all(model.predict(ds.X) == 0.0)
    assert np.array_equal(Model.load(model.save(tmp_path / "m.npz")).predict(ds.X), model.predict(ds.X))


@pytest.mark.parametrize("threads", [1, 3])
def test_pair_histogram_by_documents_equals_direct_pair_sum(threads, rng):
    """hist_pairs (weights moved to the document with the larger bin, then scattered per
    document) equals the pair-by-pair sums at the larger bin and at both documents' bins
    (the h_in histogram): queries of consecutive rows,
    ties (few bins), pairs wider than the window (added directly), sub-ranges and a
    self-pair; the scratch windows are left zeroed for the next call."""
    from ltrrepro.gbdt import kernels as K
    n, F, B = 600, 7, 16
    bins = rng.integers(0, B, (n, F)).astype(np.uint8)
    bins[:, :3] //= 6                                     # many ties
    sizes = rng.integers(1, 40, 40)
    starts = np.r_[0, np.cumsum(sizes)][:-1]
    pi, pj = [], []
    for q0, m in zip(starts, sizes):
        if q0 + m > n:
            break
        k = int(rng.integers(0, 3 * m))
        pi.append(q0 + rng.integers(0, m, k))
        pj.append(q0 + rng.integers(0, m, k))
    pi = np.concatenate(pi + [np.array([5, 0, 100])]).astype(np.int64)   # far pairs, a self-pair
    pj = np.concatenate(pj + [np.array([590, 599, 100])]).astype(np.int64)
    rho = rng.random(pi.size)
    acc = np.zeros((threads, 24, F))                      # a window narrower than some queries
    for s, e in [(0, pi.size), (7, pi.size // 2), (pi.size - 3, pi.size), (4, 4)]:
        ref = np.zeros((F, B))
        dref = np.zeros((F, B))
        for f in range(F):
            np.add.at(ref[f], np.maximum(bins[pi[s:e], f], bins[pj[s:e], f]), rho[s:e])
            np.add.at(dref[f], bins[pi[s:e], f], rho[s:e])
            np.add.at(dref[f], bins[pj[s:e], f], rho[s:e])
        out, dout = np.full((F, B), np.nan), np.full((F, B), np.nan)
        K.hist_pairs(bins, pi, pj, rho, s, e, out, dout, acc, 1)   # split over threads
        np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(dout, dref, rtol=1e-12, atol=1e-12)
        assert not acc.any()
    assert K.max_pair_span(pi, pj, 0, pi.size) == 600


def test_train_restores_the_callers_numba_thread_count():
    import numba
    ds, _ = _tiny(3, nq=8, m=(4, 8), nf=3, levels=5, max_label=2)
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        train(LambdaMART(), ds, criterion="rwse", num_rounds=1, num_leaves=3, min_data_in_leaf=2,
              threads=numba.config.NUMBA_NUM_THREADS)
        assert numba.get_num_threads() == 1
    finally:
        numba.set_num_threads(before)


def test_the_number_of_outputs_is_the_objectives_attribute():
    """McRank boosts one tree per class per round because it says it has K outputs, not by type."""
    ds, _ = _tiny(4, nq=10, m=(5, 9), nf=3, levels=5, max_label=2)
    model, _ = train(McRank(n_classes=3), ds, criterion="ole", num_rounds=2, num_leaves=3, min_data_in_leaf=2)
    assert McRank(n_classes=3).n_outputs == 3 and LambdaMART().n_outputs == 1
    assert model.n_outputs == 3 and model.num_trees == 6 and model.predict(ds.X).shape == (ds.n_docs, 3)


def _growth_case(left=(0.0, 0.0, 2.0, 2.0)):
    """Eight documents, pseudo-responses r = −g, unit Hessians (SE gains). Feature 0 halves
    them; feature 1 refines. Gains (G_l²/n_l + G_r²/n_r − G²/n):
    root on f0: 4²/4 + 120²/4 − 124²/8 = 1682; left half (r = 0, 0, 2, 2) on f1: 0 + 4²/2 −
    4²/4 = 4; right half (20, 20, 30, 50): {20, 20, 30} | {50}: 70²/3 + 50² − 120²/4 = 533.33
    (better than {20, 20} | {30, 50}: 400); then {20, 20} | {30}: 800 + 900 − 70²/3 = 66.67."""
    X = np.array([[0, 0], [0, 0], [0, 1], [0, 1], [1, 0], [1, 1], [1, 2], [1, 3]], dtype=np.float32)
    r = np.array([*left, 20, 20, 30, 50.0])
    bm = BinMapper().fit(X)
    return bm.transform(X), bm, -r, np.ones(8)


@pytest.mark.parametrize("num_leaves, order, best_first",
                         [(3, [1682, 4], [1682, 533.33]),
                          (4, [1682, 4, 533.33], [1682, 533.33, 66.67]),
                          (5, [1682, 4, 533.33, 66.67], [1682, 533.33, 66.67, 4])])
def test_width_first_growth_splits_level_by_level_and_stops_mid_level(num_leaves, order, best_first):
    """Width-first (Xia §4) splits the root, then its children left to right, then theirs:
    at 3 leaves the left child splits although the right one has the larger gain (the limit
    falls inside level 1); best-first (LightGBM) takes the right child and its child first.
    Nodes are stored in the order they split, so ``tree.gain`` is that order."""
    bins, bm, g, h = _growth_case()
    for growth, expected in (("width-first", order), ("best-first", best_first)):
        tree, _ = TreeGrower(bins, bm.n_bins, bm.thresholds, criterion="se", num_leaves=num_leaves,
                             min_data_in_leaf=1, min_sum_hessian_in_leaf=0.0, growth=growth).grow(g, h)
        assert tree.num_leaves == num_leaves
        assert np.allclose(tree.gain, expected, atol=0.01), growth
    # at 4 leaves width-first has the complete level 1: leaves {0,1} {2,3} {4,5,6} {7}
    tree, leaf = TreeGrower(bins, bm.n_bins, bm.thresholds, criterion="se", num_leaves=4, min_data_in_leaf=1,
                            min_sum_hessian_in_leaf=0.0, growth="width-first").grow(g, h)
    assert leaf.tolist() == [0, 0, 1, 1, 2, 2, 2, 3]


def test_width_first_skips_a_node_that_cannot_split():
    """A left half with nothing to gain (all r = 0) stays a leaf; the search moves on to the
    right child, then the right child's left child."""
    bins, bm, g, h = _growth_case(left=(0.0, 0.0, 0.0, 0.0))
    tree, leaf = TreeGrower(bins, bm.n_bins, bm.thresholds, criterion="se", num_leaves=4, min_data_in_leaf=1,
                            min_sum_hessian_in_leaf=0.0, growth="width-first").grow(g, h)
    assert tree.feature.tolist() == [0, 1, 1] and np.allclose(tree.gain[1:], [533.33, 66.67], atol=0.01)
    assert leaf.tolist() == [0, 0, 0, 0, 1, 1, 2, 3]
    with pytest.raises(ValueError, match="growth"):
        TreeGrower(bins, bm.n_bins, bm.thresholds, growth="depth-first")


def test_diagonal_leaf_is_the_standard_lambdamart_leaf_on_a_hand_built_list():
    """Xia Eq. 8 with per-document weights: leaf = −Σλ/Σw. LambdaMART (σ = 1) at zero scores,
    labels 2, 1, 0 (ranked in input order), IDCG = 3 + 1/log2 3. |ΔNDCG| of the pairs:
    (1,2) 2(1 − 1/log2 3)/IDCG, (1,3) 3(1 − 1/2)/IDCG, (2,3) (1/log2 3 − 1/2)/IDCG; every pair
    has ρ = ½, so λ_i = −½ Σ|Δ| over the pairs d_i wins, +½ over those it loses, and
    w_i = ¼ Σ|Δ| over its pairs. Split {d1} | {d2, d3}: the leaves are −λ1/w1 = 2 and
    −(λ2 + λ3)/(w2 + w3)."""
    idcg = 3 + 1 / math.log2(3)
    d12 = 2 * (1 - 1 / math.log2(3)) / idcg
    d13 = 3 * 0.5 / idcg
    d23 = (1 / math.log2(3) - 0.5) / idcg
    lam = np.array([-(d12 + d13) / 2, (d12 - d23) / 2, (d13 + d23) / 2])
    w = np.array([d12 + d13, d12 + d23, d13 + d23]) / 4
    X = np.array([[0.0], [1.0], [1.0]], dtype=np.float32)
    ds = RankingDataset(X=X, y=np.array([2, 1, 0], np.int32), qid=np.zeros(3, np.int64))
    g, h, pairs = LambdaMART(sigma=1.0).grad_hess_pairs(np.zeros(3), ds.y, ds.offsets)
    assert np.allclose(g, lam) and np.allclose(h, w)
    expected = [-lam[0] / w[0], -(lam[1] + lam[2]) / (w[1] + w[2])]
    assert expected[0] == pytest.approx(2.0)
    for crit in ("se", "rwse", "ole"):
        grower, _ = _grower(ds, crit, num_leaves=2, leaf_hessian="diagonal")
        tree, leaf = grower.grow(g, h, pairs, learning_rate=1.0)
        assert np.allclose(tree.value[leaf], [expected[0], expected[1], expected[1]]), crit
        # the exact rule removes the pair inside {d2, d3} from its second derivative
        grower.leaf_hessian = "exact"
        tree, leaf = grower.grow(g, h, pairs, learning_rate=1.0)
        inner = 2 * 0.25 * d23
        assert tree.value[leaf][1] == pytest.approx(-(lam[1] + lam[2]) / (w[1] + w[2] - inner))
