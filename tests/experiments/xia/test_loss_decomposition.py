"""Xia's loss claim decomposed (issue 38, item 4): the leaf arm (LambdaMART OLE under the other
leaf rule) gives the split-principle effect under one common Eq. 8 rule, the leaf-rule effect
(OLE splits, exact against Eq. 8 leaves) and own = their sum, per unit and per query."""
import dataclasses
import json

import numpy as np
import pandas as pd
import pytest

import experiments
from experiments import split_principles as sp
from experiments.xia import claims_leaf as cl
from experiments.xia import protocol as xp
from experiments.xia import report as xr
from ltrrepro.data import RankingDataset
from ltrrepro.fit import Boosting
from ltrrepro.inference import Inference
from ltrrepro.store import ResultStore


def _cfg(**kw):
    base = dict(queries=40, trials=2, models=("lambdamart-se", "lambdamart-ole"), rounds=(("mcrank", 2), ("lambdamart", 2)),
                every=1, leaves=(4,), rates=(0.1,))
    return experiments.configure("split_principles", **{**base, **kw})


def test_the_leaf_arm_is_ole_under_the_other_rule_and_only_where_it_decomposes_own():
    units = xp.build_units(_cfg())
    leaf = [u for u in units if "leaf_rule" in u.settings]
    assert len(units) == 2 * 2 + 2 and {u.model for u in leaf} == {"lambdamart-ole"}
    assert {xp.leaf_rule_of(u, _cfg()) for u in leaf} == {"exact"}                   # beside diagonal: exact
    assert {xp.leaf_rule_of(u, _cfg(leaf_rule="own")) for u in xp.build_units(_cfg(leaf_rule="own"))
            if "leaf_rule" in u.settings} == {"diagonal"}                               # beside own: Eq. 8
    for cfg in (_cfg(leaf_rule="exact"), _cfg(leaf_arm=False), _cfg(models=("lambdamart-ole",))):
        assert cfg.partner_rule is None and not any("leaf_rule" in u.settings for u in xp.build_units(cfg))
    u = leaf[0]                                   # the same model seed as its OLE partner: only the leaf rule differs
    partner = next(v for v in units if v.model == u.model and v.trial == u.trial and "leaf_rule" not in v.settings)
    assert xp.model_seed(u).spawn_key == partner.model_seed().spawn_key


def test_the_leaf_arms_leaves_by_hand():
    """One query, x = (0, 0, 1), labels (1, 0, 0), zero scores, 2 leaves: the only split is
    {d0, d1} | {d2}. LambdaMART's pairs (d0, d1) and (d0, d2) have |ΔNDCG| 1 − 1/log2 3 and
    1 − 1/log2 4 = ½, gradient −½|ΔNDCG| on d0 (+ on the other), Hessian ¼|ΔNDCG| each. Leaf
    {d0, d1}: G = −¼; Eq. 8's L″ = Σh = ¼(2·0.36907 + ½) = 0.30954, leaf 0.80766; the exact L″
    removes the inner pair (d0, d1) twice: 0.30954 − 2·¼·0.36907 = ⅛, leaf −G/L″ = 2. Leaf {d2}:
    −¼/⅛ = −2 under both rules. The leaf arm (beside the default diagonal run) gets the exact
    leaves; its OLE partner Eq. 8's."""
    ds = RankingDataset(np.array([[0.0], [0.0], [1.0]]), np.array([1, 0, 0]), np.zeros(3, dtype=np.int64))
    cfg = _cfg(leaves=(2,), min_data_in_leaf=1, rounds=(("mcrank", 1), ("lambdamart", 1)))
    lr = 0.1
    w01 = 1 - 1 / np.log2(3)
    diag = 0.25 / (0.25 * (2 * w01 + 0.5))
    got = {}
    for u in xp.build_units(cfg):
        if u.model == "lambdamart-ole" and u.trial == 0:
            b = Boosting(learning_rate=lr, num_leaves=2, min_data_in_leaf=1, max_bin=255, rounds=1)
            t = cfg.system(u.model).trainer(b, seed=xp.model_seed(u), leaf_rule=xp.leaf_rule_of(u, cfg))
            t.add_train(ds)
            got[u.settings.get("leaf_rule", "run")] = t.fit().raw(ds.X, 0, 1)
    np.testing.assert_allclose(got["exact"], lr * np.array([2.0, 2.0, -2.0]), rtol=2e-3)
    np.testing.assert_allclose(got["run"], lr * np.array([diag, diag, -2.0]), rtol=2e-3)
    assert diag == pytest.approx(0.80766, abs=1e-4)


def _frame(folds=4, seed=0):
    """SE₈, OLE₈ and the leaf arm OLEₓ per fold and configuration, with made-up losses."""
    rng = np.random.default_rng(seed)
    rows = []
    for fold in range(folds):
        for leaves, lr in ((10, 0.06), (20, 0.1)):
            base = {m: 0.45 + 0.01 * rng.random() for m in xp.METRICS}
            for pr, rule, loss in (("se", np.nan, 100.0), ("ole", np.nan, 99.6 + rng.normal(0, 0.05)),
                                   ("ole", "exact", 98.0 + rng.normal(0, 0.05))):
                means = {m: v + 0.01 * rng.random() for m, v in base.items()}
                rows.append({"fold": fold, "system": "lambdamart", "principle": pr, "leaves": leaves, "lr": lr,
                             "leaf_rule": rule, "loss": loss, "train_s": 1.0, **means, "curve_points": [2],
                             "curves": {m: [v] for m, v in means.items()}})
    return pd.DataFrame(rows)


