"""Every field of every study's configuration does something: changing it changes the run's
units, its data, a unit's record, or the report — a field that reaches nothing (as
``BruchConfig.noise_probs`` once did) fails here.

Each study gets a tiny base configuration; each field is changed alone, and the run's
fingerprint — unit keys, data facts, the records of its units (wall-clock timings left out)
— must differ. Units are run in this process on 30–60 synthetic queries with 1–3 rounds.
"""
from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from experiments import registry
from experiments.bruch2021.protocol_jensen_gap import JensenConfig
from experiments.bruch2021.protocol import BruchConfig
from experiments.errors import UsageError
from experiments.hu2019.protocol import DebiasingConfig
from experiments.kang2024.protocol import HessianConfig
from experiments.lyzhin2023.protocol import TricksConfig
from experiments.study import prepare_data
from experiments.xia.protocol import XiaConfig
from experiments.zheng2007.protocol import ZhengConfig
from ltrrepro.runner import UnitContext

MQ2008 = Path(__file__).resolve().parents[1] / "data" / "mq2008"

#: fields whose effect is shown by another test (named), not by a run's records
ELSEWHERE = {
    "device": "tests/lib/test_fit.py::test_the_device_reaches_the_library_parameters",
    "baseline": "tests/lib/test_fit_plugins.py (the plug-in claims name their baseline)",
    "looks": "tests/experiments/test_sequential_run.py (the looks decide which trials run and what the claims say)",
}


def _strip(value):
    """A record without wall-clock fields."""
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items()
                if k not in ("timings", "setup_s", "train_s", "boost_s", "tree_s", "log")}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def fingerprint(cfg, tmp: Path, max_units: int = 8):
    exp = registry.get(cfg.experiment)
    units = exp.units(cfg)
    info = prepare_data(cfg, tmp) if exp.reads_data(cfg) else None
    ctx = UnitContext(cfg=cfg, data=info.ref if info else None, threads=1)
    records = [_strip(exp.unit_fn(u, ctx)[0]) for u in units[:max_units]]
    return [u.key for u in units], (info.facts if info else None), records


#: RunConfig's fields whose path is the same for every study: shown once, on Bruch's
RUN_FIELDS_SHOWN_ONCE = {"experiment", "data_dir"}


def _check(base, changes: dict, tmp_path: Path, refused=(), elsewhere=()):
    """Each field of ``changes`` changed alone changes the fingerprint; each of ``refused``
    (fields the study does not use) is refused when set; every field is one or the other
    (or shown by the caller: ``elsewhere``)."""
    names = {f.name for f in dataclasses.fields(base)}
    untested = names - set(changes) - set(refused) - set(ELSEWHERE) - RUN_FIELDS_SHOWN_ONCE - set(elsewhere)
    assert not untested, f"{type(base).__name__}: no test of field(s) {sorted(untested)}"
    for name, value in dict(refused).items():
        with pytest.raises(UsageError):
            dataclasses.replace(base, **{name: value})
    ref = fingerprint(base, tmp_path / "base")
    same = [name for name, value in changes.items()
            if fingerprint(dataclasses.replace(base, **{name: value}), tmp_path / name) == ref]
    assert same == [], f"{type(base).__name__}: changing {same} changes no unit, data or record"


def _bruch_fields(tmp_path):
    base = BruchConfig(experiment="robustness", queries=40, trials=1, preset="tiny", rounds=3, models=("xendcg",),
                       noise=("labels",), levels=(50,))
    changes = {"dataset": "synthetic-yahoo", "queries": 45, "trials": 2, "seed": 1,
               "library": "xgboost", "preset": "fast", "rounds": 2,
               "models": ("xendcg", "lambdamart"), "noise": ("documents",), "levels": (20,),
               "noise_probs": (0.1, 0.1, 0.1, 0.2, 0.5)}
    clicks = {"impressions": 3, "click_model": "pbm", "click_probs": (0.05, 0.9, 0.9, 0.9, 0.95)}
    covered = set(changes) | set(clicks) | {"experiment", "eta", "plugins", "data_dir", "early_stopping"} | set(ELSEWHERE)
    covered |= {"tune", "tune_on"}      # tests/experiments/bruch2021/test_tuned_claims.py: the units and searches they make
    assert {f.name for f in dataclasses.fields(base)} == covered
    ref = fingerprint(base, tmp_path / "base")
    same = [k for k, v in changes.items() if fingerprint(dataclasses.replace(base, **{k: v}), tmp_path / k) == ref]
    # another study: quality adds no noise, so it takes no levels
    if fingerprint(dataclasses.replace(base, experiment="quality", levels=()), tmp_path / "quality") == ref:
        same.append("experiment")
    # early stopping, on a run long enough to stop early (40 rounds, the preset's patience 5)
    full = dataclasses.replace(base, rounds=40)
    if fingerprint(dataclasses.replace(full, early_stopping=False), tmp_path / "es") == fingerprint(full, tmp_path / "f"):
        same.append("early_stopping")
    # the click settings, on a clicks run
    cbase = dataclasses.replace(base, experiment="clicks", noise=("clicks",), levels=(0.2,))
    cref = fingerprint(cbase, tmp_path / "cbase")
    same += [k for k, v in clicks.items() if fingerprint(dataclasses.replace(cbase, **{k: v}), tmp_path / k) == cref]
    pbm = dataclasses.replace(cbase, click_model="pbm")
    if fingerprint(dataclasses.replace(pbm, eta=2.0), tmp_path / "eta") == fingerprint(pbm, tmp_path / "pbm"):
        same.append("eta")
    # a plug-in: another model, other units
    key, spec = "tests.plugins.plugin_losses.Squared", "tests.plugins.plugin_losses:Squared"
    plug = dataclasses.replace(base, models=("xendcg", key), plugins=((key, spec),), baseline="xendcg")
    if fingerprint(plug, tmp_path / "plug")[0] == ref[0]:
        same.append("plugins")
    with pytest.raises(UsageError, match="no model uses it"):          # a plug-in no model names is refused
        dataclasses.replace(base, plugins=((key, spec),))
    # the user's files: another directory, other data
    a, b = tmp_path / "a", tmp_path / "b"
    for d, src in ((a, "test"), (b, "vali")):
        d.mkdir()
        shutil.copy(MQ2008 / f"{src}.txt", d / "data.txt")
    user = dataclasses.replace(base, dataset="svmlight", data_dir=str(a), queries=None)
    if fingerprint(dataclasses.replace(user, data_dir=str(b)), tmp_path / "b_") == fingerprint(user, tmp_path / "a_"):
        same.append("data_dir")
    assert same == [], f"BruchConfig: changing {same} changes no unit, data or record"


