"""The fit layer's structure: library differences live in the backends only, presets beside
``Boosting``, typed options with their defaults in one place, identity as data, and one
resolver that also puts a plug-in loss under a Xia split principle."""
import ast
import dataclasses
import re
from pathlib import Path

import numpy as np
import pytest

from ltrrepro.fit import (BACKENDS, SYSTEMS, Boosting, GBDTOptions, GBTOptions, PluginError, QBRankOptions,
                          RankingOptions, RankSVMOptions, System, plugin_key, system_for)

PKG = Path(__file__).resolve().parents[2] / "ltrrepro"
BRANCH = re.compile(r"""\blibrary\s*[!=]=|[!=]=\s*\w*\.?library\b|[!=]=\s*["'](lightgbm|xgboost|catboost)["']""")


def _library_branches(root: Path) -> list[str]:
    hits = []
    for f in sorted(root.rglob("*.py")):
        if "backends" in f.relative_to(root).parts:
            continue
        for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            if BRANCH.search(line.split("#")[0]):
                hits.append(f"{f.relative_to(root.parent)}:{i}: {line.strip()}")
    return hits


def test_no_library_branch_outside_the_backends(tmp_path):
    assert _library_branches(PKG) == []
    # the check finds what it looks for
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "t.py").write_text('if self.library == "lightgbm":\n    pass\nok = lib != "xgboost"\n')
    assert len(_library_branches(tmp_path / "pkg")) == 2


def test_presets_live_beside_boosting_and_nothing_imports_upward():
    from ltrrepro.fit import boosting
    assert not (PKG / "presets.py").exists()                # moved, not re-exported
    assert boosting.preset("tiny", rounds=3) == Boosting(**{**boosting.PRESETS["tiny"], "rounds": 3})
    tree = ast.parse((PKG / "fit" / "boosting.py").read_text(encoding="utf-8"))
    imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert all(not m.startswith(".") and "ltrrepro" not in m for m in imported if m != "__future__"), imported
    for f in (PKG / "fit").rglob("*.py"):                # the fit layer never reaches back into ltrrepro.presets
        assert "presets" not in {a.module for a in ast.walk(ast.parse(f.read_text(encoding="utf-8")))
                                 if isinstance(a, ast.ImportFrom) and a.module} | set(), f


def test_backends_translate_one_boosting_into_each_librarys_parameters():
    b = Boosting(learning_rate=0.05, num_leaves=9, min_data_in_leaf=7, max_bin=31, sigmoid=2.0, lambdarank_norm=True)
    lgb, xgb = BACKENDS["lightgbm"], BACKENDS["xgboost"]
    p = lgb.params("lambdarank", b, threads=3, seed=5, own_metric=True)
    assert (p["num_leaves"], p["learning_rate"], p["min_data_in_leaf"], p["max_bin"], p["num_threads"]) == (9, .05, 7, 31, 3)
    assert p["min_sum_hessian_in_leaf"] == 0.0 and p["deterministic"] and p["metric"] == "None"
    assert (p["sigmoid"], p["lambdarank_norm"]) == (2.0, True)
    q = xgb.params("rank:ndcg", b, threads=3, seed=5, own_metric=True)
    assert (q["max_leaves"], q["eta"], q["max_bin"], q["nthread"], q["grow_policy"]) == (9, .05, 31, 3, "lossguide")
    assert q["min_child_weight"] == 0.0 and q["base_score"] == 0.0 and q["lambdarank_normalization"] is True
    adapter = xgb.adapter(SYSTEMS["xendcg"].options.objective())
    custom = xgb.params(adapter, b, threads=1, seed=0)
    assert "objective" not in custom and xgb.record_params(custom, adapter)["objective"].startswith("XENDCG(")
    assert lgb.params("regression", b, threads=1, seed=0, device="cuda")["device_type"] == "cuda"
    assert xgb.params("reg:squarederror", b, threads=1, seed=0, device="cuda", start=1.5)["base_score"] == 1.5
    assert lgb.rewrites_leaves and not xgb.rewrites_leaves and lgb.ranges_add and not xgb.ranges_add
    with pytest.raises(NotImplementedError, match="cannot rewrite a tree's leaves"):
        xgb.rescale_leaves(adapter, None, None, 1.0)