def test_own_is_split_plus_leaf_per_unit_per_fold_and_in_the_claims():
    main, leaf = cl.split_leaf_arm(_frame())
    assert "leaf_rule" not in main and len(leaf) == 8 and (leaf.principle == "ole").all()
    dec = cl.decomposition(main, leaf, "diagonal")
    assert len(dec) == 8
    for pre, suf in (("", " (%)"), ("test ", " (×100)")):
        np.testing.assert_allclose(dec[f"{pre}own{suf}"], dec[f"{pre}split{suf}"] + dec[f"{pre}leaf{suf}"],
                                   rtol=0, atol=1e-12)
    se, ole = (main[(main.principle == p)].set_index(cl.KEY).loss for p in ("se", "ole"))
    np.testing.assert_allclose(dec["split (%)"], 100 * (ole / se - 1).loc[dec.index])   # the loss claim's own ratio
    got = cl.decomposition_claims(dec, 4, inference=Inference())
    split, leaf_c, own = got
    assert own.value == pytest.approx(split.value + leaf_c.value, abs=1e-12)
    assert split.verdict == "supported" and split.family is None            # −0.4%: within the paper's 0.32–1%
    assert leaf_c.family == own.family and leaf_c.correction == "holm" and leaf_c.verdict == "supported"
    assert own.verdict == "lower, by more than the paper's 0.32–1%"          # −2%: beyond it, at the adjusted p
    assert "95% CI" in split.detail and "OLE₈ − SE₈" in split.detail and "OLEₓ − OLE₈" in leaf_c.detail
    # beside an own run the leaf arm is OLE₈ and the main OLE arm OLEₓ: the same three readings
    swapped = _frame()
    ole8 = (swapped.principle == "ole") & swapped.leaf_rule.isna()
    swapped.loc[ole8, "leaf_rule"], swapped.loc[~ole8 & (swapped.principle == "ole"), "leaf_rule"] = "diagonal", np.nan
    pd.testing.assert_frame_equal(cl.decomposition(*cl.split_leaf_arm(swapped), "own"), dec)
    assert cl.decomposition(main, leaf.iloc[0:0], "diagonal").empty
    assert cl.decomposition(main, leaf, "exact").empty


def test_the_report_decomposes_and_a_run_without_the_arm_keeps_the_old_claim():
    df = _frame()
    cfg = dataclasses.replace(_cfg(), trials=4)
    rep = xr.build(df, cfg, inference=Inference())
    names = [t.name for t in rep.tables]
    assert "loss_decomposition" in names
    loss = [c for c in rep.claims if "loss" in c.text]
    assert len(loss) == 3 and loss[0].text.endswith("(paper)")
    rep = xr.build(df[df.leaf_rule.isna()], dataclasses.replace(cfg, leaf_arm=False), inference=Inference())
    assert "loss_decomposition" not in [t.name for t in rep.tables]
    assert len([c for c in rep.claims if "loss" in c.text]) == 1


@pytest.mark.slow
def test_a_run_decomposes_per_query_and_its_leaf_arm_is_the_own_runs_ole_arm(tmp_path):
    """A diagonal run and an own run of the same configuration: the diagonal run's leaf arm is
    the own run's OLE arm (same loss, same per-query test metrics), and the own run's leaf arm
    the diagonal run's OLE arm; per query, own = split + leaf on every metric."""
    argv = ["--queries", "40", "--trials", "2", "--rounds", "3", "--every", "3", "--leaves", "6", "--rates", "0.1",
            "--models", "lambdamart-se,lambdamart-ole", "--quiet", "--jobs", "1", "--threads", "1"]
    recs, arrays = {}, {}
    for rule in ("diagonal", "own"):
        out = tmp_path / rule
        assert sp.main([*argv, "--leaf-rule", rule, "--out", str(out)]) == 0
        store = ResultStore(out)
        for r in store.records(current_only=False):
            u = r["unit"]
            k = (rule, u["trial"], u["model"], u["setting"].get("leaf_rule", "run"))
            recs[k], arrays[k] = r, store.arrays(r["key"])
    for t in (0, 1):
        arm = lambda rule, lr="run": recs[(rule, t, "lambdamart-ole", lr)]["fit"]["train_loss"]  # noqa: E731
        assert arm("diagonal", "exact") == arm("own") and arm("own", "diagonal") == arm("diagonal")
        se8, ole8, olex = (arrays[("diagonal", t, m, lr)] for m, lr in (("lambdamart-se", "run"),
                                                                       ("lambdamart-ole", "run"),
                                                                       ("lambdamart-ole", "exact")))
        metrics = [k for k in se8 if k.startswith("test:")]
        assert metrics
        for m in metrics:
            d = cl.decompose(se8[m], ole8[m], olex[m])
            ok = np.isfinite(d["own"])
            assert ok.any()
            np.testing.assert_allclose(d["own"][ok], d["split"][ok] + d["leaf"][ok], rtol=0, atol=1e-12)
            np.testing.assert_array_equal(olex[m], arrays[("own", t, "lambdamart-ole", "run")][m])
    claims = json.loads((tmp_path / "diagonal" / "claims.json").read_text())["claims"]
    assert sum("loss" in c["claim"] and c["claim"].startswith("lambdamart") for c in claims) == 3
