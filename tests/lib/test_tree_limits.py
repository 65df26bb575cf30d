"""The depth, leaf-Hessian, split-gain and L1 fields of :class:`~ltrrepro.fit.boosting.Boosting`
(Kang et al. 2024's XGBoost search space) reach each library as its own parameter, read back from
the library's own dump; CatBoost refuses what it has no parameter for; and the harness's
loss-guided XGBoost trees with 2^depth leaves are the trees of XGBoost's default depth-wise growth."""
from __future__ import annotations

import json

import numpy as np
import pytest

from ltrrepro.fit.backends import BACKENDS
from ltrrepro.fit.boosting import OFF, PRESETS, Boosting, preset
from ltrrepro.synthetic import make_synthetic

KANG = Boosting(learning_rate=0.3, num_leaves=256, max_depth=8, min_sum_hessian=6.0, min_split_gain=0.66,
                lambda_l2=2.2e-4, lambda_l1=0.0177, max_bin=256, rounds=8)


@pytest.fixture(scope="module")
def ds():
    return make_synthetic("yahoo", n_queries=120, seed=3)


def test_every_preset_leaves_the_new_fields_off():
    assert all(preset(name).regularization() == {} for name in PRESETS)
    assert set(KANG.regularization()) == set(OFF) - {"feature_fraction", "bagging_fraction"}
    for bad in ({"max_depth": -1}, {"min_sum_hessian": -1.0}, {"min_split_gain": -0.1}, {"lambda_l1": -1e-9}):
        with pytest.raises(ValueError):
            Boosting(**bad)


def test_xgboost_receives_them_under_its_names(ds):
    import xgboost as xgb
    d = xgb.DMatrix(ds.X, label=ds.y)
    d.set_group(np.diff(ds.offsets))
    p = BACKENDS["xgboost"].params("rank:ndcg", KANG, threads=1, seed=0)
    tree = json.loads(xgb.train(p, d, 2).save_config())["learner"]["gradient_booster"]["tree_train_param"]
    got = {k: float(tree[k]) for k in ("max_depth", "min_child_weight", "gamma", "alpha", "lambda")}
    assert got == pytest.approx({"max_depth": 8, "min_child_weight": 6, "gamma": 0.66, "alpha": 0.0177,
                                 "lambda": 2.2e-4}, rel=1e-6)
    plain = json.loads(xgb.train(BACKENDS["xgboost"].params("rank:ndcg", preset("fast"), threads=1, seed=0), d, 1)
                       .save_config())["learner"]["gradient_booster"]["tree_train_param"]
    assert {k: float(plain[k]) for k in ("max_depth", "min_child_weight", "gamma", "alpha")} == dict.fromkeys(
        ("max_depth", "min_child_weight", "gamma", "alpha"), 0.0)


def test_lightgbm_receives_them_under_its_names(ds):
    import lightgbm as lgb
    p = BACKENDS["lightgbm"].params("lambdarank", KANG, threads=1, seed=0, min_leaf_hessian=1e-3)
    booster = lgb.train(p, lgb.Dataset(ds.X, ds.y, group=np.diff(ds.offsets)), 2)
    dump = booster.model_to_string()
    for line in ("[max_depth: 8]", "[min_sum_hessian_in_leaf: 6]", "[min_gain_to_split: 0.66]", "[lambda_l1: 0.0177]",
                 "[lambda_l2: 0.00022]"):
        assert line in dump, line
    data = lgb.Dataset(ds.X, ds.y, group=np.diff(ds.offsets))
    deepest = {d: max(_depth(t["tree_structure"]) for t in lgb.train(
        BACKENDS["lightgbm"].params("lambdarank", Boosting(num_leaves=64, min_data_in_leaf=2, max_depth=d), threads=1,
                                    seed=0), data, 3).dump_model()["tree_info"]) for d in (0, 3)}
    assert deepest[3] == 3 and deepest[0] > 3                 # the limit binds, and only with it


