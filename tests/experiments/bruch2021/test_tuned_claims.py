"""Bruch's studies under --tune: the units and searches a tuned run makes, its configuration
fields, the protocol notes, Table 1's two claim families (the tuned one corrected within
itself, with "XE_NDCG MART > tuned λMART"), and a search that never reads the test part."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from experiments.bruch2021.claims import TUNED_FAMILY
from experiments.bruch2021.protocol import TEST_METRICS, BruchConfig
from experiments.bruch2021 import report_table1 as table1
from experiments.bruch2021.claims import TABLE1_FAMILY, XE_OTHERS_FAMILY
from experiments.errors import UsageError
from experiments.registry import get
from experiments.tuning import search_fn, search_units, tuned_for
from ltrrepro.tuning import TUNED
from ltrrepro.runner import Unit, UnitContext, materialize
from ltrrepro.inference import Inference
from ltrrepro.inference.tests import holm


def _cfg(**kw):
    base = dict(experiment="quality", dataset="synthetic-web30k", queries=30, trials=3, preset="tiny",
                models=("listnet", "lambdamart", "xendcg"), tune=3)
    return BruchConfig(**{**base, **kw})


def _units(cfg):
    from experiments.registry import get
    return get(cfg.experiment).units(cfg)


def test_a_tuned_quality_run_has_units_at_both_settings_and_one_search_per_system():
    cfg = _cfg()
    units = _units(cfg)
    assert len(units) == 2 * 3 * 3 and sum(TUNED in u.setting for u in units) == 9
    search = search_units(cfg, units)
    assert [(u.trial, u.model) for u in search] == [(0, "listnet"), (0, "lambdamart"), (0, "xendcg")]
    assert search[0].key == "synthetic-web30k/t000/tune=3,on=first-split,noise=none/listnet"
    per = search_units(_cfg(tune_on="per-trial"), _units(_cfg(tune_on="per-trial")))
    assert sorted({u.trial for u in per}) == [0, 1, 2] and len(per) == 9
    tuned = {"xendcg@0": "frozen", "xendcg@2": "own"}
    at2 = next(u for u in units if u.trial == 2 and u.model == "xendcg" and TUNED in u.setting)
    assert tuned_for(at2, UnitContext(tuned=tuned, cfg=cfg)) == "frozen"
    assert tuned_for(at2, UnitContext(tuned=tuned, cfg=_cfg(tune_on="per-trial"))) == "own"
    assert tuned_for(Unit("quality", "d", 2, "xendcg", (("noise", "none"),)), UnitContext(tuned=tuned, cfg=cfg)) is None


def test_other_studies_train_only_at_tuned_settings_and_an_untuned_run_is_unchanged():
    cfg = _cfg(experiment="robustness", noise=("labels",), levels=(0, 50), models=("lambdamart", "xendcg"))
    units = _units(cfg)
    assert units and all(TUNED in u.setting for u in units)
    assert {u.setting for u in search_units(cfg, units)} == {(("tune", 3), ("on", "first-split"), ("noise", "none"),
                                                              ("level", 0))}
    plain = _cfg(tune=0)
    assert not any(TUNED in u.setting for u in _units(plain))
    assert "tune" not in plain.to_dict() and "tune_on" not in plain.to_dict()      # old runs keep their hash
    assert _cfg().to_dict()["tune"] == 3


def test_tuning_fields_are_checked():
    with pytest.raises(UsageError, match="tune-on"):
        _cfg(tune_on="everywhere")
    with pytest.raises(UsageError, match=r"tune \(--tune\) must be between 0 and 1,000, got -1"):
        _cfg(tune=-1)


def test_the_notes_say_tuning_deviates_and_what_first_split_has_seen():
    notes = _cfg().protocol_notes()
    assert any("not the paper's fixed settings (Table 1 is reported at both)" in d for d in notes["deviations"])
    assert any("seen queries that later trials test on" in d for d in notes["deviations"])
    assert any("same budget of 3 configurations" in c for c in notes["choices"])
    assert any("never read" in a for a in notes["as_paper"])
    per = _cfg(tune_on="per-trial").protocol_notes()
    assert not any("seen queries" in d for d in per["deviations"])
    assert not any("tuned" in d for d in _cfg(tune=0).protocol_notes()["deviations"])
    robust = _cfg(experiment="robustness", noise=("labels",), levels=(0, 50)).protocol_notes()["deviations"]
    assert any(d.endswith("not the paper's fixed settings") for d in robust)       # no Table 1 in Figure 3


def _frame(rng, trials=6):
    """Per trial: the paper's three models at fixed settings and tuned; λMART gains most from tuning."""
    rows = []
    level = {"listnet": 0.40, "lambdamart": 0.44, "xendcg": 0.45}
    lift = {"listnet": 0.01, "lambdamart": 0.03, "xendcg": 0.005}
    for t in range(trials):
        noise = rng.normal(0, 0.004)
        for hp in (None, "tuned"):
            for m, v in level.items():
                value = v + noise + (lift[m] if hp else 0) + rng.normal(0, 0.002)
                row = {"trial": t, "model": m, "noise": "none", "best_iteration": 10.0, "train_s": 1.0,
                       **{k: value for k in TEST_METRICS}}
                if hp:
                    row["hp"] = hp
                    row["tuned"] = {"params": {"learning_rate": 0.05, "num_leaves": 40}, "value": 0.5, "budget": 3,
                                    "n_pruned": 1, "n_failed": 0, "trial": 0, "space": {"learning_rate": "lu"},
                                    "tune_on": "first-split"}
                rows.append(row)
    return pd.DataFrame(rows)