def _zheng_fields(tmp_path):
    base = ZhengConfig(experiment="qbrank", queries=80, trials=1, rounds=2, every=1, models=("qbrank",),
                       grid=((0.1, 4),), leaves=4)
    _check(base, {"dataset": "synthetic-web30k", "queries": 90, "trials": 2, "seed": 1, "library": "xgboost",
                  "models": ("qbrank", "gbt"), "rounds": 3, "every": 2, "w": 0.9, "eta": 0.3, "leaves": 3,
                  "shared_params": "tuned", "tied_pairs": "contradicting"}, tmp_path,
           elsewhere={"grid", "c_grid", "max_pairs", "plugins", "tune", "tune_on"})  # plugins: test_plugin_arms.py; tune, tune_on: e2e/test_tuned_zheng_xia.py
    # the tuning grid, on a tuned GBT run; RankSVM's settings, on a RankSVM run (136 features, a few hundred pairs)
    gbt = dataclasses.replace(base, models=("gbt",), shared_params="tuned")
    same = ["grid"] if fingerprint(dataclasses.replace(gbt, grid=((0.3, 3),)), tmp_path / "g") == \
        fingerprint(gbt, tmp_path / "gbt") else []
    svm = dataclasses.replace(base, dataset="synthetic-web30k", queries=40, models=("ranksvm",), c_grid=(0.1,),
                              max_pairs=300)
    ref = fingerprint(svm, tmp_path / "svm")
    same += [k for k, v in {"c_grid": (100.0,), "max_pairs": 100}.items()
             if fingerprint(dataclasses.replace(svm, **{k: v}), tmp_path / k) == ref]
    assert same == [], f"ZhengConfig: changing {same} changes no unit, data or record"


def _xia_fields(tmp_path):
    base = XiaConfig(experiment="split_principles", queries=40, trials=1, models=("lambdamart-se",),
                     rounds=(("mcrank", 2), ("lambdamart", 2)), every=1, leaves=(4,), rates=(0.1,))
    _check(base, {"dataset": "synthetic-yahoo", "queries": 45, "trials": 2, "seed": 1,
                  "models": ("lambdamart-ole",), "rounds": (("mcrank", 2), ("lambdamart", 3)), "every": 2,
                  "leaves": (3,), "rates": (0.2,), "max_bin": 7, "min_data_in_leaf": 5, "growth": "best-first",
                  "leaf_rule": "exact"}, tmp_path,
           elsewhere={"plugins", "split_rule", "leaf_arm", "tune", "tune_on"})
    # plugins: test_plugin_arms.py; leaf_arm: xia/test_loss_decomposition.py; tune, tune_on: e2e/test_tuned_zheng_xia.py
    # the split rule, on an exact-OLE run whose deep trees meet a negative gain (leaves per tree differ)
    ole = dataclasses.replace(base, models=("lambdamart-ole",), leaves=(64,), min_data_in_leaf=1)
    assert fingerprint(dataclasses.replace(ole, split_rule="positive-gain"), tmp_path / "pg") != \
        fingerprint(ole, tmp_path / "ole"), "XiaConfig: changing split_rule changes no unit, data or record"


