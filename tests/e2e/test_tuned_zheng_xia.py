"""--tune on the qbrank and split_principles wings end to end (slow): a tiny tuned run writes
the tuned values (table, manifest) and says so in its deviations; a run again resumes with
nothing recomputed; a search's values do not change when the test labels are poisoned."""
from __future__ import annotations

import json

import numpy as np
import pytest

import experiments
from experiments.registry import get
from experiments.tuning import search_fn, search_units
from ltrrepro.datasets import load_dataset
from ltrrepro.runner import UnitContext, materialize

pytestmark = pytest.mark.slow

RUNS = {"qbrank": dict(queries=120, trials=2, rounds=3, models=("gbt", "qbrank")),
        "split_principles": dict(queries=60, trials=2, rounds=(("mcrank", 3), ("lambdamart", 3)),
                                 models=("lambdamart-se", "lambdamart-ole"))}


@pytest.mark.parametrize("study", list(RUNS))
def test_a_tiny_tuned_run_reports_its_tuned_values_and_resumes(study, tmp_path):
    out = tmp_path / study
    res = experiments.run(study, out=str(out), tune=2, jobs=1, threads=1, **RUNS[study])
    assert res.exit_code == 0
    man = json.loads((out / "manifest.json").read_text())
    models = RUNS[study]["models"]
    assert sorted(man["tuning"]) == sorted(f"{m}@0" for m in models)
    for rec in man["tuning"].values():
        assert rec["budget"] == 2 and {"learning_rate", "num_leaves", "min_data_in_leaf"} <= set(rec["params"])
    assert any("tuned (--tune 2" in d for d in man["config"]["deviations"])
    table = (out / "tables" / "tuning.md").read_text()
    assert "Tuned hyperparameters" in table and "learning_rate" in table
    assert len(list((out / "tuning").glob("*.sqlite3"))) == len(models)
    again = experiments.run(study, out=str(out), tune=2, jobs=1, threads=1, **RUNS[study])
    assert again.exit_code == 0
    assert (out / "tables" / "tuning.md").read_text() == table


def _ctx(ds, out, cfg):
    ref = materialize(ds, cache_dir=out / "cache")
    (out / "tuning").mkdir(parents=True, exist_ok=True)
    return UnitContext(cfg=cfg, data={"path": ref.path, "name": ref.name}, threads=1,
                       tuning_dir=str(out / "tuning"), tuning_study="h")


def _test_docs(study, ds, unit):
    """The documents of the search's trial's test part: Zheng's L3, Xia's split's test part."""
    if study == "qbrank":
        from experiments.zheng2007.protocol import zheng_split
        test = zheng_split(ds, unit.seed, unit.trial)["L3"]
    else:
        from ltrrepro.splits import trial_split
        test = trial_split(ds.n_queries, unit.seed, unit.trial).test
    return np.concatenate([np.arange(ds.offsets[q], ds.offsets[q + 1]) for q in test])


@pytest.mark.parametrize("study,profile", [("qbrank", "synthetic-yahoo"), ("split_principles", "synthetic-web30k")])
def test_a_search_never_reads_the_test_part(study, profile, tmp_path):
    cfg = experiments.configure(study, tune=2, **{**RUNS[study], "models": RUNS[study]["models"][:1]})
    ds = load_dataset(profile, n_queries=RUNS[study]["queries"], seed=0)
    unit = search_units(cfg, get(study).units(cfg))[0]
    clean, _ = search_fn(unit, _ctx(ds, tmp_path / "clean", cfg))
    poisoned = ds.subset(np.arange(ds.n_queries))
    docs = _test_docs(study, ds, unit)
    poisoned.y[docs] = np.random.default_rng(1).integers(0, 5, docs.size)
    assert not np.array_equal(poisoned.y, ds.y)
    dirty, _ = search_fn(unit, _ctx(poisoned, tmp_path / "dirty", cfg))
    assert dirty["tuned"]["params"] == clean["tuned"]["params"]
    assert dirty["tuned"]["trials"] == clean["tuned"]["trials"] and dirty["tuned"]["value"] == clean["tuned"]["value"]