@pytest.mark.parametrize("library", sorted(BACKENDS))
def test_a_backend_trains_and_predicts_on_its_threads(library):
    from ltrrepro import make_synthetic
    ds = make_synthetic("web30k", n_queries=12, seed=1)
    be = BACKENDS[library]
    params = be.params(be.objectives["squared_error"], Boosting(num_leaves=4, min_data_in_leaf=5, max_bin=15),
                       threads=1, seed=0, start=0.0)
    run = be.train(params, be.dataset(ds, params, threads=1, grouped=False), 3)
    raw = be.predictor(run.booster, 1)
    assert (run.best_iteration, run.n_rounds) == (3, 3)
    whole = raw(ds.X, 0, 3)
    parts = raw(ds.X, 0, 1) + raw(ds.X, 1, 3) if be.ranges_add else raw(ds.X, 0, 3)
    np.testing.assert_allclose(parts, whole, rtol=1e-12, atol=1e-12)


def test_options_are_typed_with_their_defaults_in_one_place():
    assert SYSTEMS["gbt"].options == GBTOptions() and SYSTEMS["qbrank"].options == QBRankOptions()
    assert SYSTEMS["ranksvm"].options == RankSVMOptions() and isinstance(SYSTEMS["xendcg"].options, RankingOptions)
    assert isinstance(SYSTEMS["lambdamart-ole"].options, GBDTOptions)
    for system in SYSTEMS.values():
        assert dataclasses.is_dataclass(system.options) and system.options.__dataclass_params__.frozen, system.name
    t = SYSTEMS["qbrank"].trainer(Boosting(rounds=2), seed=np.random.SeedSequence(0), w=0.25)
    assert t.options == QBRankOptions(w=0.25) and SYSTEMS["qbrank"].options.w == 0.5     # the system keeps its own
    with pytest.raises(TypeError, match=r"system 'qbrank' has no option 'grid': its options \(QBRankOptions\) are "
                                        r"w, tune_grid"):
        SYSTEMS["qbrank"].trainer(Boosting(rounds=2), seed=np.random.SeedSequence(0), grid=((0.1, 4),))
    with pytest.raises(ValueError, match="leaf_rule"):
        SYSTEMS["lambdamart-se"].configure(leaf_rule="newton")
    with pytest.raises(TypeError, match="options must be an instance"):
        System("x", "X", object, options=(("w", 1),))


def test_identity_is_family_and_variant():
    ident = {n: (s.family, s.variant) for n, s in SYSTEMS.items()}
    assert ident["mcrank-ole"] == ("mcrank", "ole") and ident["lambdamart-se"] == ("lambdamart", "se")
    assert ident["lambdamart"] == ("lambdamart", "builtin") and ident["lambdamart_custom"] == ("lambdamart", "custom")
    assert ident["xendcg"] == ("xendcg", "custom") and ident["lgb_rank_xendcg"] == ("xendcg", "lightgbm")
    assert {ident[n][0] for n in ("gbt", "qbrank", "ranksvm")} == {"gbt", "qbrank", "ranksvm"}
    xia = [n for n, s in SYSTEMS.items() if s.libraries == ("ltrrepro",)]
    assert len({ident[n] for n in xia}) == len(xia)                   # the study's arms are told apart by it


SQ = "plugin_losses:Squared(scale=0.5)"
PAIRS = "ltrrepro.objectives:RankNet"          # an objective exposing its pair structure (grad_hess_pairs)


def test_one_resolver_puts_a_plugin_under_a_split_principle():
    from ltrrepro import make_synthetic
    plugins = ((plugin_key(SQ), SQ), (plugin_key(PAIRS), PAIRS))
    bruch = system_for(plugin_key(SQ), plugins)
    assert (bruch.family, bruch.variant) == (plugin_key(SQ), "custom") and bruch.libraries == ("lightgbm", "xgboost")
    se = system_for(f"{plugin_key(SQ)}-se", plugins)
    assert (se.family, se.variant, se.libraries) == (plugin_key(SQ), "se", ("ltrrepro",))
    assert se.label == "Squared(scale=0.5) (SE)"
    ds = make_synthetic("web30k", n_queries=16, seed=2)
    b = Boosting(learning_rate=0.2, num_leaves=4, min_data_in_leaf=5, max_bin=15, rounds=2)
    for name in (f"{plugin_key(SQ)}-rwse", f"{plugin_key(PAIRS)}-ole"):
        t = system_for(name, plugins).trainer(b, seed=np.random.SeedSequence(1), threads=1, growth="best-first")
        t.add_train(ds)
        fitted = t.fit()
        assert fitted.scores(ds.X).shape == (ds.n_docs,) and np.isfinite(fitted.scores(ds.X)).all()
    assert fitted.train_loss is not None                                 # RankNet has a loss; Squared none
    with pytest.raises(PluginError, match="OLE principle needs the pair structure.*Squared has none; run it under se"):
        system_for(f"{plugin_key(SQ)}-ole", plugins)
    with pytest.raises(KeyError, match="no system named"):
        system_for(f"{plugin_key(SQ)}-xyz", plugins)
    assert f"{plugin_key(SQ)}-se" not in SYSTEMS