def _depth(node) -> int:
    return 0 if "leaf_value" in node else 1 + max(_depth(node["left_child"]), _depth(node["right_child"]))


def test_catboost_takes_the_depth_and_refuses_the_rest():
    pytest.importorskip("catboost")
    be = BACKENDS["catboost"]
    assert be.params("YetiRank", Boosting(max_depth=5), threads=1, seed=0)["depth"] == 5
    for field in ("min_sum_hessian", "min_split_gain", "lambda_l1"):
        with pytest.raises(ValueError, match=field):
            be.params("YetiRank", Boosting(**{field: 0.5}), threads=1, seed=0)


def test_loss_guided_trees_with_all_their_leaves_are_xgboosts_depth_wise_trees(ds):
    """With ``num_leaves`` = 2^depth the leaf bound never binds, so the harness's loss-guided
    growth (each leaf split by its own best split until depth, Σ Hessian or gain stops it) grows
    the trees XGBoost's default ``depthwise`` growth does, with Kang et al.'s parameters: the
    same predictions to the bit. With 31 leaves (a preset's) they differ."""
    import xgboost as xgb
    d = xgb.DMatrix(ds.X, label=ds.y)
    d.set_group(np.diff(ds.offsets))
    p = BACKENDS["xgboost"].params("rank:ndcg", KANG, threads=1, seed=0)
    assert p["grow_policy"] == "lossguide" and p["max_leaves"] == 256
    depthwise = {k: v for k, v in p.items() if k not in ("grow_policy", "max_leaves")}
    a = xgb.train(p, d, KANG.rounds).predict(d)
    b = xgb.train(depthwise, d, KANG.rounds).predict(d)
    assert np.array_equal(a, b)
    few = BACKENDS["xgboost"].params("rank:ndcg", KANG.replace(num_leaves=31), threads=1, seed=0)
    assert not np.array_equal(xgb.train(few, d, KANG.rounds).predict(d), b)


@pytest.mark.parametrize("declared,expected", [(6.0, 6.0), (0.0, None)])
def test_a_declared_leaf_hessian_stands_in_xgboost_for_a_custom_objective(ds, declared, expected):
    """XGBoost gives a custom objective ``min_child_weight = min_data_in_leaf × mean Hessian`` (its
    stand-in for a least number of documents), unless the boosting declares its own least leaf
    Hessian (Kang et al.'s min_child_weight 6): then the library trains with the declared value,
    read from its own dump after two rounds."""
    from ltrrepro.fit import SYSTEMS
    from ltrrepro.fit.ranking import hessian_floor
    b = Boosting(learning_rate=0.1, num_leaves=31, min_data_in_leaf=20, min_sum_hessian=declared, rounds=2)
    trainer = SYSTEMS["xendcg"].trainer(b, library="xgboost", seed=np.random.SeedSequence(0), threads=1)
    trainer.add_train(ds)
    trainer.add_valid(ds)
    run = trainer.backend.train(trainer.params, trainer.dtrain, 2, valid=trainer.dvalid, metric=("m", lambda p: 0.0),
                                patience=2)
    got = float(trainer.backend.library_dump(run.booster)["gradient_booster"]["tree_train_param"]["min_child_weight"])
    floor = hessian_floor(trainer.make_objective(), ds, 20)
    assert floor > 0.1
    assert got == pytest.approx(expected if expected is not None else floor, rel=1e-6)


def test_xias_library_mcrank_takes_a_declared_depth(ds):
    """Xia et al.'s McRank in LightGBM passes its own ``max_depth`` (-1: none); a depth the boosting
    declares stands in its place (before, the two collided as one keyword twice)."""
    from ltrrepro.fit import SYSTEMS
    for declared, expected in ((0, -1), (3, 3)):
        t = SYSTEMS["mcrank-se-lgb"].trainer(Boosting(rounds=2, num_leaves=15, min_data_in_leaf=5, max_depth=declared),
                                             library="lightgbm", seed=np.random.SeedSequence(0), threads=1)
        t.add_train(ds)
        assert t.fit().params["max_depth"] == expected
