"""Xia et al.: exact-OLE trees grow to the leaf limit (the paper's rule; OLE only chooses the
split), the positive-gain rule kept as an option; leaves per tree are recorded; the ``own``
leaf rule is Eq. 8 for SE/RWSE and Eq. 11's exact step for OLE."""
from __future__ import annotations

import numpy as np
import pytest

from ltrrepro.data import RankingDataset
from ltrrepro.gbdt import BinMapper, TreeGrower, train
from ltrrepro.objectives import RankNet
from ltrrepro.fit.xia import GBDTOptions, leaf_hessian, leaves_summary, needs_pairs


def _case(seed=1):
    """RankNet at zero scores on 6 small lists, one feature (the case where exact-OLE gains go negative)."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(6, 12, size=6)
    n = int(sizes.sum())
    X = rng.integers(0, 8, size=(n, 1)).astype(np.float32)
    y = rng.integers(0, 4, size=n).astype(np.int32)
    ds = RankingDataset(X=X, y=y, qid=np.repeat(np.arange(6), sizes))
    bm = BinMapper(max_bin=255).fit(ds.X)
    g, h, pairs = RankNet().grad_hess_pairs(np.zeros(n), ds.y, ds.offsets)
    return ds, bm, g, h, pairs


def _grow(rule, criterion="ole", num_leaves=8):
    ds, bm, g, h, pairs = _case()
    grower = TreeGrower(bm.transform(ds.X), bm.n_bins, bm.thresholds, criterion=criterion, num_leaves=num_leaves,
                        min_data_in_leaf=1, growth="width-first", split_rule=rule)
    return grower.grow(g, h, pairs)[0]


def test_exact_ole_with_a_negative_gain_grows_to_the_leaf_limit_and_the_old_rule_stops_short():
    tree = _grow("leaf-limit")
    assert tree.num_leaves == 8
    assert (tree.gain < 0).any()                   # a split the positive-gain rule refuses
    old = _grow("positive-gain")
    assert old.num_leaves == 2 and (old.gain > 0).all()
    assert _grow("positive-gain", "se").num_leaves == _grow("leaf-limit", "se").num_leaves == 8


def test_split_rule_is_checked_and_leaves_per_tree_are_logged():
    ds, *_ = _case()
    with pytest.raises(ValueError, match="split_rule"):
        _grow("sometimes")
    for rule, short in (("leaf-limit", 0), ("positive-gain", 3)):
        _, log = train(RankNet(), ds, criterion="ole", num_rounds=3, num_leaves=8, min_data_in_leaf=1,
                       growth="width-first", split_rule=rule)
        assert len(log.leaves) == 3
        s = leaves_summary(log.leaves, 8)
        assert s["trees"] == 3 and s["short"] == short and s["min"] == min(log.leaves)


def test_own_leaf_rule_is_each_principles_own_estimate():
    assert leaf_hessian("ole", "own") == "exact"
    assert leaf_hessian("se", "own") == leaf_hessian("rwse", "own") == "diagonal"
    assert leaf_hessian("se", "exact") == "exact" and leaf_hessian("ole", "diagonal") == "diagonal"
    assert not needs_pairs("se", "own") and needs_pairs("ole", "own")
    with pytest.raises(ValueError, match="split_rule"):
        GBDTOptions(objective=RankNet, principle="ole", split_rule="never")
