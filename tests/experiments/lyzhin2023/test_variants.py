"""Each per-metric variant of the tricks study reaches its library: the trained model's own
parameter dump (CatBoost ``get_all_params``, XGBoost ``save_config``, LightGBM's model file) shows the
objective and the metric it targets, and the ablation knobs and tree shape arrive too; at ``--hp defaults``
the dump shows each library's own defaults (one system per library), at ``--hp preset`` the preset's."""
import dataclasses

import numpy as np
import pytest

from experiments.lyzhin2023.protocol import ABLATION_BASE, FAMILIES, METRICS, TricksConfig
from ltrrepro.data import RankingDataset
from ltrrepro.fit import BACKENDS, SYSTEMS
from ltrrepro.fit.boosting import preset
from ltrrepro.metrics import evaluate

CONFIG = TricksConfig(experiment="", queries=40, trials=2, families=tuple(FAMILIES), targets=tuple(METRICS),
                      preset="tiny", hp="preset")
DEFAULTS = dataclasses.replace(CONFIG, hp="defaults")
VARIANTS = sorted({(f, m, s) for f, by in FAMILIES.items() for m, s in by.items()})
#: what the library's dump must show for a variant trained for a metric (its own names)
TARGET = {"ndcg": "NDCG", "mrr": "MRR", "err": "ERR", "map": "MAP"}


def _data(seed=0, n_q=12, per=8):
    rng = np.random.default_rng(seed)
    X = rng.random((n_q * per, 4)).astype(np.float32)
    y = np.minimum(4, (X[:, 0] * 5 + rng.random(n_q * per)).astype(int))
    qid = np.repeat(np.arange(n_q), per)
    return RankingDataset(X=X, y=y, qid=qid, offsets=np.arange(0, n_q * per + 1, per), name="toy")


def _dump(system, ablation="none", cfg=CONFIG):
    """The library's own record of what a unit's trainer of ``system`` handed it (3 trees of the
    boosting a unit of ``cfg`` trains with)."""
    lib = cfg.library_of(system)
    if BACKENDS[lib].missing():
        pytest.skip(BACKENDS[lib].missing())
    boosting = cfg.fixed_at(system)[0].replace(rounds=3, early_stopping=None)
    trainer = SYSTEMS[system].trainer(boosting, library=None,
                                      seed=np.random.SeedSequence(0), threads=1, **cfg.options(system, ablation))
    trainer.add_train(_data(0))
    trainer.add_valid(_data(1))
    b = trainer.backend
    run = b.train(trainer.params, trainer.dtrain, 3, valid=trainer.dvalid, metric=("m", lambda p: 0.0), patience=3)
    return lib, b.library_dump(run.booster)


@pytest.mark.parametrize("family,metric,system", VARIANTS)
def test_each_variant_reaches_its_library(family, metric, system):
    lib, dump = _dump(system)
    loss = dict(SYSTEMS[system].options.builtin)[lib]
    if "loss_function" in dump:                                  # CatBoost: the loss string it trained with
        shown = dump["loss_function"]
        assert shown.startswith(loss.split(":")[0])
        if metric != "*":
            assert f"={TARGET[metric]}" in shown and "top=10" in shown, shown
        assert dump["grow_policy"] == "SymmetricTree" and dump["depth"] == 3      # 7 leaves -> depth 3
    elif "objective" in dump and isinstance(dump["objective"], dict):   # XGBoost: the learner's configuration
        assert dump["objective"]["name"] == loss
        if metric == "map":
            assert dump["objective"]["name"] == "rank:map"
    else:                                                        # LightGBM: its model file's parameters
        assert dump["objective"] == loss


def test_the_ablation_knobs_and_tree_shape_reach_catboost():
    _, dump = _dump(ABLATION_BASE, "noise-No")
    assert dump["loss_function"].endswith("noise=No") and "mode=NDCG" in dump["loss_function"]
    _, dump = _dump(ABLATION_BASE, "neighbors-3")
    assert "num_neighbors=3" in dump["loss_function"]
    _, dump = _dump(ABLATION_BASE, "trees-leafwise")
    assert dump["grow_policy"] == "Lossguide" and dump["max_leaves"] > 0


def test_each_variant_is_selected_on_its_own_metric():
    from experiments.lyzhin2023.protocol import TARGET_OF

    for system, target in TARGET_OF.items():
        assert CONFIG.options(system)["select"] == METRICS[target or "ndcg"], system
    lib = CONFIG.library_of("catboost_yetiloss_mrr")
    if BACKENDS[lib].missing():
        pytest.skip(BACKENDS[lib].missing())
    trainer = SYSTEMS["catboost_yetiloss_mrr"].trainer(preset("tiny", rounds=3), library=None,
                                                      seed=np.random.SeedSequence(0), threads=1,
                                                      **CONFIG.options("catboost_yetiloss_mrr"))
    seen = []
    trainer.on_valid = lambda step, value: seen.append(value)
    trainer.add_train(_data(0))
    valid = _data(1)
    trainer.add_valid(valid)
    fitted = trainer.fit()
    last = evaluate(fitted.scores(valid.X, fitted.n_rounds), valid.y, valid.offsets, [METRICS["mrr"]])
    assert len(seen) == fitted.n_rounds and seen[-1] == pytest.approx(last[METRICS["mrr"]].mean)   # MRR, not NDCG


