"""Each library's defaults as its backend declares them (:attr:`ltrrepro.fit.backends.Backend.defaults`,
``default_params``, CatBoost's per loss) are the installed library's own: a model trained with the
harness's parameters at the library's defaults and one trained with nothing but the objective and the
parameters that stay the harness's (``harness_params``: seed, threads, determinism) have the same
parameter dump in the library's own words (LightGBM's model file, XGBoost ``save_config``, CatBoost
``get_all_params``) and the same predictions, bit for bit; and the dump shows the values read."""
from __future__ import annotations

import numpy as np
import pytest

from ltrrepro.data import RankingDataset
from ltrrepro.fit.backends import BACKENDS
from ltrrepro.fit.boosting import Boosting, preset


@pytest.fixture(scope="module")
def ds():
    rng = np.random.default_rng(0)
    n_q, per = 30, 12
    X = rng.random((n_q * per, 5)).astype(np.float32)
    y = np.minimum(4, (X[:, 0] * 4 + rng.random(n_q * per)).astype(int))
    return RankingDataset(X=X, y=y, qid=np.repeat(np.arange(n_q), per), offsets=np.arange(0, n_q * per + 1, per),
                          name="toy")


def _both(lib, objective, ds, extra=()):
    """(dump, predictions) of a model at the declared defaults and of one given no hyper-parameters."""
    be = BACKENDS[lib]
    boosting, params = be.at_defaults(objective, rounds=4)
    params = {**params, **dict(extra)}
    p = be.params(objective, boosting, threads=1, seed=0, own_metric=True, **params)
    bare = {**{k: p[k] for k in be.harness_params if k in p}, **dict(extra)}
    bare["loss_function" if lib == "catboost" else "objective"] = objective
    out = []
    for q in (p, bare):
        run = be.train(q, be.dataset(ds, q, threads=1), 4)
        out.append((be.library_dump(run.booster), be.predictor(run.booster, 1)(ds.X, 0, 4)))
    return out


@pytest.mark.parametrize("lib,objective", [("lightgbm", "lambdarank"), ("lightgbm", "rank_xendcg"),
                                           ("xgboost", "rank:ndcg"), ("xgboost", "rank:pairwise")])
def test_lightgbm_and_xgboost_defaults_are_the_librarys(lib, objective, ds):
    (dump, pred), (bare_dump, bare_pred) = _both(lib, objective, ds)
    assert dump == bare_dump
    assert np.array_equal(pred, bare_pred)


def test_the_dumps_show_the_values_read(ds):
    (lgb, _), _ = _both("lightgbm", "lambdarank", ds)
    assert {k: lgb[k] for k in ("learning_rate", "num_leaves", "min_data_in_leaf", "min_sum_hessian_in_leaf",
                                "max_bin", "max_depth", "lambda_l2", "lambdarank_norm")} == \
        {"learning_rate": "0.1", "num_leaves": "31", "min_data_in_leaf": "20", "min_sum_hessian_in_leaf": "0.001",
         "max_bin": "255", "max_depth": "-1", "lambda_l2": "0", "lambdarank_norm": "1"}
    (xgb, _), _ = _both("xgboost", "rank:ndcg", ds)
    tree = xgb["gradient_booster"]["tree_train_param"]
    assert {k: float(tree[k]) for k in ("eta", "max_depth", "min_child_weight", "lambda", "max_bin", "max_leaves")} == \
        pytest.approx({"eta": 0.3, "max_depth": 6, "min_child_weight": 1, "lambda": 1, "max_bin": 256, "max_leaves": 0})
    assert tree["grow_policy"] == "depthwise"
    assert xgb["objective"]["lambdarank_param"]["lambdarank_normalization"] == "1"


def test_the_presets_are_not_the_defaults(ds):
    """The check bites: the harness's preset differs from the defaults in each library's own dump."""
    for lib, objective in (("lightgbm", "lambdarank"), ("xgboost", "rank:ndcg")):
        be = BACKENDS[lib]
        p = be.params(objective, preset("tiny", rounds=2), threads=1, seed=0, own_metric=True)
        bare = {**{k: p[k] for k in be.harness_params if k in p}, "objective": objective}
        dumps = [be.library_dump(be.train(q, be.dataset(ds, q, threads=1), 2).booster) for q in (p, bare)]
        assert dumps[0] != dumps[1], lib


def test_every_library_declares_every_field():
    fields = set(Boosting.__dataclass_fields__) - {"rounds", "early_stopping"}
    for name, be in BACKENDS.items():
        assert set(be.defaults) == fields, name
        assert be.default_rounds and be.defaults_read and be.harness_params, name


CATBOOST_LOSSES = ("YetiRank", "YetiRank:mode=MRR;top=10", "LambdaMart", "LambdaMart:metric=MRR;top=10",
                   "StochasticRank:metric=NDCG;top=10", "QuerySoftMax", "PairLogit", "QueryRMSE", "YetiRankPairwise")


@pytest.mark.parametrize("loss", CATBOOST_LOSSES)
def test_catboost_defaults_are_catboosts_per_loss(loss, ds):
    pytest.importorskip("catboost")
    shapes = [()] if loss == "YetiRankPairwise" else [(), (("grow_policy", "Lossguide"),)]
    for extra in shapes:
        (dump, pred), (bare_dump, bare_pred) = _both("catboost", loss, ds, extra)
        if loss.startswith("LambdaMart"):       # the harness spells out σ and norm: CatBoost's defaults
            assert dump.pop("loss_function") == loss + (";" if ":" in loss else ":") + "sigma=1;norm=true"
            bare_dump.pop("loss_function")
        assert dump == bare_dump, extra
        assert np.array_equal(pred, bare_pred)


def test_catboost_dump_shows_the_values_read(ds):
    pytest.importorskip("catboost")
    (yeti, _), _ = _both("catboost", "YetiRank", ds)
    assert {k: yeti[k] for k in ("depth", "grow_policy", "border_count", "bootstrap_type", "random_strength")} == \
        {"depth": 6, "grow_policy": "SymmetricTree", "border_count": 254, "bootstrap_type": "MVS", "random_strength": 1}
    assert yeti["learning_rate"] == pytest.approx(0.03) and yeti["l2_leaf_reg"] < 1e-12
    (sr, _), _ = _both("catboost", "StochasticRank:metric=NDCG;top=10", ds)
    assert sr["l2_leaf_reg"] == 3
