"""ltrrepro.tuning and the spaces of ltrrepro.fit.space: the search is seeded and resumable with no
configuration repeated, prunes on the validation curve in every library, tunes a plug-in's own
declared parameter beside the built-ins, and the backends map the tuned fields."""
from __future__ import annotations

import sys
import textwrap

import numpy as np
import optuna
import pytest

from ltrrepro.datasets import load_dataset
from ltrrepro.fit import BACKENDS, SYSTEMS, preset
from ltrrepro.fit.ranking import RankingTrainer
from ltrrepro.fit.space import TREE_SPACE, IntRange, LogUniform, Uniform, describe
from ltrrepro.splits import trial_split
from ltrrepro.tuning import Tuned, apply, tune

BOOST = preset("tiny", rounds=4, early_stopping=2)


@pytest.fixture(scope="module")
def parts():
    ds = load_dataset("synthetic-web30k", n_queries=30, seed=0)
    split = trial_split(ds.n_queries, 0, 0)
    return ds.subset(split.train), ds.subset(split.valid)


def _seed():
    return np.random.SeedSequence(7, spawn_key=(0, 2, 1))


def _configs(res: Tuned) -> list:
    return [tuple(sorted(t["params"].items())) for t in res.trials]


def test_distributions_check_their_bounds_and_say_what_they_are():
    assert LogUniform(0.01, 0.3).text() == "log-uniform [0.01, 0.3]"
    assert IntRange(7, 255, log=True).text() == "log-uniform integers [7, 255]"
    assert Uniform(0.5, 1).text() == "uniform [0.5, 1]"
    for bad in (lambda: LogUniform(0, 1), lambda: Uniform(1, 1), lambda: IntRange(0, 5, log=True)):
        with pytest.raises(ValueError):
            bad()
    assert describe(TREE_SPACE)["learning_rate"] == "log-uniform [0.01, 0.3]"


def test_systems_of_a_library_share_its_space():
    """λMART, XE_NDCG MART and LightGBM's rank_xendcg search one space in LightGBM; the three
    libraries search the same ranges (the cross-library row)."""
    spaces = [SYSTEMS[m].options.space("lightgbm") for m in ("lambdamart", "xendcg", "lgb_rank_xendcg")]
    assert spaces[0] == spaces[1] == spaces[2] == TREE_SPACE
    assert SYSTEMS["catboost_yetirank"].options.space("catboost") == BACKENDS["xgboost"].search_space == TREE_SPACE


@pytest.mark.parametrize("library,names", [
    ("lightgbm", {"feature_fraction": 0.6, "bagging_fraction": 0.7, "bagging_freq": 1, "lambda_l2": 2.0}),
    ("xgboost", {"colsample_bytree": 0.6, "subsample": 0.7, "lambda": 2.0}),
    ("catboost", {"rsm": 0.6, "bootstrap_type": "Bernoulli", "subsample": 0.7, "l2_leaf_reg": 2.0})])
def test_backends_map_the_tuned_fields_and_leave_the_presets_unchanged(library, names):
    be = BACKENDS[library]
    objective = {"lightgbm": "lambdarank", "xgboost": "rank:ndcg", "catboost": "YetiRank"}[library]
    plain = be.params(objective, BOOST, threads=1, seed=0)
    tuned = be.params(objective, BOOST.replace(feature_fraction=0.6, bagging_fraction=0.7, lambda_l2=2.0),
                      threads=1, seed=0)
    assert {k: tuned[k] for k in names} == names
    assert not set(names) - {"lambda_l2", "lambda", "l2_leaf_reg", "bootstrap_type"} & set(plain)
    assert BOOST.regularization() == {}
    with pytest.raises(ValueError):
        BOOST.replace(bagging_fraction=0.0)


def test_apply_replaces_boosting_fields_and_merges_objective_keywords():
    b, over = apply({"learning_rate": 0.05, "num_leaves": 9, "objective.order": 3}, SYSTEMS["xendcg"], BOOST)
    assert (b.learning_rate, b.num_leaves, b.rounds) == (0.05, 9, BOOST.rounds)
    assert over == {"objective_kwargs": (("order", 3),)}
    assert apply({"lambda_l2": 1.0}, SYSTEMS["lambdamart"], BOOST)[1] == {}


@pytest.mark.slow
def test_a_search_is_seeded_and_finds_its_best_configuration(parts, tmp_path):
    train, valid = parts
    runs = [tune(SYSTEMS["lambdamart"], "lightgbm", BOOST, train, valid, budget=4, seed=_seed(),
                 storage=tmp_path / f"s{i}.sqlite3", prune=False) for i in range(2)]      # 4 trainings each
    assert _configs(runs[0]) == _configs(runs[1])
    assert runs[0].params == runs[1].params and runs[0].value == runs[1].value
    done = [t for t in runs[0].trials if t["state"] == "COMPLETE"]
    assert len(runs[0].trials) == 4 and runs[0].value == max(t["value"] for t in done)
    assert set(runs[0].params) == set(TREE_SPACE)
    lo, hi = TREE_SPACE["learning_rate"].low, TREE_SPACE["learning_rate"].high
    assert all(lo <= t["params"]["learning_rate"] <= hi for t in runs[0].trials)