def _jensen_fields(tmp_path):
    base = JensenConfig(experiment="jensen_gap", trials=1, draws=5, docs=4)
    _check(base, {"trials": 2, "seed": 1, "draws": 6, "docs": 5, "probs": (0.2, 0.2, 0.2, 0.2, 0.2)}, tmp_path,
           refused={"dataset": "synthetic-web30k", "queries": 40, "data_dir": "/tmp"})


def _debiasing_fields(tmp_path):
    base = DebiasingConfig(experiment="debiasing", queries=30, trials=1, rounds=2, logger_rounds=2,
                           models=("ulm_lgb",), sweep_models=("naive",), sessions=5, sweep_sessions=(8,),
                           sweep_eta=(2.0,), sweep_share=(0.5,), sweep_click=("cascade",))
    _check(base, {"dataset": "synthetic-yahoo", "queries": 32, "trials": 2, "seed": 1, "library": "xgboost",
                  "preset": "tiny", "rounds": 3, "models": ("ulm_lgb", "xgb_unbiased"), "sweep_models": ("skyline",),
                  "k": 5, "sessions": 6, "eta": 0.5, "share": 0.2, "click_model": "cascade", "curve": "inverse",
                  "no_click": "drop", "logger": "lambdamart", "ulm": "equations",
                  "eps_plus": 0.9, "eps_minus": 0.2, "bias_p": 1.0, "logger_rounds": 3, "sweep_sessions": (9,),
                  "sweep_eta": (1.5,), "sweep_share": (0.6,), "sweep_click": ()}, tmp_path,
           elsewhere={"plugins"})       # plugins: tests/experiments/hu2019/test_debiasing_protocol.py


def _hessian_fields(tmp_path):
    base = HessianConfig(experiment="hessian", queries=30, trials=1, preset="tiny", rounds=2,
                         models=("plrank_sampled", "plrank_constant"), lr_grid=(0.1,), sweep_samples=(10,),
                         paper_rounds=2)
    _check(base, {"dataset": "synthetic-web30k", "queries": 32, "trials": 2, "seed": 1, "library": "xgboost",
                  "preset": "fast", "rounds": 3, "models": ("plrank_sampled",), "hessian_policy": "clip", "samples": 20,
                  "cutoff": 5, "lr_grid": (0.01,), "sweep_samples": (20,), "paper_rounds": 3}, tmp_path,
           refused={"split": "official"},       # synthetic data has no official parts (test_hessian_run: Yahoo's)
           elsewhere={"metric", "margin", "tune", "tune_on"})
    # metric, margin: tests/experiments/kang2024/test_hessian_report.py (they reach the report); tune, tune_on: the
    # study's Search, experiments/tuning.py's tests


def _tricks_fields(tmp_path):
    base = TricksConfig(experiment="tricks", queries=30, trials=1, preset="tiny", rounds=2,
                        families=("xgb_rank_ndcg",), targets=("ndcg",), ablations=())
    _check(base, {"dataset": "synthetic-yahoo", "queries": 32, "trials": 2, "seed": 1, "library": "xgboost",
                  "preset": "fast", "rounds": 3, "families": ("lgb_lambdarank",), "targets": ("mrr",),
                  "ablations": ("noise-No",), "grow_policy": "Lossguide", "hp": "preset"}, tmp_path,
           elsewhere={"tune", "tune_on", "split"})
    # tune, tune_on: the study's Search (tests/experiments/lyzhin2023: its tuned run, its unpruned searches)
    # split: synthetic data has no official parts (refused); on a registered layout, Fold 1's parts against random ones
    with pytest.raises(UsageError, match="--split official"):
        dataclasses.replace(base, split="official")
    from ltrrepro.svmlight import write_svmlight
    from ltrrepro.synthetic import make_synthetic
    ds = make_synthetic("web30k", n_queries=40, seed=0)
    for part, span in (("train", range(0, 24)), ("vali", range(24, 32)), ("test", range(32, 40))):
        write_svmlight(ds.subset(span), tmp_path / "web30k" / "Fold1" / f"{part}.txt")
    real = dataclasses.replace(base, dataset="web30k", data_dir=str(tmp_path / "web30k"), queries=None)
    assert fingerprint(dataclasses.replace(real, split="official"), tmp_path / "official") != \
        fingerprint(real, tmp_path / "random"), "TricksConfig: changing split changes no unit, data or record"


#: each configuration class's field check (a study whose class has none fails below)
FIELD_CHECKS = {BruchConfig: _bruch_fields, ZhengConfig: _zheng_fields, XiaConfig: _xia_fields,
                JensenConfig: _jensen_fields, DebiasingConfig: _debiasing_fields, HessianConfig: _hessian_fields,
                TricksConfig: _tricks_fields}


@pytest.mark.slow
@pytest.mark.parametrize("config_cls", sorted({e.config_cls for e in registry.experiments().values()},
                                              key=lambda c: c.__name__), ids=lambda c: c.__name__)
def test_every_field_of_every_studys_configuration_reaches_the_run(config_cls, tmp_path):
    assert config_cls in FIELD_CHECKS, f"{config_cls.__name__}: a registered study's configuration with no field check"
    FIELD_CHECKS[config_cls](tmp_path)