def test_yetirank_pairwise_keeps_symmetric_trees_under_lossguide():
    import dataclasses

    leafwise = dataclasses.replace(CONFIG, grow_policy="Lossguide")
    assert dict(dict(leafwise.options("catboost_yetirank_pairwise")["library_params"])["catboost"]) == \
        {"grow_policy": "SymmetricTree"}
    assert dict(dict(leafwise.options("catboost_yetirank")["library_params"])["catboost"]) == {"grow_policy": "Lossguide"}


def test_at_defaults_each_library_trains_with_its_own_defaults():
    """One system per library at ``--hp defaults``, read from the library's own dump (the values read
    from the installed libraries: tests/lib/test_library_defaults.py); at ``--hp preset`` the preset's."""
    _, lgb = _dump("lgb_lambdarank", cfg=DEFAULTS)
    assert {k: lgb[k] for k in ("learning_rate", "num_leaves", "min_data_in_leaf", "min_sum_hessian_in_leaf",
                                "max_bin", "lambdarank_norm")} == {"learning_rate": "0.1", "num_leaves": "31",
                                                                   "min_data_in_leaf": "20",
                                                                   "min_sum_hessian_in_leaf": "0.001",
                                                                   "max_bin": "255", "lambdarank_norm": "1"}
    _, xgb = _dump("xgb_rank_ndcg", cfg=DEFAULTS)
    tree = xgb["gradient_booster"]["tree_train_param"]
    assert {k: float(tree[k]) for k in ("eta", "max_depth", "max_leaves", "lambda", "min_child_weight", "max_bin")} == \
        pytest.approx({"eta": 0.3, "max_depth": 6, "max_leaves": 0, "lambda": 1, "min_child_weight": 1, "max_bin": 256})
    assert tree["grow_policy"] == "depthwise"
    _, lgb = _dump("lgb_lambdarank")                              # the preset: 'tiny' in every library
    _, xgb = _dump("xgb_rank_ndcg")
    assert (lgb["learning_rate"], lgb["num_leaves"], lgb["lambdarank_norm"]) == ("0.2", "7", "0")
    assert xgb["gradient_booster"]["tree_train_param"]["grow_policy"] == "lossguide"


def test_at_defaults_catboost_trains_with_its_own_defaults():
    pytest.importorskip("catboost")
    _, yeti = _dump(ABLATION_BASE, cfg=DEFAULTS)
    assert {k: yeti[k] for k in ("depth", "grow_policy", "border_count", "bootstrap_type", "random_strength")} == \
        {"depth": 6, "grow_policy": "SymmetricTree", "border_count": 254, "bootstrap_type": "MVS", "random_strength": 1}
    assert yeti["learning_rate"] == pytest.approx(0.03) and yeti["l2_leaf_reg"] < 1e-12   # YetiRank's: none
    _, sr = _dump("catboost_stochasticrank_ndcg", cfg=DEFAULTS)
    assert sr["l2_leaf_reg"] == 3 and sr["depth"] == 6
    _, leafwise = _dump(ABLATION_BASE, "trees-leafwise", cfg=DEFAULTS)        # the ablation: Lossguide's defaults
    assert (leafwise["grow_policy"], leafwise["max_leaves"], leafwise["min_data_in_leaf"], leafwise["depth"]) == \
        ("Lossguide", 31, 1, 6) and leafwise["bootstrap_type"] == "MVS"
    _, pairwise = _dump("catboost_yetirank_pairwise", cfg=dataclasses.replace(DEFAULTS, grow_policy="Lossguide"))
    assert (pairwise["grow_policy"], pairwise["border_count"], pairwise["bootstrap_type"]) == \
        ("SymmetricTree", 32, "Bernoulli")
    _, preset_dump = _dump(ABLATION_BASE)
    assert (preset_dump["depth"], preset_dump["bootstrap_type"], preset_dump["random_strength"]) == (3, "No", 0)


def test_a_search_and_its_tuned_units_start_from_the_preset():
    """Under --tune the fixed units are at --hp and the tuned ones at the preset their search started from."""
    from experiments.lyzhin2023.studies import SEARCH
    from ltrrepro.runner import Unit
    from ltrrepro.tuning import TUNED

    for system in ("lgb_lambdarank", "xgb_rank_ndcg"):
        assert SEARCH.base(DEFAULTS, system) == DEFAULTS.boosting == DEFAULTS.fixed_at(system, "preset")[0]
        assert SEARCH.options(DEFAULTS, system) == CONFIG.options(system)
        assert DEFAULTS.fixed_at(system)[0] != DEFAULTS.boosting
    unit = Unit("tricks", "synthetic-web30k", 0, "xgb_rank_ndcg", (("ablation", "none"),))
    assert DEFAULTS.hp_of(unit) == "defaults" and CONFIG.hp_of(unit) == "preset"
    assert DEFAULTS.hp_of(dataclasses.replace(unit, setting=(*unit.setting, TUNED))) == "preset"