@pytest.mark.slow
def test_the_best_value_is_the_validation_ndcg_the_trainer_selects_on(parts):
    """The search's value of a configuration is what training it again gives on validation."""
    train, valid = parts
    res = tune(SYSTEMS["xendcg"], "lightgbm", BOOST, train, valid, budget=2, seed=_seed(), prune=False)
    b, over = apply(res.params, SYSTEMS["xendcg"], BOOST)
    trainer = SYSTEMS["xendcg"].trainer(b, library="lightgbm", seed=_seed(), **over)
    trainer.add_train(train)
    trainer.add_valid(valid)
    fitted = trainer.fit()
    assert fitted.valid_curve[fitted.best_iteration - 1] == pytest.approx(res.value, abs=1e-12)


@pytest.mark.slow
def test_a_killed_search_resumes_with_no_configuration_repeated(parts, tmp_path, monkeypatch):
    """Killed while its third configuration trains (and, on a second try, with a configuration
    left running by a dead process), the search resumes: the two finished configurations are
    kept as they were, the budget is completed with new ones, none repeated."""
    train, valid = parts
    store = tmp_path / "search.sqlite3"
    fit = RankingTrainer._fit
    calls = []

    def killed_at_third(self):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt("killed")
        return fit(self)

    monkeypatch.setattr(RankingTrainer, "_fit", killed_at_third)
    with pytest.raises(KeyboardInterrupt):
        tune(SYSTEMS["lambdamart"], "lightgbm", BOOST, train, valid, budget=4, seed=_seed(), storage=store, name="s")
    study = optuna.load_study(study_name="s", storage=f"sqlite:///{store}")
    first = [tuple(sorted(t.params.items())) for t in study.trials if t.state.name in ("COMPLETE", "PRUNED")]
    assert len(first) == 2
    study.ask()                                          # a configuration a dead process left running
    monkeypatch.setattr(RankingTrainer, "_fit", fit)
    trained = []
    monkeypatch.setattr(RankingTrainer, "_fit", lambda self: trained.append(1) or fit(self))
    res = tune(SYSTEMS["lambdamart"], "lightgbm", BOOST, train, valid, budget=4, seed=_seed(), storage=store, name="s")
    configs = _configs(res)
    assert len(configs) == 4 and len(set(configs)) == 4
    assert configs[:2] == first                          # kept, not trained again
    assert len(trained) == 2
    again = tune(SYSTEMS["lambdamart"], "lightgbm", BOOST, train, valid, budget=4, seed=_seed(), storage=store,
                 name="s")
    assert _configs(again) == configs and len(trained) == 2      # a finished search trains nothing


@pytest.mark.slow
@pytest.mark.parametrize("system,library", [("lambdamart", "lightgbm"), ("xendcg", "xgboost"),
                                            ("catboost_yetirank", "catboost")])
def test_the_pruner_stops_configurations_on_the_validation_curve(parts, system, library, monkeypatch):
    """With a pruner that always prunes after the first configuration, every later one stops
    at its first round past the warm-up, in each library (CatBoost wraps the exception)."""
    train, valid = parts

    class Always(optuna.pruners.BasePruner):
        def prune(self, study, trial):
            return trial.number > 0 and max(trial.intermediate_values, default=-1) >= 1

    from ltrrepro import tuning
    orig = tuning._open_study

    def with_always(*args):
        study = orig(*args)
        study.pruner = Always()
        return study

    monkeypatch.setattr(tuning, "_open_study", with_always)
    res = tune(SYSTEMS[system], library, BOOST.replace(rounds=3, early_stopping=None), train, valid, budget=3,
               seed=_seed(), warmup=0)
    assert [t["state"] for t in res.trials] == ["COMPLETE", "PRUNED", "PRUNED"]
    assert [t["rounds"] for t in res.trials] == [3, 2, 2]
    assert res.n_pruned == 2 and res.params == res.trials[0]["params"]


