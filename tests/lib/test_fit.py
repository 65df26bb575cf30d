"""The fit layer: every registered system of every paper honours one staged contract and
returns one result type; scores per round range add up; seeds decide the numbers."""
import dataclasses

import numpy as np
import pytest

from ltrrepro import make_synthetic
from ltrrepro.fit import SYSTEMS, Boosting, Fitted
from ltrrepro.metrics import evaluate


@pytest.fixture(scope="module")
def parts():
    ds = make_synthetic("web30k", n_queries=45, seed=11)
    idx = np.arange(ds.n_queries)
    return ds.subset(idx[:27]), ds.subset(idx[27:36]), ds.subset(idx[36:])


SMALL = {"zheng": {"grid": ((0.1, 4),), "c_grid": (0.1,), "max_pairs": 2000}}


def _fields(options) -> set:
    return {f.name for f in dataclasses.fields(options)}


@pytest.mark.parametrize("name", sorted(SYSTEMS))
def test_every_system_fits_through_the_same_staged_contract(parts, name):
    train, valid, test = parts
    system = SYSTEMS[name]
    lib = system.libraries[0]
    options = {k: v for k, v in SMALL["zheng"].items() if k in _fields(system.options)}
    b = Boosting(learning_rate=0.2, num_leaves=4, min_data_in_leaf=5, max_bin=15, rounds=4, early_stopping=2)
    trainer = system.trainer(b, library=lib, seed=np.random.SeedSequence(1), threads=1, **options)
    trainer.add_train(train)
    trainer.add_valid(valid)
    fitted = trainer.fit()
    assert isinstance(fitted, Fitted) and 1 <= fitted.best_iteration <= fitted.n_rounds <= b.rounds
    scores = fitted.scores(test.X)
    assert scores.shape == (test.n_docs,) and np.isfinite(scores).all()
    assert fitted.train_s > 0
    # the last point of a curve is the model's scores with that many rounds
    points = sorted({1, fitted.n_rounds})
    last = list(fitted.scores_at(test.X, points))[-1][1]
    np.testing.assert_allclose(last, fitted.scores(test.X, fitted.n_rounds), rtol=1e-9, atol=1e-12)
    r = evaluate(scores, test.y, test.offsets, ["ndcg@5"])
    assert 0 <= next(iter(r.values())).mean <= 1


def test_same_seed_same_model_and_the_seed_reaches_the_objective(parts):
    train, valid, test = parts
    b = Boosting(learning_rate=0.2, num_leaves=4, min_data_in_leaf=5, max_bin=15, rounds=3)

    def run(seed):
        tr = SYSTEMS["xendcg"].trainer(b, library="lightgbm", seed=np.random.SeedSequence(seed), threads=1)
        tr.add_train(train)
        tr.add_valid(valid)
        return tr.fit().scores(test.X)

    np.testing.assert_array_equal(run(4), run(4))
    assert not np.array_equal(run(4), run(5))          # XE_NDCG's γ comes from the unit's seed


def test_a_system_pinned_to_one_library_keeps_it_and_others_are_refused():
    assert SYSTEMS["lgb_rank_xendcg"].resolve_library("xgboost") == "lightgbm"
    assert SYSTEMS["lambdamart-ole"].resolve_library("lightgbm") == "ltrrepro"
    with pytest.raises(ValueError, match="runs in lightgbm, xgboost, not 'catboost'"):
        SYSTEMS["xendcg"].resolve_library("catboost")


def test_boosting_checks_its_fields():
    with pytest.raises(ValueError, match="learning_rate"):
        Boosting(learning_rate=0)
    with pytest.raises(ValueError, match="early_stopping"):
        Boosting(early_stopping=0)
    assert Boosting(rounds=7).replace(rounds=9).rounds == 9


def test_the_device_reaches_the_library_parameters():
    b = Boosting(rounds=2)
    seed = np.random.SeedSequence(0)
    xgb_cuda = SYSTEMS["xendcg"].trainer(b, library="xgboost", seed=seed, device="cuda").params
    lgb_cuda = SYSTEMS["lambdamart"].trainer(b, library="lightgbm", seed=seed, device="cuda").params
    cpu = SYSTEMS["lambdamart"].trainer(b, library="xgboost", seed=seed).params
    assert xgb_cuda["device"] == "cuda" and lgb_cuda["device_type"] == "cuda"
    assert "device" not in cpu and "device_type" not in cpu


def test_a_device_the_machine_lacks_is_a_clear_error(monkeypatch):
    from ltrrepro import device
    from ltrrepro.fit.backends import check_device
    monkeypatch.setattr(device, "_probe", lambda program: False)      # as on a machine without a GPU
    with pytest.raises(device.DeviceError, match="no visible CUDA GPU.*run without --device"):
        check_device("cuda", "xgboost")
    with pytest.raises(device.DeviceError, match="built without CUDA"):
        check_device("cuda", "lightgbm")
    with pytest.raises(device.DeviceError, match="CPU only"):
        check_device("cuda", "ltrrepro")
    check_device("cpu", "lightgbm")                               # the CPU always works
    monkeypatch.setattr(device, "_probe", lambda program: True)
    check_device("cuda", "xgboost")


def test_train_s_is_the_training_itself_not_what_the_unit_did_before(parts):
    """``train_s`` times the boosting only; the unit's transform and the binning before it
    are ``info["setup_s"]`` (the timings table calls train_s the training time)."""
    import time
    train, valid, _ = parts
    b = Boosting(learning_rate=0.2, num_leaves=4, min_data_in_leaf=5, max_bin=15, rounds=4, early_stopping=2)
    trainer = SYSTEMS["lambdamart"].trainer(b, library="lightgbm", seed=np.random.SeedSequence(1), threads=1)
    time.sleep(0.5)                                      # a unit's noise or click transform
    trainer.add_train(train)
    trainer.add_valid(valid)
    fitted = trainer.fit()
    assert fitted.train_s < 0.5 <= fitted.info["setup_s"]


@pytest.mark.parametrize("name,lib", [(n, lib) for n in sorted(SYSTEMS) for lib in SYSTEMS[n].libraries])
def test_every_prediction_takes_the_trainers_thread_count(parts, name, lib, monkeypatch):
    """No library call of a trainer or its predictor runs on the library's default thread
    count (all cores): LightGBM's predict gets ``num_threads``, XGBoost's DMatrix ``nthread``."""
    import lightgbm as lgb
    import xgboost as xgb
    calls = []
    real_predict, real_dmatrix = lgb.Booster.predict, xgb.DMatrix.__init__

    def predict(self, *a, **k):
        calls.append(("lightgbm.predict", k.get("num_threads")))
        return real_predict(self, *a, **k)

    def dmatrix(self, *a, **k):
        calls.append(("xgboost.DMatrix", k.get("nthread")))
        return real_dmatrix(self, *a, **k)

    monkeypatch.setattr(lgb.Booster, "predict", predict)
    monkeypatch.setattr(xgb.DMatrix, "__init__", dmatrix)
    train, valid, test = parts
    system = SYSTEMS[name]
    options = {k: v for k, v in SMALL["zheng"].items() if k in _fields(system.options)}
    b = Boosting(learning_rate=0.2, num_leaves=4, min_data_in_leaf=5, max_bin=15, rounds=3, early_stopping=2)
    trainer = system.trainer(b, library=lib, seed=np.random.SeedSequence(1), threads=1, **options)
    trainer.add_train(train)
    trainer.add_valid(valid)
    trainer.fit().scores(test.X)
    assert all(t == 1 for _, t in calls), [c for c in calls if c[1] != 1]
