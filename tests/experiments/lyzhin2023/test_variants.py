"""Each per-metric variant of the tricks study reaches its library: the trained model's own
parameter dump (CatBoost ``get_all_params``, XGBoost ``save_config``, LightGBM's model file) shows the
objective and the metric it targets, and the ablation knobs and tree shape arrive too."""
import numpy as np
import pytest

from experiments.lyzhin2023.protocol import ABLATION_BASE, FAMILIES, METRICS, TricksConfig
from ltrrepro.data import RankingDataset
from ltrrepro.fit import BACKENDS, SYSTEMS
from ltrrepro.fit.boosting import preset
from ltrrepro.metrics import evaluate

CONFIG = TricksConfig(experiment="", queries=40, trials=2, families=tuple(FAMILIES), targets=tuple(METRICS))
VARIANTS = sorted({(f, m, s) for f, by in FAMILIES.items() for m, s in by.items()})
#: what the library's dump must show for a variant trained for a metric (its own names)
TARGET = {"ndcg": "NDCG", "mrr": "MRR", "err": "ERR", "map": "MAP"}


def _data(seed=0, n_q=12, per=8):
    rng = np.random.default_rng(seed)
    X = rng.random((n_q * per, 4)).astype(np.float32)
    y = np.minimum(4, (X[:, 0] * 5 + rng.random(n_q * per)).astype(int))
    qid = np.repeat(np.arange(n_q), per)
    return RankingDataset(X=X, y=y, qid=qid, offsets=np.arange(0, n_q * per + 1, per), name="toy")


def _dump(system, ablation="none"):
    """The library's own record of what a unit's trainer of ``system`` handed it."""
    lib = CONFIG.library_of(system)
    if BACKENDS[lib].missing():
        pytest.skip(BACKENDS[lib].missing())
    trainer = SYSTEMS[system].trainer(preset("tiny", rounds=3, early_stopping=None), library=None,
                                      seed=np.random.SeedSequence(0), threads=1, **CONFIG.options(system, ablation))
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