@pytest.mark.slow
def test_a_plugin_objective_declares_its_own_parameter_and_it_is_tuned(parts, tmp_path, monkeypatch):
    """``search_space = {"temperature": LogUniform(0.1, 10)}`` on a plug-in: searched beside the
    library's space, and each configuration's objective is built with its temperature."""
    (tmp_path / "tunedlosses.py").write_text(textwrap.dedent('''
        import numpy as np
        from ltrrepro.objectives import Objective
        from ltrrepro.fit.space import LogUniform

        SEEN = []

        class SoftmaxXE(Objective):
            name = "softmax_xe"
            search_space = {"temperature": LogUniform(0.1, 10.0)}

            def __init__(self, temperature=1.0):
                self.temperature = float(temperature)
                SEEN.append(self.temperature)

            def grad_hess(self, scores, labels, offsets, iteration=0, rng=None):
                t = self.temperature
                s = np.asarray(scores, dtype=float) / t
                q = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
                e = np.exp(s - np.maximum.reduceat(s, offsets[:-1])[q])
                rho = e / np.add.reduceat(e, offsets[:-1])[q]
                gain = 2.0 ** np.asarray(labels, dtype=float) - 1.0
                phi = gain / np.maximum(np.add.reduceat(gain, offsets[:-1])[q], 1e-12)
                return (rho - phi) / t, np.maximum(rho * (1.0 - rho), 1e-6) / t**2
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    from ltrrepro.fit.plugins import load_plugin

    system = load_plugin("tunedlosses:SoftmaxXE(temperature=0.5)")
    assert system.options.space("lightgbm")["objective.temperature"] == LogUniform(0.1, 10.0)
    seen = sys.modules["tunedlosses"].SEEN
    seen.clear()
    res = tune(system, "lightgbm", BOOST, train := parts[0], parts[1], budget=3, seed=_seed(), prune=False)
    temps = [t["params"]["objective.temperature"] for t in res.trials]
    assert len(set(temps)) == 3 and all(0.1 <= v <= 10 for v in temps)
    assert set(TREE_SPACE) < set(res.params)
    assert all(any(abs(s - v) < 1e-12 for s in seen) for v in temps)       # each configuration's own objective
    assert 0.5 not in seen and train.n_docs > 0


@pytest.mark.slow
def test_a_search_where_every_configuration_fails_says_why(parts):
    from ltrrepro.tuning import TuningError
    train, valid = parts
    bad = train.subset(np.arange(train.n_queries))
    bad.y[:] = 99                                        # XGBoost's rank:ndcg refuses labels beyond 31
    with pytest.raises(TuningError, match="none of 2 configuration"):
        tune(SYSTEMS["xgb_rank_ndcg"], "xgboost", BOOST, bad, valid, budget=2, seed=_seed())


def test_an_interrupted_configuration_is_not_logged_as_failed_nor_counted(parts, tmp_path, monkeypatch):
    """Ctrl-C (or SIGTERM, which the harness turns into one) while a configuration trains: Optuna
    logged "Trial N failed" with a full traceback before the harness's one line (issue 48); now
    nothing of it is logged, the configuration is stored as FAILED, and on resume it does not
    count against the budget (measured: budget 3, one finished before the interrupt, two trained
    after it)."""
    import logging

    train, valid = parts
    store = tmp_path / "search.sqlite3"
    fit = RankingTrainer._fit
    calls, records = [], []

    def interrupted_at_second(self):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt("signal 15")
        return fit(self)

    handler = logging.Handler()
    handler.emit = records.append
    logging.getLogger("optuna").addHandler(handler)
    try:
        monkeypatch.setattr(RankingTrainer, "_fit", interrupted_at_second)
        with pytest.raises(KeyboardInterrupt):
            tune(SYSTEMS["lambdamart"], "lightgbm", BOOST, train, valid, budget=3, seed=_seed(), storage=store,
                 name="s", prune=False)
    finally:
        logging.getLogger("optuna").removeHandler(handler)
    assert not [r for r in records if "failed" in r.getMessage()], [r.getMessage() for r in records]
    study = optuna.load_study(study_name="s", storage=f"sqlite:///{store}")
    assert [t.state.name for t in study.trials] == ["COMPLETE", "FAIL"]
    trained = []
    monkeypatch.setattr(RankingTrainer, "_fit", lambda self: trained.append(1) or fit(self))
    res = tune(SYSTEMS["lambdamart"], "lightgbm", BOOST, train, valid, budget=3, seed=_seed(), storage=store,
               name="s", prune=False)
    assert len(trained) == 2 and len(res.trials) == 3          # the interrupted one is not counted


@pytest.mark.parametrize("damage", ["overwritten", "truncated"])
def test_a_damaged_storage_is_set_aside_and_the_search_starts_afresh(parts, tmp_path, damage):
    """A damaged ``OUT/tuning/*.sqlite3`` stopped the resume with a three-line SQLAlchemy message
    naming neither the file nor what to do (issue 48); now, like a damaged dataset cache, it is
    rebuilt: moved to ``<file>.damaged``, one log line naming it, the search run afresh."""
    train, valid = parts
    store = tmp_path / "search.sqlite3"
    if damage == "overwritten":
        store.write_bytes(b"not a database " * 200)
    else:
        tune(SYSTEMS["lambdamart"], "lightgbm", BOOST, train, valid, budget=1, seed=_seed(), storage=store, name="s",
             prune=False)
        store.write_bytes(store.read_bytes()[: store.stat().st_size // 3])
    lines = []
    res = tune(SYSTEMS["lambdamart"], "lightgbm", BOOST, train, valid, budget=2, seed=_seed(), storage=store, name="s",
               prune=False, log=lines.append)
    assert len(res.trials) == 2 and store.exists()
    assert (tmp_path / "search.sqlite3.damaged").exists()
    said = [line for line in lines if "damaged" in line]
    assert len(said) == 1 and str(store) in said[0] and "search.sqlite3.damaged" in said[0]
    again = tune(SYSTEMS["lambdamart"], "lightgbm", BOOST, train, valid, budget=2, seed=_seed(), storage=store,
                 name="s", prune=False, log=lines.append)
    assert _configs(again) == _configs(res) and len(said) == 1          # a sound storage is resumed, not set aside