def test_table1_is_checked_at_the_papers_and_at_tuned_settings(rng):
    cfg = _cfg(trials=6)
    rep = get("quality").build(_frame(rng), cfg, inference=Inference())
    fam = pd.Series([c.family for c in rep.claims])
    assert (fam == TABLE1_FAMILY).sum() == 6 and (fam == TUNED_FAMILY).sum() == 8
    texts = [c.text for c in rep.claims]
    assert "XE_NDCG MART (tuned) > λMART (tuned) on NDCG@5" in texts
    assert "XE_NDCG MART > λMART (tuned) on NDCG@10" in texts
    tuned = [c for c in rep.claims if c.family == TUNED_FAMILY]
    raw = [c.p_raw for c in tuned]
    assert [c.p for c in tuned] == pytest.approx(list(holm(np.array(raw))))           # corrected within its family
    cross = next(c for c in tuned if c.text == "XE_NDCG MART > λMART (tuned) on NDCG@5")
    assert cross.value < 0                                 # tuned λMART gained more than XE_NDCG's lead
    names = {t.name for t in rep.tables}
    assert {"table1", "table1_tuned", "table1_tuned_tests", "timings_tuned", "tuning"} <= names
    tuning = rep.table("tuning").frame
    assert list(tuning.model) == ["ListNet", "λMART", "XE_NDCG MART"] and set(tuning.pruned) == {1}
    assert tuning.learning_rate.tolist() == [0.05] * 3
    assert "Tuned hyperparameters" in rep.text


def test_the_paper_family_is_the_same_with_or_without_the_tuned_units(rng):
    df = _frame(rng)
    cfg = _cfg(trials=6)
    alone = table1.build(df[df.get("hp").isna()].drop(columns=["hp", "tuned"]), _cfg(trials=6, tune=0),
                         inference=Inference())
    both = get("quality").build(df, cfg, inference=Inference())
    paper = [(c.text, c.p) for c in both.claims if c.family == TABLE1_FAMILY]
    assert paper == [(c.text, c.p) for c in alone.claims]


def _ctx(ds, out, cfg):
    ref = materialize(ds, cache_dir=out / "cache")
    (out / "tuning").mkdir(parents=True, exist_ok=True)
    return UnitContext(cfg=cfg, data={"path": ref.path, "name": ref.name}, threads=1,
                       tuning_dir=str(out / "tuning"), tuning_study="h")


@pytest.mark.slow
def test_a_search_never_reads_the_test_part(tmp_path):
    """The test part of the tuning split with its labels replaced by noise: the search's
    configurations, values and best parameters are the same."""
    from ltrrepro.datasets import load_dataset
    from ltrrepro.splits import trial_split

    cfg = _cfg(rounds=3, models=("lambdamart",), tune=2)
    ds = load_dataset("synthetic-web30k", n_queries=30, seed=0)
    unit = search_units(cfg, _units(cfg))[0]
    clean, _ = search_fn(unit, _ctx(ds, tmp_path / "clean", cfg))
    split = trial_split(ds.n_queries, unit.seed, unit.trial)
    poisoned = ds.subset(np.arange(ds.n_queries))
    docs = np.concatenate([np.arange(poisoned.offsets[q], poisoned.offsets[q + 1]) for q in split.test])
    poisoned.y[docs] = np.random.default_rng(1).integers(0, 5, docs.size)
    assert not np.array_equal(poisoned.y, ds.y)
    dirty, _ = search_fn(unit, _ctx(poisoned, tmp_path / "dirty", cfg))
    assert dirty["tuned"]["params"] == clean["tuned"]["params"]
    assert dirty["tuned"]["trials"] == clean["tuned"]["trials"] and dirty["tuned"]["value"] == clean["tuned"]["value"]


def test_other_ranking_systems_are_claimed_against_tuned_too(rng):
    """The cross-library row: with CatBoost YetiRank among the models, "XE_NDCG MART >
    CatBoost YetiRank" is checked at both settings, the tuned one in its family's tuned twin."""
    df = _frame(rng)
    extra = df[df.model == "lambdamart"].assign(model="catboost_yetirank")
    cfg = _cfg(trials=6, models=("listnet", "lambdamart", "xendcg", "catboost_yetirank"))
    rep = get("quality").build(pd.concat([df, extra], ignore_index=True), cfg, inference=Inference())
    texts = {c.text: c.family for c in rep.claims}
    assert texts["XE_NDCG MART > CatBoost YetiRank on NDCG@5"] == XE_OTHERS_FAMILY
    assert texts["XE_NDCG MART (tuned) > CatBoost YetiRank (tuned) on NDCG@5"] == f"{XE_OTHERS_FAMILY} (tuned)"
    assert list(rep.table("tuning").frame.model) == ["ListNet", "λMART", "XE_NDCG MART", "CatBoost YetiRank"]
